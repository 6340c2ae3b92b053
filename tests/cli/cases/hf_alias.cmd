--model-path
deepseek-ai/DeepSeek-R1-0528
--tp
8
--gpu
H200
