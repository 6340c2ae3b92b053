--disaggregation-mode
both
