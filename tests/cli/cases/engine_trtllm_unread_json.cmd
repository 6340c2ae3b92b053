--engine
trtllm
--model-path
gpt-oss-20b
--no-async-scheduling
--json
