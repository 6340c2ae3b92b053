check
@DATA@/../k8s/19-amd-mi300x.yaml
