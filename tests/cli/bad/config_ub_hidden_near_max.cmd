--model-path
llama-3.1-8b-instruct
--json-model-override-args
{"hidden_size": 2305843009213693904}
