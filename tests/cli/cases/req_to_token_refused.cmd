--model-path
llama-4-scout-17b-16e-instruct
--tp-size
8
