--engine
trtllm
--trtllm-version
1.3.0rc24
