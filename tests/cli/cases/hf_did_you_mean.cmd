--model-path
Qwen/Qwen3-235B-A22B-Instruct-2507
