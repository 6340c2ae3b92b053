check
@DATA@/../k8s/04-sglang-tp-over-gpus.yaml
