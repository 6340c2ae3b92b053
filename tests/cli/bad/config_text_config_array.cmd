--model-path
@DATA@/bad/text-config-array.json
