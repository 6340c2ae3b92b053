sweep
--gpu
H100-80GB,NOPE
