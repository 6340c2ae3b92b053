fit
--concurrency
64
--model-path
gpt-oss-120b
--tp-size
2
