--sglang-version
0.4.3
