--model-path
qwen3-8b
--context-length
1000000
