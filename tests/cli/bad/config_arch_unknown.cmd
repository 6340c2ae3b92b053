--model-path
@DATA@/bad/arch-unknown.json
