--model-path
qwen3-8b
--max-model-len
32768
--gpu-memory-utilization
0.8
