--model-path
qwen3-8b
--config
@DATA@/sglang/server_config.txt
