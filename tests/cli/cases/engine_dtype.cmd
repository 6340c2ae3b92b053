--engine
vllm
--dtype
float32
