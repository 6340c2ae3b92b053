--model-path
/dev/null
