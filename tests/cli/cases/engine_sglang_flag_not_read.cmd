--engine
trtllm
--gpu
H100-80GB
--enable-pdmux
--weight-bytes
16060522496
