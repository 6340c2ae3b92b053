--model-path
gpt-oss-120b
--available-bytes
107374182400
--json
