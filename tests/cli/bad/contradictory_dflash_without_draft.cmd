--speculative-algorithm
DFLASH
