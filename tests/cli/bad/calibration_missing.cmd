--calibration
@DATA@/calibration/none.json
