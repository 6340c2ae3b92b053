--engine
tgi
