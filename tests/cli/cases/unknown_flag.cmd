--model-path
llama-3.1-8b
--frobnicate
3
