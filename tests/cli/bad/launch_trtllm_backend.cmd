--
trtllm-serve
qwen3-8b
--backend
tensorrt
