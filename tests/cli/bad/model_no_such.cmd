--model-path
no-such-model
