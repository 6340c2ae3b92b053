sweep
--gpu
L4,H100-80GB
--mem-fraction-static
0.7,0.9
--rank-by
tokens
--csv
