--engine
trtllm
--model-path
gemma-4-26b-a4b
--pp-size
2
