log
@DATA@/../logs/14-kimi-k2-5.log
