--gpu
H100-80GB
--json
--
trtllm-serve
qwen3-8b
--config
@DATA@/trtllm/yaml_words.yaml
