--
trtllm-serve
qwen3-8b
--config
@DATA@/trtllm/backend_trt.yaml
