--
python3 -m sglang.launch_server --model-path qwen3-8b 2>&1 | tee log
