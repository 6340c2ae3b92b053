--engine
trtllm
--model-path
gpt-oss-20b
--use-kv-cache-manager-v2
