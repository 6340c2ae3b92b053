--gpu
H100-80GB
--
trtllm-serve
llama-3.1-8b-instruct
--config
@DATA@/trtllm/v1_quoted.yaml
