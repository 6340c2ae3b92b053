log
@DATA@/../logs/05-llama-3-2-1b-instruct.log
--gpu
H100-80GB
