solve
--target-tokens
