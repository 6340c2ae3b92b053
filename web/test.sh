#!/bin/sh
# The web calculator's build and browser test (CTest's web_calculator):
# web/build.sh into OUT, playwright-core from npm into OUT/node (once),
# then web/test.mjs in headless Chromium. Skipped (77) where emscripten,
# Chromium or npm is missing (scripts/deps.sh --web installs them; CI does).
#   web/test.sh OUT KVPLAN_BINARY
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
out=$(mkdir -p "$1" && cd "$1" && pwd)
for tool in emcc chromium node npm; do
  command -v "$tool" >/dev/null 2>&1 || {
    echo "skipped: $tool is not installed (scripts/deps.sh --web)"; exit 77; }
done
sh "$here/web/build.sh" "$out" || exit $?
if [ ! -d "$out/node/node_modules/playwright-core" ]; then
  mkdir -p "$out/node"
  (cd "$out/node" && npm install --silent --no-audit --no-fund --no-save \
     playwright-core@1 >/dev/null)
fi
cp "$here/web/test.mjs" "$out/node/test.mjs"
node "$out/node/test.mjs" "$out" "$2" "$here"
