--json-model-override-args
[1]
