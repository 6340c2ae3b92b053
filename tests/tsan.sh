#!/bin/sh
# test_threads under ThreadSanitizer: every file of the library (all of
# src/: what libkvplan.so holds, kvplan_json and its documents included)
# and the test, built with clang -fsanitize=thread (the Hub client without
# its network, http_none.c: the threads never fetch). Then, where libcurl
# is installed, test_hub the same way with the Hub client on libcurl: its
# server's threads, and 8 threads fetching one repo into one cache.
# Skipped (exit 0, said) without clang.
#   tests/tsan.sh BUILD_DIR   (a configured build: its catalog_data.c and
#                              its kvplan, for test_hub's processes)
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
build=$1
if ! command -v clang >/dev/null 2>&1; then
  echo "tsan: no clang here, skipped"
  exit 0
fi
out=$build/tsan
mkdir -p "$out"
clang -std=c11 -g -O1 -fsanitize=thread -D_POSIX_C_SOURCE=200809L \
  -I"$here/include" -I"$here/src" -I"$here/tests" $(pkg-config --cflags jansson) \
  $(ls "$here"/src/*/*.c | grep -v /hub/http_curl.c) "$build/catalog_data.c" \
  "$here/tests/test_threads.c" \
  $(pkg-config --libs jansson) -lm -ldl -lpthread -o "$out/test_threads"
# clang 14's TSan cannot map its shadow memory under a kernel's 32-bit
# mmap randomisation ("unexpected memory mapping"); run it again without
# address randomisation then, as LLVM advises.
if ! TSAN_OPTIONS=halt_on_error=1 "$out/test_threads" > "$out/log" 2>&1; then
  if grep -q 'unexpected memory mapping' "$out/log" && command -v setarch >/dev/null 2>&1; then
    echo "tsan: this kernel's mmap randomisation, run again under setarch -R"
    TSAN_OPTIONS=halt_on_error=1 setarch "$(uname -m)" -R "$out/test_threads"
    exit $?
  fi
  cat "$out/log"
  exit 1
fi
cat "$out/log"

# test_hub, with the Hub client on libcurl.
if ! pkg-config --exists libcurl 2>/dev/null; then
  echo "tsan: no libcurl here, test_hub not run"
  exit 0
fi
clang -std=c11 -g -O1 -fsanitize=thread -D_POSIX_C_SOURCE=200809L \
  -I"$here/include" -I"$here/src" -I"$here/tests" $(pkg-config --cflags jansson libcurl) \
  -DKVPLAN_TEST_CONFIG="\"$here/data/models/llama-3.1-8b-instruct/config.json\"" \
  $(ls "$here"/src/*/*.c | grep -v /hub/http_none.c) "$build/catalog_data.c" \
  "$here/tests/test_hub.c" \
  $(pkg-config --libs jansson) -lm -ldl -lpthread -o "$out/test_hub"
if ! TSAN_OPTIONS=halt_on_error=1 "$out/test_hub" "$build/kvplan" > "$out/hub.log" 2>&1; then
  if grep -q 'unexpected memory mapping' "$out/hub.log" && command -v setarch >/dev/null 2>&1; then
    TSAN_OPTIONS=halt_on_error=1 setarch "$(uname -m)" -R "$out/test_hub" "$build/kvplan"
    exit $?
  fi
  cat "$out/hub.log"
  exit 1
fi
tail -1 "$out/hub.log"
