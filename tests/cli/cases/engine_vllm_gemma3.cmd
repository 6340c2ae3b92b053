--engine
vllm
--model-path
gemma-3-4b-it
--max-model-len
32768
