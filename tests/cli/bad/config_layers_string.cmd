--model-path
@DATA@/bad/layers-string.json
