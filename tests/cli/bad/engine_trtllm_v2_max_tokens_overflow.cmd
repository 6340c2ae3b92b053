--engine
trtllm
--model-path
llama-3.1-8b-instruct
--use-kv-cache-manager-v2
--max-tokens
9223372036854775807
