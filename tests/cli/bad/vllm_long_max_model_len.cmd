--engine
vllm
--max-model-len
200000
