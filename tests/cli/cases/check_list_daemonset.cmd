check
@DATA@/../k8s/17-list-daemonset.yaml
