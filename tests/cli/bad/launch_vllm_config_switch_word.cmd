--
vllm
serve
qwen3-8b
--config
@DATA@/vllm/switch_word.yaml
