--model-path
qwen3-next-80b-a3b-thinking
--json-model-override-args
{"linear_conv_kernel_dim": -9223372036854775808}
