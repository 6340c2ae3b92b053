solve
--target-concurrency
5000
--solve-for
mem-fraction-static
