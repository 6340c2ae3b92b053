--model-path
llama-3.1-405b
--gpu
L4
