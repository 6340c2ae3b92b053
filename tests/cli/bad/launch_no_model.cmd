--
vllm
serve
--max-model-len
8192
