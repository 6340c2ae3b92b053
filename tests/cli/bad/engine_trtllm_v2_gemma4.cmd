--engine
trtllm
--model-path
gemma-4-26b-a4b
--use-kv-cache-manager-v2
