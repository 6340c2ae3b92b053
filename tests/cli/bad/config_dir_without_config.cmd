--model-path
@DATA@/bad/empty-dir
