--gpu
L40S
--sglang-version
0.5.0
--explain
