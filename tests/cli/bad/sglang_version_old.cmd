--sglang-version
0.2.9
