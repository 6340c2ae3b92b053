--
trtllm-serve serve qwen3-8b --tp_size 2 --kv_cache_free_gpu_memory_fraction 0.8 --backend pytorch
