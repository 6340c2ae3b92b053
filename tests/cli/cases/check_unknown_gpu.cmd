check
@DATA@/../k8s/15-unknown-gpu.yaml
