log
