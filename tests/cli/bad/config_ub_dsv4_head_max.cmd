--model-path
deepseek-v4-flash
--json-model-override-args
{"head_dim": 9223372036854775807, "qk_rope_head_dim": -1}
