--tp-size
2.5
