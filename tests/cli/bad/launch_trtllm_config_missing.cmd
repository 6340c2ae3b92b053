--
trtllm-serve
qwen3-8b
--extra_llm_api_options
@DATA@/trtllm/absent.yaml
