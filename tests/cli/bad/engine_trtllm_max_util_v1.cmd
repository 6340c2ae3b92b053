--engine
trtllm
--model-path
llama-3.1-8b-instruct
--max-util-for-resume
0.9
