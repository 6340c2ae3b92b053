--engine
vllm
--gpu-memory-utilization
1.5
