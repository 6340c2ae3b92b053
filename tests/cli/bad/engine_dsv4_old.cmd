--engine
vllm
--model-path
deepseek-v4-flash
--vllm-version
0.25.1
