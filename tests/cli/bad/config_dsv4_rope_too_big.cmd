--model-path
@DATA@/bad/dsv4-rope-too-big.json
