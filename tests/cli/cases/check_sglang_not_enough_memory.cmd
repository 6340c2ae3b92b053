check
@DATA@/../k8s/03-sglang-not-enough-memory.yaml
