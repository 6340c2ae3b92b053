--engine
vllm
--model-path
qwen3-8b
--gpu
H100-80GB
--config
@DATA@/vllm/serve_config.yaml
