--model-path
llama-3.1-8b-instruct
--gpu
H100-80GB
--mem-fraction-static
0.15
