--model-path
@DATA@/bad/huge-head-dim.json
--available-bytes
1000000000
