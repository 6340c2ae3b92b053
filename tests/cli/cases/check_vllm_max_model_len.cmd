check
@DATA@/../k8s/08-vllm-max-model-len.yaml
