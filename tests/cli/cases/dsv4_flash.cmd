--model-path
deepseek-v4-flash
--gpu
B200
--tp-size
4
