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
