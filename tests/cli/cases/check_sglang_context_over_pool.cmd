check
@DATA@/../k8s/05-sglang-context-over-pool.yaml
