--model-path
@DATA@/bad/heads-missing.json
