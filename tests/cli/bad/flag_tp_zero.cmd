--tp-size
0
