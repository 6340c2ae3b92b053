--model-path
@DATA@/bad/interval-zero.json
