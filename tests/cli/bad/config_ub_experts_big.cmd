--model-path
@DATA@/bad/ub-experts-big.json
