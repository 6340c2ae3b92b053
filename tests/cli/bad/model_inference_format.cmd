--model-path
deepseek-v3-inference-format
