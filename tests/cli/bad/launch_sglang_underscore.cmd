--
python3 -m sglang.launch_server --model-path qwen3-8b --mem_fraction_static 0.5
