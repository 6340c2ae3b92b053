--engine
vllm
--kv-cache-memory
lots
