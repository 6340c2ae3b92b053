--model-path
@DATA@/bad/nan-heads.json
