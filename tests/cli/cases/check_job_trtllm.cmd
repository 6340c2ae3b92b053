check
@DATA@/../k8s/12-job-trtllm.yaml
