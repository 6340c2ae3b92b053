--engine
vllm
--kv-cache-memory
8GiB
--max-model-len
32768
--json
