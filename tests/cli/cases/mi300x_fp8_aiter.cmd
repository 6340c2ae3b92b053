--gpu
MI300X
--kv-cache-dtype
fp8_e4m3
--tp
8
--model-path
llama-3.1-70b-instruct
