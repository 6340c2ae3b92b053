--engine
trtllm
--weight-bytes
16060522496
--activation-memory
1GiB
--non-torch-memory
1GiB
