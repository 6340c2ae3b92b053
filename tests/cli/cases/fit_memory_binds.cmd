fit
--concurrency
50000000
--max-running-requests
50000000
