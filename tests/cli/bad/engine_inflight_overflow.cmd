--engine
vllm
--model-path
gpt-oss-20b
--kv-cache-memory
16GiB
--max-num-batched-tokens
4611686018427387904
