help
fitt
