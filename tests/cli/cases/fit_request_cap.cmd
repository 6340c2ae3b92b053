fit
--concurrency
5000
