fit
--context-length
200000
--model-path
qwen3-next-80b-a3b-thinking
--tp-size
4
--json
