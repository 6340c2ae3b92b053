--mem-fraction-statc
0.8
