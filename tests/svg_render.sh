#!/bin/sh
# The pictures of --svg as a person sees them: kvplan draws a plan and a
# sweep, headless Chromium (Debian's chromium) renders each, and
# png_check.py checks the screenshot is not blank. Exits 77 (skipped)
# where Chromium or python3 is not installed (scripts/deps.sh --test
# installs both).
#   tests/svg_render.sh KVPLAN OUT_DIR
set -eu
kvplan=$1
out=$2
here=$(cd "$(dirname "$0")" && pwd)
browser=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$browser" ] || ! command -v python3 >/dev/null 2>&1; then
  echo "svg_render: chromium or python3 is not installed: skipped"
  exit 77
fi
mkdir -p "$out"
"$kvplan" --model-path gpt-oss-120b --tp-size 2 --svg "$out/plan.svg" >/dev/null
"$kvplan" --model-path deepseek-v4-flash --gpu B200 --tp-size 8 \
  --svg "$out/dsv4.svg" >/dev/null
"$kvplan" sweep --gpu L4,H100-80GB,H200,B200 --tp-size 1,2 \
  --svg "$out/sweep.svg" >/dev/null
for name in plan dsv4 sweep; do
  # a profile of its own: no state shared with another run or a user's
  "$browser" --headless --no-sandbox --disable-gpu --hide-scrollbars \
    --user-data-dir="$out/profile-$name" --window-size=960,600 \
    --screenshot="$out/$name.png" "file://$out/$name.svg" >/dev/null 2>&1
  python3 "$here/png_check.py" "$out/$name.png" 6 0.05
done
echo "svg_render: 3 pictures rendered, none blank"
