--gpu-memory
0
