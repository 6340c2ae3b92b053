--model-path
@DATA@/bad/layers-zero.json
