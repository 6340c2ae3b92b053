--engine
trtllm
--model-path
gpt-oss-20b
--max-attention-window
128,131072
--max-gpu-total-bytes
40GiB
