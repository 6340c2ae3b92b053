check
@DATA@/../k8s/07-vllm-no-cache-memory.yaml
