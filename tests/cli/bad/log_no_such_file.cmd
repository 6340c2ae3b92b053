log
@DATA@/no-such.log
