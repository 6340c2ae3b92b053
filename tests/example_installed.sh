#!/bin/sh
# Installs the build into a scratch prefix, then compiles and runs
# examples/plan.c and examples/admit.c against it with pkg-config, as a
# user would.
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
# the admission controller: 1109079 full tokens (two H100-80GB, gpt-oss-120b)
# hold 34 requests of 30000 + 2000 tokens; the sliding window holds 257 each
"$cc" -std=c11 -Wall -Wextra -Werror $extra "$src/examples/admit.c" \
  $(pkg-config --cflags --libs kvplan) -Wl,-rpath,"$(dirname "$libdir")" \
  -o "$prefix/admit"
test "$("$prefix/admit")" = "34 requests started; the next is refused by full"
# the shared library and its pkg-config link line work too
"$cc" -std=c11 $extra "$src/examples/plan.c" $(pkg-config --cflags --libs kvplan) \
  -Wl,-rpath,"$(dirname "$libdir")" -o "$prefix/plan-shared"
test "$("$prefix/plan-shared")" = "$out"

# find_package(kvplan): a CMake project builds the example against the
# installed package, with the shared and with the static library
consumer=$prefix/consumer
mkdir -p "$consumer"
cat > "$consumer/CMakeLists.txt" <<CMAKE
cmake_minimum_required(VERSION 3.20)
project(consumer C)
find_package(kvplan 0.14 REQUIRED)
add_executable(plan_shared $src/examples/plan.c)
target_link_libraries(plan_shared PRIVATE kvplan::kvplan)
add_executable(plan_static $src/examples/plan.c)
target_link_libraries(plan_static PRIVATE kvplan::kvplan_static)
CMAKE
CC="$cc" CFLAGS="$extra" LDFLAGS="$extra" cmake -S "$consumer" \
  -B "$consumer/build" -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
cmake --build "$consumer/build" >/dev/null
test "$("$consumer/build/plan_shared")" = "$out"
test "$("$consumer/build/plan_static")" = "$out"

# a static link gets dlopen's library from the .pc (glibc < 2.34 needs it)
pkg-config --static --libs kvplan | grep -q -- '-ldl\>'

# the JSON schema of --json is installed
test -f "$prefix/share/kvplan/plan.schema.json"

# the command runs from a moved prefix: its catalog is built in
moved=$prefix.moved
rm -rf "$moved"
mv "$prefix" "$moved"
"$moved/bin/kvplan" --version | grep -q '^kvplan '
"$moved/bin/kvplan" --model-path qwen3-0.6b --json >/dev/null
mv "$moved" "$prefix"
echo "installed: pkg-config, find_package, schema and a moved prefix all work"
