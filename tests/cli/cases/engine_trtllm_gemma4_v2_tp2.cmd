--engine
trtllm
--model-path
gemma-4-26b-a4b
--gpu
H100-80GB
--tp-size
2
