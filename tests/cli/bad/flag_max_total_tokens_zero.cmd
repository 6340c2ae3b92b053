--max-total-tokens
0
