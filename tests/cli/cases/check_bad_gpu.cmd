check
@DATA@/../k8s/01-vllm-deployment-h100.yaml
--gpu
H100-80G
