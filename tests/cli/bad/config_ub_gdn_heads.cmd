--model-path
qwen3-next-80b-a3b-thinking
--json-model-override-args
{"linear_num_key_heads": 4611686018427387904}
