--engine
vllm
--model-path
llama-3.1-8b-instruct
--fp4-indexer-cache
