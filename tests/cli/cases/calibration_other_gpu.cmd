--model-path
kimi-k2.5
--tp-size
8
--gpu
MI300X
--calibration
@DATA@/calibration/kimi-k2.5-mi355x-tp8.json
