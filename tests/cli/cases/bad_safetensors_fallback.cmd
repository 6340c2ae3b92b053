--model-path
@DATA@/models/bad-safetensors
