--model-path
gpt-oss-20b
--json-model-override-args
{"sliding_window": -9223372036854775808}
