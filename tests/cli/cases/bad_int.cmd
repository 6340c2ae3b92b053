--tp-size
two
