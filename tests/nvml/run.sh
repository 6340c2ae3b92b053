#!/bin/sh
# kvplan --gpu auto on the fake NVML (fake_nvml.c), each behaviour:
#   run.sh KVPLAN FAKE_LIB_DIR
set -u
kvplan=$1
export LD_LIBRARY_PATH=$2${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
fail=0
check() { # mode, expected status, text expected in the output
  out=$(FAKE_NVML=$1 "$kvplan" --gpu auto --json 2>&1)
  st=$?
  if [ "$st" != "$2" ] || ! printf '%s' "$out" | grep -q -- "$3"; then
    echo "FAIL $1: status $st (want $2), output: $out" | head -c 600; echo
    fail=1
  else
    echo "ok $1"
  fi
}
check h100 0 '"total_mib": 81559.0'
check h100 0 '"arch": "sm90"'
check two 0 '"total_mib": 40960.0'
check two 0 '"count": 1'
check hugecc 0 '"arch": "sm00"'
check failcc 0 '"compute_capability": 0'
check zero 3 'NVML sees no GPU'
check initfail 3 'NVML could not start'
check memfail 3 'NVML cannot read GPU 0'
# a GPU in use: the budget starts from what is free, as sglang measures
# it (free_before x mem_fraction_static - weights), with a warning naming
# who holds it; the idle card's plan is unchanged (411,990 tokens, H100)
check h100 0 '"max_total_num_tokens": 411990'
check busy 0 '"in_use_by": "pid 4242 40.00 GiB", "in_use_mib": 40960.0'
check busy 0 '"pre_load_gib": 38.6974609375'
check hidden 0 '"in_use_by": "40.00 GiB by processes NVML does not name"'
# sglang: (78.697 - 40) GiB free x 0.83 - 15.097 GiB of weights = 17.0916
# GiB of pool, 140,016 tokens of 131,072 bytes
check busy 0 '"max_total_num_tokens": 140016'
check busy 0 'the KV cache would have 33.20 GiB more'
# the engines on it: vLLM refuses to start when less is free than it
# requests (its request_memory's words); TensorRT-LLM takes its fraction
# of what is free: 56.40 GiB of cache on the idle card, 20.40 with 40 GiB
# held ((79.19 - 40 - 16.52 peak, its CUDA graphs in it) x 0.9, as its
# KvCacheCreator; V1, whose KV cache is that budget whole, where V2 rounds
# its slots to grains)
out=$(FAKE_NVML=busy "$kvplan" --gpu auto --engine vllm 2>&1)
st=$?
case $st:$out in
1:*"Free memory on device (39.19/79.19 GiB) on startup is less than desired GPU memory utilization (0.92, 72.85 GiB)"*"pid 4242"*) echo "ok vllm busy" ;;
*) echo "FAIL vllm busy: $st $out" | head -c 600; echo; fail=1 ;;
esac
out=$(FAKE_NVML=busy "$kvplan" --gpu auto --engine trtllm \
  --no-use-kv-cache-manager-v2 2>&1)
case $out in
*"KV cache                                    20.40"*) echo "ok trtllm busy" ;;
*) echo "FAIL trtllm busy: $out" | head -c 600; echo; fail=1 ;;
esac
# CUDA_VISIBLE_DEVICES: the GPUs it names, by index; anything else refused
out=$(CUDA_VISIBLE_DEVICES=1 FAKE_NVML=two "$kvplan" --gpu auto --json 2>&1)
case $out in
*'"count": 1, "name": "NVIDIA A100-PCIE-40GB", "total_mib": 40960.0'*) echo "ok visible" ;;
*) echo "FAIL visible: $out" | head -c 600; echo; fail=1 ;;
esac
out=$(CUDA_VISIBLE_DEVICES=0 FAKE_NVML=two "$kvplan" --gpu auto --json 2>&1)
case $out in
*'"count": 1, "name": "NVIDIA H100 80GB HBM3", "total_mib": 81559.0'*) echo "ok visible 0" ;;
*) echo "FAIL visible 0: $out" | head -c 600; echo; fail=1 ;;
esac
out=$(CUDA_VISIBLE_DEVICES=GPU-8a3f FAKE_NVML=two "$kvplan" --gpu auto 2>&1)
st=$?
case $st:$out in
[1-9]*"reads CUDA_VISIBLE_DEVICES as GPU indices; 'GPU-8a3f' is not a list"*) echo "ok visible uuid" ;;
*) echo "FAIL visible uuid: $st $out" | head -c 600; echo; fail=1 ;;
esac
out=$(CUDA_VISIBLE_DEVICES= FAKE_NVML=two "$kvplan" --gpu auto 2>&1)
st=$?
case $st:$out in
[1-9]*"leaves no GPU visible"*) echo "ok visible none" ;;
*) echo "FAIL visible none: $st $out" | head -c 600; echo; fail=1 ;;
esac
# fewer GPUs than the plan spreads over: said, in the text and the JSON
out=$(FAKE_NVML=h100 "$kvplan" --gpu auto --tp-size 8 --model-path qwen3-8b 2>&1 >/dev/null)
case $out in
*"sees 1 GPU here, and the plan spreads over 8 (tp 8 x pp 1)"*) echo "ok short" ;;
*) echo "FAIL short: $out" | head -c 600; echo; fail=1 ;;
esac
out=$(FAKE_NVML=two "$kvplan" --gpu auto --tp-size 2 --pp-size 2 --model-path qwen3-8b --json 2>/dev/null)
case $out in
*'"field": "--gpu", "message": "--gpu auto sees 2 GPUs here, and the plan spreads over 4'*) echo "ok short json" ;;
*) echo "FAIL short json: $out" | head -c 600; echo; fail=1 ;;
esac
# the driver's reserve, which CUDA's total (vLLM's) leaves out: NVML's
# _v2 call where the driver has it, else an estimate
engine() { # mode, text expected
  out=$(FAKE_NVML=$1 "$kvplan" --gpu auto --engine vllm --kv-cache-memory 8GiB \
        --max-model-len 4096 --json 2>&1)
  if ! printf '%s' "$out" | grep -q -- "$2"; then
    echo "FAIL engine $1: output: $out" | head -c 600; echo
    fail=1
  else
    echo "ok engine $1"
  fi
}
engine h100 '"driver_reserve": {"gib": 0.4580078125, "source": "measured"}'
engine h100 '"total_gib": 79.189453125'
engine two '"driver_reserve": {"gib": 0.5, "source": "estimated"}'
exit $fail
