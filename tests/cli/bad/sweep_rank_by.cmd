sweep
--gpu
H100-80GB
--rank-by
speed
