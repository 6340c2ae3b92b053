log
-
--model-path
kimi-k2.5
