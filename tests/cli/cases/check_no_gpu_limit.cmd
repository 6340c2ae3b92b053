check
@DATA@/../k8s/14-no-gpu-limit.yaml
