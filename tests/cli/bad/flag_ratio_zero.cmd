--swa-full-tokens-ratio
0
