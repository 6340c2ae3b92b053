compare
--model-path
gpt-oss-120b
--gpu
H100-80GB
