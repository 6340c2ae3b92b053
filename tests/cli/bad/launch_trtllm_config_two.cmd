--
trtllm-serve
qwen3-8b
--config
@DATA@/trtllm/two_documents.yaml
