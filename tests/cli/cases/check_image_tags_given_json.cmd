check
@DATA@/../k8s/26-image-tags.yaml
--vllm-version
0.25
--json
