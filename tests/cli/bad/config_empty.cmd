--model-path
@DATA@/bad/empty.json
