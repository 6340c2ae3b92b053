log
@DATA@/../logs/01-meta-llama-3-1-8b-instruct.log
--mem-fraction-static
0.8
--json
