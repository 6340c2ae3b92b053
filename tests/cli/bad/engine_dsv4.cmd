--engine
vllm
--model-path
deepseek-v4-flash
