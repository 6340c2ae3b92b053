--model-path
deepseek-v3.2
--tp-size
8
--kv-cache-dtype
fp8_e5m2
