--engine
vllm
--model-path
gpt-oss-20b
--kv-cache-memory
16GiB
--json
