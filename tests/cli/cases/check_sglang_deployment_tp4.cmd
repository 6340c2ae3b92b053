check
@DATA@/../k8s/02-sglang-deployment-tp4.yaml
