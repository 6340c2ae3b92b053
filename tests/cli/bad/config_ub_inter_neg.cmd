--model-path
@DATA@/bad/ub-inter-neg.json
