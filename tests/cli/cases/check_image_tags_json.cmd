check
@DATA@/../k8s/26-image-tags.yaml
--json
