--
trtllm-serve
qwen3-8b
--config
@DATA@/trtllm/bad_fraction.yaml
