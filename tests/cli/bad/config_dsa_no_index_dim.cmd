--model-path
@DATA@/bad/dsa-no-index-dim.json
