--model-path
gpt-oss-120b
