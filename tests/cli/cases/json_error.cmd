--json
--tp-size
3
--model-path
llama-3.1-70b-instruct
