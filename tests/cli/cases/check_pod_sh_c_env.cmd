check
@DATA@/../k8s/11-pod-sh-c-env.yaml
