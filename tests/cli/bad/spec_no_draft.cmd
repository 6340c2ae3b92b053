--speculative-algorithm
EAGLE3
