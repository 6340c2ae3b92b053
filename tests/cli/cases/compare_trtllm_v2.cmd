compare
--model-path
qwen3-0.6b
--use-kv-cache-manager-v2
