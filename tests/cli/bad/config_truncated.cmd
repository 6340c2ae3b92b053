--model-path
@DATA@/bad/truncated.json
