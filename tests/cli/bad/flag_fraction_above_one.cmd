--mem-fraction-static
1.5
