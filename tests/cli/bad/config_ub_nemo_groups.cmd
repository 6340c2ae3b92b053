--model-path
nemotron-h-56b-base-8k
--json-model-override-args
{"n_groups": 4611686018427387904}
