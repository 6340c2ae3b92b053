compare
--model-path
qwen3-next-80b-a3b-thinking
--gpu
H100-80GB
--tp-size
4
