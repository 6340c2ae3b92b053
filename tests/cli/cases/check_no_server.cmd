check
@DATA@/../k8s/20-no-server.yaml
