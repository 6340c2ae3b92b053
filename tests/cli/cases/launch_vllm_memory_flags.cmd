--
vllm
serve
llama-3.1-8b-instruct
--cpu-offload-gb
10
--host
0.0.0.0
--speculative-config
{"method": "ngram"}
--trust-remote-code
