#!/bin/sh
# The house rules that a reader can check by eye, checked by machine
# (docs/architecture.md, "The house"):
#   - every C file is as the checked-in .clang-format writes it;
#   - no .c of the library or the command (src/, cli/) over 600 lines;
#   - no function there over 150 lines (a function opens with "{" and
#     closes with "}" in column 0, as the format writes them);
#   - the library (src/) never prints to stdout or stderr, nor reads the
#     environment but through kvplan_options_getenv (src/options/env.c)
#     and the GPU probe's CUDA_VISIBLE_DEVICES (src/budget/nvml.c).
# Without clang-format the first check is skipped and said (exit 77 when
# nothing else failed); .ci/run installs it, so CI always checks.
#   tests/house.sh SOURCE_DIR
set -eu
cd "$1"
fail=0
files=$(find src cli include tests bench fuzz examples -name '*.[ch]' \
          -not -path '*/corpus/*' 2>/dev/null | sort)
skipped=0
if command -v clang-format >/dev/null 2>&1; then
  bad=$(for f in $files; do
          clang-format --dry-run --Werror "$f" >/dev/null 2>&1 || echo "$f"
        done)
  if [ -n "$bad" ]; then
    echo "not as .clang-format writes them (clang-format -i fixes them):"
    echo "$bad" | sed 's/^/  /'
    fail=1
  fi
else
  echo "house: no clang-format here, the format is not checked"
  skipped=1
fi
for f in $(find src cli -name '*.c' | sort); do
  n=$(wc -l < "$f")
  if [ "$n" -gt 600 ]; then
    echo "$f: $n lines (the house's limit is 600)"
    fail=1
  fi
  awk -v file="$f" '
    /^\{/ { start = NR; next }
    /^\}/ && start { if (NR - start + 1 > 150)
                       printf "%s:%d: a function of %d lines (the limit is 150)\n",
                              file, start, NR - start + 1
                     start = 0 }' "$f" | grep . && fail=1
done
speaks=$(grep -rnE 'stderr|stdout|[^a-z_.]printf\(|[^a-z_]puts\(|getenv\(' \
           src --include='*.c' --include='*.h' |
         grep -vE '^src/options/env\.c:.*(getenv\(name\)|kvplan_options_getenv)' |
         grep -v '^src/budget/nvml\.c:.*getenv("CUDA_VISIBLE_DEVICES")' |
         grep -v 'kvplan_options_getenv(' || true)
if [ -n "$speaks" ]; then
  echo "the library prints or reads the environment on its own:"
  echo "$speaks" | sed 's/^/  /'
  fail=1
fi
[ "$fail" -eq 0 ] || exit 1
[ "$skipped" -eq 0 ] || exit 77
echo "house: formatted, files and functions within their limits"
