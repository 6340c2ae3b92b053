--model-path
@DATA@/bad/dsv4-bad-ratio.json
