--model-path
gpt-oss-20b
--gpu
H100-80GB
--disable-radix-cache
--max-running-requests
64
--explain
