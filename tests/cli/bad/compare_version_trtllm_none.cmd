--engine
trtllm
--model-path
llama-3.1-8b-instruct
--gpu
H100-80GB
--compare-version
1.3
