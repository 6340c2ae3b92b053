--engine
vllm
--mem-fraction-static
0.8
--page-size
16
