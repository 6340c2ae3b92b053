--engine
vllm
--model-path
qwen2.5-7b-instruct
--calibration
@DATA@/calibration/engine-unknown.json
