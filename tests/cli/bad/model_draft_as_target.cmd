--model-path
eagle3-llama3.1-8b
