log
@DATA@/../logs/20-qwen3-0-6b.log
--model-path
qwen3-0.6b
