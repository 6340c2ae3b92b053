--mem-fraction-static
0x0.8p0
