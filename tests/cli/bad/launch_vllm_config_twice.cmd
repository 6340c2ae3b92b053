--
vllm
serve
qwen3-8b
--config
@DATA@/vllm/serve_config.yaml
--config
@DATA@/vllm/serve_config.yaml
