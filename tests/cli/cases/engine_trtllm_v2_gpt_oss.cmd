--engine
trtllm
--model-path
gpt-oss-120b
--use-kv-cache-manager-v2
