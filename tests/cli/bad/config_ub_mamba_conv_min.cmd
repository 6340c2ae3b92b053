--model-path
nemotron-h-56b-base-8k
--json-model-override-args
{"conv_kernel": -9223372036854775808}
