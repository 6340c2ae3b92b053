solve
--target-tokens
1000
--target-concurrency
4
