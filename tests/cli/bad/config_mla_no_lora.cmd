--model-path
@DATA@/bad/mla-no-lora.json
