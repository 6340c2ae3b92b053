check
@DATA@/../k8s/16-model-path-in-image.yaml
