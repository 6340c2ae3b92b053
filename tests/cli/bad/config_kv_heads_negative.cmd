--model-path
@DATA@/bad/kv-heads-negative.json
