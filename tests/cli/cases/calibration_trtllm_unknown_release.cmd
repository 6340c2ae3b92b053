--engine
trtllm
--model-path
gpt-oss-120b
--gpu
GB10
--calibration
@DATA@/calibration/gpt-oss-120b-gb10-trtllm-1.3.0.json
