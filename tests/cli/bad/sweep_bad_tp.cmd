sweep
--tp-size
1,,x
