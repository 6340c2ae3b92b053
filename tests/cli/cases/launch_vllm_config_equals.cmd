--gpu
H100-80GB
--
vllm
serve
qwen3-8b
--config=@DATA@/vllm/serve_config.yaml
