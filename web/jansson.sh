#!/bin/sh
# Builds jansson for WebAssembly from Debian's own source package (no
# vendored copy): apt-get source (deb-src lists kept in OUT, so no root is
# needed), then jansson's CMake build under emcmake. OUT/jansson/ gets
# include/ and lib/libjansson.a. Done once; a second run reuses it.
#   web/jansson.sh OUT
set -eu
out=$(mkdir -p "$1" && cd "$1" && pwd)
[ -f "$out/jansson/lib/libjansson.a" ] && exit 0
apt=$out/apt
mkdir -p "$apt/lists/partial" "$apt/cache/archives/partial" "$out/jansson-src"
codename=$(. /etc/os-release && echo "$VERSION_CODENAME")
cat > "$apt/sources.list" <<SRC
deb-src http://deb.debian.org/debian $codename main
SRC
opts="-o Dir::Etc::sourcelist=$apt/sources.list -o Dir::Etc::sourceparts=-
      -o Dir::State::Lists=$apt/lists -o Dir::Cache=$apt/cache
      -o APT::Sandbox::User=$(id -un) -o Debug::NoDropPrivs=1"
# shellcheck disable=SC2086
apt-get $opts -qq update
cd "$out/jansson-src"
# shellcheck disable=SC2086
apt-get $opts -qq source jansson >/dev/null 2>&1 ||
  apt-get $opts source jansson
src=$(find "$out/jansson-src" -mindepth 1 -maxdepth 1 -type d -name 'jansson-*' | head -n 1)
[ -n "$src" ] || { echo "web/jansson.sh: no jansson source unpacked" >&2; exit 1; }
emcmake cmake -S "$src" -B "$out/jansson-build" -DCMAKE_BUILD_TYPE=Release \
  -DJANSSON_BUILD_DOCS=OFF -DJANSSON_WITHOUT_TESTS=ON -DJANSSON_EXAMPLES=OFF \
  -DJANSSON_BUILD_SHARED_LIBS=OFF -DCMAKE_INSTALL_PREFIX="$out/jansson" >/dev/null
cmake --build "$out/jansson-build" -j2 >/dev/null
cmake --install "$out/jansson-build" >/dev/null
test -f "$out/jansson/lib/libjansson.a"
