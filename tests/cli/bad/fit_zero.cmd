fit
--concurrency
0
