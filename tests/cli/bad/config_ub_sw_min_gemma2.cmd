--model-path
@DATA@/bad/ub-sw-min-gemma2.json
