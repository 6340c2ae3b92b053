log
@DATA@/../logs/18-qwq-32b.log
--model-path
@DATA@/../logs/models/qwq-32b
--gpu
L4
--json
