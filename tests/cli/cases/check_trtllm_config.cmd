check
@DATA@/../k8s/25-trtllm-config.yaml
