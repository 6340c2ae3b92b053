--model-path
deepseek-v3
--json-model-override-args
{"qk_rope_head_dim": -9223372036854775808}
