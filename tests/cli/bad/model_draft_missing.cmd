--speculative-algorithm
EAGLE3
--speculative-draft-model-path
no-such-draft
