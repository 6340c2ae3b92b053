check
@DATA@/../k8s/23-vllm-no-memory.json
