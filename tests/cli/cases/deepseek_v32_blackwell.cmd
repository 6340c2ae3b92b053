--model-path
deepseek-ai/DeepSeek-V3.2
--gpu
B200
--tp-size
8
