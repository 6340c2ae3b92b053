log
-
