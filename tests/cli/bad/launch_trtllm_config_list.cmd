--
trtllm-serve
qwen3-8b
--config
@DATA@/trtllm/not_mapping.yaml
