--model-path
@DATA@/bad/ub-nemo-heads.json
