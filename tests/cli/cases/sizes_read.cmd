--gpu-memory
80GB
--weight-bytes
16GB
