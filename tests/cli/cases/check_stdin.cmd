check
-
