check
@DATA@/../k8s/13-kserve-vllm-args.yaml
