--dtype
int8
