--engine
trtllm
--use-kv-cache-manager-v2
--max-model-len
9223372036854775807
