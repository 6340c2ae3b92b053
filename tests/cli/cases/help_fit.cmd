help
fit
