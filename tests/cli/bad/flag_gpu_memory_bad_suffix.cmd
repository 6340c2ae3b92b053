--gpu-memory
80XB
