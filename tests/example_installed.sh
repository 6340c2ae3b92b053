#!/bin/sh
# Installs the build into a scratch prefix, then compiles and runs
# examples/plan.c against it with pkg-config, as a user would.
#   example_installed.sh BUILD_DIR SOURCE_DIR PREFIX CC [EXTRA_CFLAGS]
# EXTRA_CFLAGS carries the sanitizer flags of a sanitized build.
set -eu
build=$1 src=$2 prefix=$3 cc=$4 extra=${5:-}
rm -rf "$prefix"
cmake --install "$build" --prefix "$prefix" >/dev/null
libdir=$(ls -d "$prefix"/lib*/pkgconfig | head -n 1)
export PKG_CONFIG_PATH="$libdir"
# Link the static library: no rpath or LD_LIBRARY_PATH games needed.
"$cc" -std=c11 -Wall -Wextra -Werror $extra "$src/examples/plan.c" \
  $(pkg-config --cflags kvplan) "$(dirname "$libdir")/libkvplan.a" -lm \
  -o "$prefix/plan"
out=$("$prefix/plan")
echo "$out"
# 4 heads (8 // tp 2) * 256 * 32 layers * 2 bytes = 65536 bytes per token;
# 40000000000 // 65536 = 610351, // 16 * 16 = 610336
test "$out" = "DefaultPoolConfigurator: 65536 bytes per token, 610336 tokens"
# the shared library and its pkg-config link line work too
"$cc" -std=c11 $extra "$src/examples/plan.c" $(pkg-config --cflags --libs kvplan) \
  -Wl,-rpath,"$(dirname "$libdir")" -o "$prefix/plan-shared"
test "$("$prefix/plan-shared")" = "$out"
