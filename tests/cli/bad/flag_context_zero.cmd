--context-length
0
