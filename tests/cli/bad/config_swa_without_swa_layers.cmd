--model-path
@DATA@/bad/swa-without-swa-layers.json
