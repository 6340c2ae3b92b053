--calibration
@DATA@/calibration/zero.json
