check
@DATA@/../k8s/18-json-pod.json
