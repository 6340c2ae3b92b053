--model-path
qwen3-next-80b-a3b-thinking
--tp-size
4
--gpu
H200
