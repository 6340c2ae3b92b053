--engine
trtllm
--max-model-len
9223372036854775807
--no-use-kv-cache-manager-v2
