--engine
trtllm
--model-path
deepseek-v4-flash
