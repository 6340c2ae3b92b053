--model-path
@DATA@/bad/nul-byte.json
