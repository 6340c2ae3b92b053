--engine
trtllm
--
vllm
serve
qwen3-8b
