--pp-size
40
