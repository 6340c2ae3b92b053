--gpu
h100
