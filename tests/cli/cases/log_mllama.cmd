log
@DATA@/../logs/09-llama-3-2-11b-vision-instruct.log
