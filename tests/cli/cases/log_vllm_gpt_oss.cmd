log
@DATA@/../logs/vllm/05-gpt-oss-120b-a100-tp4.log
--model-path
gpt-oss-120b
--gpu
A100-80GB
