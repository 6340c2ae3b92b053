solve
--target-tokens
1000
--solve-for
fraction
