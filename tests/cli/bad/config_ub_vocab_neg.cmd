--model-path
@DATA@/bad/ub-vocab-neg.json
