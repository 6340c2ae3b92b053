--
vllm
serve
qwen3-8b
--mem-fraction-static
0.8
