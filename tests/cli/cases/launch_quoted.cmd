--
python3 -m sglang.launch_server --model-path qwen3-8b --tp 2
