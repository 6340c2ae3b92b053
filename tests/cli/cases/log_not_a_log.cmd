log
@DATA@/not_a_log.md
