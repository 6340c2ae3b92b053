--model-path
llama-3.1-8b-instruct
--available-bytes
107374182400
--page-size
64
--json
