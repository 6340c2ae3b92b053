sweep
--tp
1,2
--explain
