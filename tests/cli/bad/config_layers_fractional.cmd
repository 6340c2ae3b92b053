--model-path
@DATA@/bad/layers-fractional.json
