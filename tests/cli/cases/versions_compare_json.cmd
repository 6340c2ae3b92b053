--model-path
llama-3.1-8b-instruct
--sglang-version
0.5.9
--compare-version
0.5.16
--json
