check
@DATA@/../k8s/21-bad-yaml.yaml
