--gpu
H100-80GB
--json
--
trtllm-serve qwen3-8b --free_gpu_memory_fraction 0.5 --extra_llm_api_options @DATA@/trtllm/no_fraction.yaml
