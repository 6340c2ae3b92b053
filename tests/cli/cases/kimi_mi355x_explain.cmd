--model-path
kimi-k2.5
--gpu
MI355X
--tp
8
--explain
