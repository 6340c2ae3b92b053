fit
