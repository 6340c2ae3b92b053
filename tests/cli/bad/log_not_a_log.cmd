log
@DATA@/bad/empty.json
