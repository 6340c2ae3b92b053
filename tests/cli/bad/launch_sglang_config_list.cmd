--model-path
qwen3-8b
--config
@DATA@/sglang/list_value.yaml
