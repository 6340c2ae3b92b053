--engine
trtllm
--model-path
nemotron-3-nano-30b-a3b
--use-kv-cache-manager-v2
