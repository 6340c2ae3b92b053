--model-path
@DATA@/bad/deep-nesting.json
