--engine
trtllm
--model-path
llama-3.1-8b-instruct
--gpu
H100-80GB
--config
@DATA@/trtllm/v1_quoted.yaml
