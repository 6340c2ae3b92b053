--gpu
H100-80GB
--
vllm serve qwen3-8b --max_model_len 8192 --gpu_memory_utilization=0.5 --tensor_parallel_size 2 --cpu_offload_gb 4
