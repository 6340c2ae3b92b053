#!/bin/sh
# The library's symbols: every global that libkvplan.a defines is kvplan's
# (kvplan_ or kvplan__: a static embedder's own names, a cli_run or a
# json_pack, cannot clash with it; the command's files are not in it), and
# libkvplan.so exports exactly the functions its two headers declare.
# Skipped (77) without nm.
#   tests/symbols.sh LIBKVPLAN.a LIBKVPLAN.so INCLUDE_DIR
set -eu
a=$1 so=$2 inc=$3
command -v nm >/dev/null 2>&1 || { echo "symbols: no nm here"; exit 77; }
# (AddressSanitizer adds an __odr_asan.NAME beside each global NAME: ours)
bad=$(nm -g --defined-only "$a" | awk 'NF==3 {print $3}' |
      grep -v -e '^kvplan_' -e '^__odr_asan\.kvplan_' || true)
if [ -n "$bad" ]; then
  echo "libkvplan.a defines names that are not kvplan's:"
  echo "$bad" | head -20
  exit 1
fi
exported=$(nm -D --defined-only "$so" | awk '$2 == "T" {print $3}' | sort)
declared=$(grep -h -A3 '^KVPLAN_API' "$inc/kvplan.h" "$inc/kvplan_json.h" |
           grep -o 'kvplan_[a-z0-9_]*(' | tr -d '(' | sort -u)
if [ "$exported" != "$declared" ]; then
  echo "libkvplan.so exports other functions than its headers declare:"
  printf '%s\n' "$exported" > "${TMPDIR:-/tmp}/kvplan-exported.$$"
  printf '%s\n' "$declared" | diff "${TMPDIR:-/tmp}/kvplan-exported.$$" - || true
  rm -f "${TMPDIR:-/tmp}/kvplan-exported.$$"
  exit 1
fi
echo "symbols: $(echo "$exported" | wc -l) exported, all declared; libkvplan.a: kvplan's names only"
