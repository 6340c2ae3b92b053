--speculative-algorithm
MEDUSA
