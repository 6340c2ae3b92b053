fitt
