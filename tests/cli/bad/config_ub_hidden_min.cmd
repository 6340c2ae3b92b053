--model-path
@DATA@/bad/ub-hidden-min.json
