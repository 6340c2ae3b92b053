fit
--concurrency
5000
--json
