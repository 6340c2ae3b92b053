#!/bin/sh
# Runs kvplan-bench and the Python anchor (the reference configurator timed
# by ../shared/oracle/bench_seed.py) on the same golden file, on this
# machine, and prints the ratios; then the Python binding beside the
# reference (bench/python.py: kvplan.Scenarios and kvplan.pools per
# configurator call, one kvplan.plan() against the C plan).
#
# A shared machine's speed drifts from minute to minute, so the two are run
# in alternating rounds and each figure is the median of its rounds.
#
#   bench/compare.sh [BUILD_DIR] [ROUNDS]     (defaults: build, 3)
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$here/build}
rounds=${2:-3}
golden=$here/tests/data/golden/configurator.jsonl
anchor_dir=$here/../shared/oracle
[ -x "$build/kvplan-bench" ] || { echo "build $build/kvplan-bench first" >&2; exit 2; }
python_binding() {  # $1: the C plan's ns, or empty
  [ -f "$build/lib/libkvplan.so" ] || { echo "no $build/lib/libkvplan.so: Python binding skipped"; return 0; }
  KVPLAN_LIBRARY=$build/lib/libkvplan.so python3 "$here/bench/python.py" \
    "$golden" "$2" "$rounds" 2>/dev/null > "$tmp/binding" || {
    echo "bench/python.py failed"; return 0; }
  cat "$tmp/binding"
  awk -v c="$1" '
    /^py_plan_us:/ { plan = $2 } /^py_scenarios_call_us:/ { scn = $2 }
    /^py_pools_call_us:/ { pools = $2 } /^oracle_call_us:/ { ref = $2 }
    END {
      if (c != "" && plan != "")
        printf "kvplan.plan(): %.1f us, %.0fx the C plan (target: at most 100x)\n", plan, plan * 1000 / c
      if (ref != "") {
        printf "kvplan.Scenarios: %.0fx faster a call than the reference (target: at least 10x)\n", ref / scn
        printf "kvplan.pools, one call through JSON: %.1fx\n", ref / pools
      }
    }' "$tmp/binding"
}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if [ ! -f "$anchor_dir/bench_seed.py" ]; then  # a clone without ../shared
  "$build/kvplan-bench" "$golden" | tee "$tmp/c"
  echo "no Python anchor at $anchor_dir: ratios skipped"
  python_binding "$(sed -n 's/^plan_compute_ns //p' "$tmp/c")" ""
  exit 0
fi
i=0
while [ "$i" -lt "$rounds" ]; do
  "$build/kvplan-bench" "$golden" > "$tmp/c.$i"
  (cd "$anchor_dir" && python3 bench_seed.py "$golden" 2>/dev/null) > "$tmp/py.$i"
  # the oracle answering one scenario as a process (median of 5)
  head -n 1 "$golden" > "$tmp/one.jsonl"
  for k in 1 2 3 4 5; do
    t0=$(date +%s%N)
    (cd "$anchor_dir" && python3 oracle.py < "$tmp/one.jsonl" > /dev/null 2>&1)
    t1=$(date +%s%N)
    echo $(( (t1 - t0) / 1000 ))
  done | sort -n | sed -n 3p | awk '{ printf "%.2f\n", $1 / 1000 }' > "$tmp/pyproc.$i"
  echo "round $((i + 1)): $(sed -n 's/^pools_scenario_ns: /C scenario /p' "$tmp/c.$i") ns," \
       "$(sed -n 's/^pools_call_ns: /call /p' "$tmp/c.$i") ns; Python $(cat "$tmp/py.$i")"
  i=$((i + 1))
done
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
c_scn=$(cat "$tmp"/c.* | sed -n 's/^pools_scenario_ns: //p' | median)
c_call=$(cat "$tmp"/c.* | sed -n 's/^pools_call_ns: //p' | median)
py_scn=$(cat "$tmp"/py.* | sed -n 's/.*(build + calls): \([0-9.]*\) us.*/\1/p' | median)
py_call=$(cat "$tmp"/py.* | sed -n 's/.*call alone: \([0-9.]*\) us.*/\1/p' | median)
c_proc=$(cat "$tmp"/c.* | sed -n 's/^plan_process_ms: //p' | median)
c_plan=$(cat "$tmp"/c.* | sed -n 's/^plan_compute_ns //p' | median)
c_engine=$(cat "$tmp"/c.* | sed -n 's/^engine_compute_ns \([0-9]*\).*/\1/p' | median)
py_proc=$(cat "$tmp"/pyproc.* | median)
echo "medians: pools_scenario_ns $c_scn vs Python $py_scn us; pools_call_ns $c_call vs Python $py_call us; plan_process_ms $c_proc vs oracle.py process $py_proc ms"
awk -v a="$py_scn" -v b="$c_scn" -v c="$py_call" -v d="$c_call" \
    -v e="$py_proc" -v f="$c_proc" 'BEGIN {
  printf "scenario ratio: %.0fx (target 500x)\ncall ratio: %.0fx (target 200x)\n",
         a * 1000 / b, c * 1000 / d
  printf "process ratio: %.0fx (target 40x)\n", e / f }'
echo "plan_compute_ns $c_plan (target: at most 1000)"
for k in plan_fresh_ns model_load_ns model_load_max_ns process_vs_true cli_vs_library_sweep; do
  v=$(cat "$tmp"/c.* | sed -n "s/^$k:* \([0-9.]*\).*/\1/p" | median)
  if [ -n "$v" ]; then echo "$k $v (median of the rounds)"; fi
done
grep '^sweep_plans_per_s' "$tmp/c.0"
echo "engine_compute_ns $c_engine (vLLM, gpt-oss-20b)"
python_binding "$c_plan" "$anchor_dir"
