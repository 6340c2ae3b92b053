--engine
vllm
--model-path
deepseek-v4-flash
--kv-cache-dtype
bf16
