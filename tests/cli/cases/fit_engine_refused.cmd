fit
--engine
vllm
--concurrency
8
