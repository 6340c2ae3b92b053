--model-path
@DATA@/bad/heads-zero.json
