#!/bin/sh
# Builds the libFuzzer targets with clang (ASan + UBSan) and runs each for a
# while; prints libFuzzer's closing figures per target. Crashes are written
# to fuzz/crashes/TARGET/: reduce them, fix the bug, then move the input
# into fuzz/corpus/TARGET/ so the replay test keeps it fixed.
#
#   fuzz/run.sh [SECONDS_PER_TARGET]     (default 60)
#   TARGETS="config dir" fuzz/run.sh 600 (some of config flags pools dir log request hub manifest)
#
# Inputs up to 256 KB (the quadratic-loop and memory shapes of the
# reliability review need that much), 5 s and 1 GiB each at most.
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
seconds=${1:-60}
out=$here/build-fuzz
mkdir -p "$out"
jansson_cflags=$(pkg-config --cflags jansson)
jansson_libs="$(pkg-config --libs jansson) $(pkg-config --libs yaml-0.1)"
cmake -S "$here" -B "$out/cmake" >/dev/null
cmake --build "$out/cmake" --target kvplan_objects >/dev/null # catalog_data.c
# the library's rooms (the Hub client without its network: http_none.c)
# and the command's files but main.c
src="$(ls "$here"/src/*/*.c | grep -v /hub/http_curl.c) $out/cmake/catalog_data.c
     $(ls "$here"/cli/*.c | grep -v '/main\.c$')"
for target in ${TARGETS:-config flags pools dir log request hub manifest}; do
  clang -std=c11 -g -O1 -fsanitize=fuzzer,address,undefined \
    -fno-sanitize-recover=undefined -ffp-contract=off \
    -D_POSIX_C_SOURCE=200809L -I"$here/include" -I"$here/src" -I"$here/cli" \
    $jansson_cflags $src "$here/fuzz/fuzz_$target.c" $jansson_libs -lm -ldl \
    -o "$out/fuzz_$target"
  work=$out/corpus-$target
  mkdir -p "$work" "$here/fuzz/crashes/$target"
  cp "$here/fuzz/corpus/$target"/* "$work"/ 2>/dev/null || true
  seeds=""
  [ "$target" = config ] && seeds="$here/data/models/*/config.json"
  [ "$target" = manifest ] && seeds="$here/tests/k8s/*"
  if [ "$target" = pools ]; then
    i=0
    while IFS= read -r line; do
      i=$((i + 1)); printf '%s' "$line" > "$work/golden-$i"
    done < "$here/tests/data/golden/configurator.jsonl"
  fi
  for s in $seeds; do cp "$s" "$work/seed-$(basename "$(dirname "$s")")-$(basename "$s")"; done
  echo "== fuzz_$target, $seconds s"
  (cd "$here/fuzz/crashes/$target" &&
   "$out/fuzz_$target" -max_total_time="$seconds" -max_len=262144 \
     -timeout=5 -rss_limit_mb=1024 -print_final_stats=1 "$work" 2>&1) |
    grep -E '^(#[0-9]+.*DONE|stat::number_of_executed_units|stat::average_exec_per_sec|stat::new_units_added|stat::peak_rss_mb|==[0-9]+==ERROR|SUMMARY)' || true
  echo "corpus: $(ls "$work" | wc -l) inputs; crashes: $(ls "$here/fuzz/crashes/$target" | wc -l)"
done
