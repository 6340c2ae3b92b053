#!/bin/sh
# The README's Python install step, into a folder of its own: pip installs
# ./python offline (no index; the build backend is in the tree) with the
# library in the wheel, and the line then prints 819200 from a
# Python that sees only that folder. Skipped (77) without pip.
#   tests/python_install.sh PYTHON SOURCE_DIR LIBRARY
set -eu
py=$1 src=$2 lib=$3
"$py" -m pip --version >/dev/null 2>&1 || { echo "skipped: no pip for $py"; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
KVPLAN_LIBRARY=$lib "$py" -m pip install --quiet --no-index --no-cache-dir \
  --disable-pip-version-check --target "$work/site" "$src/python" \
  2>"$work/pip.err" || { cat "$work/pip.err"; exit 1; }
test -f "$work/site/kvplan/libkvplan.so"
# the console script, and the licence the project has (Apache-2.0)
test -x "$work/site/bin/kvplan"
grep -q "^License: Apache-2.0" "$work"/site/kvplan-*.dist-info/METADATA
got=$(cd "$work" && env -u KVPLAN_LIBRARY PYTHONPATH="$work/site" "$py" -c \
  "import kvplan; print(kvplan.plan('llama-3.1-8b-instruct', available_bytes=107374182400, page_size=64)['max_total_num_tokens'])")
echo "printed: $got"
test "$got" = 819200
echo "1 passed, 0 failed"
