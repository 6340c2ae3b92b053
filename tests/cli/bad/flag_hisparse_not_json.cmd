--hisparse-config
not-json
