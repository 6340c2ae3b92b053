--gpu-memory
80
