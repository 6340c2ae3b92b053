--gpu
MI355X
