--model-path
@DATA@/bad/ub-dsv4-rope-min.json
