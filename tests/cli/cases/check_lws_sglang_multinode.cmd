check
@DATA@/../k8s/10-lws-sglang-multinode.yaml
