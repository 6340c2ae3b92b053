--model-path
@DATA@/bad/layers-huge.json
