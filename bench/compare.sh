#!/bin/sh
# Runs kvplan-bench and the Python anchor (the reference configurator timed
# by ../shared/oracle/bench_seed.py) on the same golden file, on this
# machine, and prints both figures and the ratios.
#
#   bench/compare.sh [BUILD_DIR]      (default: build)
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$here/build}
golden=$here/tests/data/golden/configurator.jsonl
anchor=$here/../shared/oracle/bench_seed.py
[ -x "$build/kvplan-bench" ] || { echo "build $build/kvplan-bench first" >&2; exit 2; }
c_out=$("$build/kvplan-bench" "$golden")
echo "$c_out"
[ -f "$anchor" ] || { echo "no Python anchor at $anchor: ratios skipped"; exit 0; }
py_out=$(cd "$(dirname "$anchor")" && python3 bench_seed.py "$golden")
echo "python: $py_out"
c_scn=$(echo "$c_out" | sed -n 's/^pools_scenario_ns: //p')
c_call=$(echo "$c_out" | sed -n 's/^pools_call_ns: //p')
py_scn=$(echo "$py_out" | sed -n 's/.*(build + calls): \([0-9.]*\) us.*/\1/p')
py_call=$(echo "$py_out" | sed -n 's/.*call alone: \([0-9.]*\) us.*/\1/p')
awk -v a="$py_scn" -v b="$c_scn" -v c="$py_call" -v d="$c_call" 'BEGIN {
  printf "scenario ratio: %.0fx (target 500x)\ncall ratio: %.0fx (target 200x)\n",
         a * 1000 / b, c * 1000 / d }'
