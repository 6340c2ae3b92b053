--engine
vllm
--kv-cache-memory
8GiB
