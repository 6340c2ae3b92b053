--
VLLM_ALLOW_LONG_MAX_MODEL_LEN=1
vllm
serve
llama-3.1-8b-instruct
--max-model-len
200000
