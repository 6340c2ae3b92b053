--model-path
jamba-v0.1
