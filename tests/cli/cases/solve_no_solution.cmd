solve
--target-tokens
5000000
