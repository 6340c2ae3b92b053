--engine
vllm
--model-path
deepseek-v2-lite
--kv-cache-memory
8GiB
--json
