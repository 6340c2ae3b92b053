--gpu
H100-80GB
--
trtllm-serve
gemma-3-4b-it
--config=@DATA@/trtllm/v2_windows.yaml
