check
@DATA@/../k8s/22-affinity-any-of.yaml
--gpu
L40S
