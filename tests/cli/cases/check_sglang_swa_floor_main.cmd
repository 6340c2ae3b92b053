check
@DATA@/../k8s/06-sglang-swa-floor.yaml
--sglang-version
main
