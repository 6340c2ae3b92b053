--model-path
@DATA@/bad/layers-negative.json
