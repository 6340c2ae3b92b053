check
@DATA@/../k8s/24-command-over-limit.yaml
