--model-path
@DATA@/bad/arch-empty.json
