--
vllm
serve
qwen3-8b
--enforce-eager=false
--max-model-len
8192
--json
