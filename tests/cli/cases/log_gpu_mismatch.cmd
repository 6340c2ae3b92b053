log
@DATA@/../logs/14-kimi-k2-5.log
--gpu
H100-80GB
--json
