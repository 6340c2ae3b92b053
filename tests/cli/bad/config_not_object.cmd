--model-path
@DATA@/bad/not-an-object.json
