--mem-fraction-static
0
