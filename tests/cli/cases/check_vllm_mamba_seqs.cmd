check
@DATA@/../k8s/09-vllm-mamba-seqs.yaml
