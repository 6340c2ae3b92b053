--kv-cache-dtype
fp16
