#!/bin/sh
# Builds the web calculator into OUT: kvplan's C library (every room of
# src/, kvplan_json among them; the Hub client without its network)
# compiled to WebAssembly with emscripten against jansson built from
# Debian's source (web/jansson.sh), one kvplan.js with the module inside
# (SINGLE_FILE: it loads from file:// too), and the page. Open
# OUT/index.html in a browser; no server is needed.
#   web/build.sh OUT
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
out=$(mkdir -p "$1" && cd "$1" && pwd)
command -v emcc >/dev/null 2>&1 || {
  echo "web/build.sh: emcc not found (scripts/deps.sh --web installs emscripten)" >&2
  exit 77
}
# Debian's emscripten takes its JavaScript tools (acorn) from Debian's node
# modules, which a node installed otherwise does not search
export NODE_PATH="${NODE_PATH:+$NODE_PATH:}/usr/share/nodejs"
sh "$here/web/jansson.sh" "$out/deps"
cmake -DDATA_DIR="$here/data/models" -DOUTPUT="$out/catalog_data.c" \
  -P "$here/cmake/embed_catalog.cmake"
src="$(ls "$here"/src/*/*.c | grep -v -e /hub/http_curl.c) $out/catalog_data.c"
# shellcheck disable=SC2086
emcc -std=c11 -O2 -ffp-contract=off -fno-fast-math -D_POSIX_C_SOURCE=200809L \
  -Wall -Wextra -Werror -Wno-unused-command-line-argument -Wno-bitwise-instead-of-logical \
  -I"$here/include" -I"$here/src" -I"$out/deps/jansson/include" \
  $src "$out/deps/jansson/lib/libjansson.a" \
  -s SINGLE_FILE=1 -s ALLOW_MEMORY_GROWTH=1 -s MODULARIZE=1 \
  -s EXPORT_NAME=kvplanModule -s ENVIRONMENT=web,node \
  -s EXPORTED_FUNCTIONS=_kvplan_json,_kvplan_json_free,_malloc,_free \
  -s EXPORTED_RUNTIME_METHODS=UTF8ToString,stringToUTF8,lengthBytesUTF8,getValue \
  -o "$out/kvplan.js"
cp "$here/web/index.html" "$here/web/app.js" "$out/"
echo "web/build.sh: $out/index.html"
