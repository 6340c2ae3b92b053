--gpu-memory
1e300TB
