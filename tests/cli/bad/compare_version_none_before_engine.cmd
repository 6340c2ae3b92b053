--model-path
llama-3.1-8b-instruct
--compare-version
0.9.9
--engine
vllm
