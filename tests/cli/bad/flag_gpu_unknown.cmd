--gpu
H1000
