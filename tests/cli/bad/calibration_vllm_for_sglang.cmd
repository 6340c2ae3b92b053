--calibration
@DATA@/calibration/qwen2-7b-a100-vllm-0.10.json
