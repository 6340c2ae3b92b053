log
@DATA@/../logs/01-meta-llama-3-1-8b-instruct.log
--explain
