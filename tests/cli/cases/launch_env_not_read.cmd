--
CUDA_VISIBLE_DEVICES=0,1
python3
-m
sglang.launch_server
--model-path
qwen3-8b
