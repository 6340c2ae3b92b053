--calibration
@DATA@/bad/not-an-object.json
