--engine
trtllm
--max-model-len
9223372036854775807
