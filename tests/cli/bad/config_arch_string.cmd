--model-path
@DATA@/bad/arch-string.json
