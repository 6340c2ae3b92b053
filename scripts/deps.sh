#!/bin/sh
# Installs what kvplan needs to build and test on Debian, if it is missing:
# a C compiler, CMake, pkg-config, jansson, libcurl (the Hub client;
# the build works without it, KVPLAN_WITH_CURL=OFF), libyaml (kvplan
# check; KVPLAN_WITH_YAML=OFF builds without it) and libmicrohttpd (kvplan
# serve; KVPLAN_WITH_SERVE=OFF); with --test also what the
# whole test suite uses beyond the build: Chromium and python3, for the
# test that renders --svg's pictures (tests/svg_render.sh; it is skipped
# without them), clang-format for the house's format (tests/house.sh) and
# clang for ThreadSanitizer (tests/tsan.sh). Run as root (CI and fresh
# containers are); otherwise it says what to install.
# --python: python3 and pip, for `pip install ./python`; --web: what the
# web calculator's build and browser test need.
#   scripts/deps.sh [--test | --python | --web]
set -eu
need=""
command -v cc >/dev/null 2>&1 || need="$need gcc libc6-dev"
command -v cmake >/dev/null 2>&1 || need="$need cmake"
command -v pkg-config >/dev/null 2>&1 || need="$need pkg-config"
[ -f /usr/include/jansson.h ] || need="$need libjansson-dev"
pkg-config --exists libcurl 2>/dev/null || need="$need libcurl4-openssl-dev"
pkg-config --exists yaml-0.1 2>/dev/null || need="$need libyaml-dev"
pkg-config --exists libmicrohttpd 2>/dev/null || need="$need libmicrohttpd-dev"
py_pip() {
  command -v python3 >/dev/null 2>&1 || need="$need python3"
  python3 -m pip --version >/dev/null 2>&1 || need="$need python3-pip"
}
if [ "${1:-}" = "--test" ]; then
  command -v chromium >/dev/null 2>&1 || need="$need chromium"
  command -v clang-format >/dev/null 2>&1 || need="$need clang-format"
  command -v clang >/dev/null 2>&1 || need="$need clang"
  py_pip
elif [ "${1:-}" = "--python" ]; then
  py_pip
elif [ "${1:-}" = "--web" ]; then
  # the web calculator (web/): emscripten, Debian's jansson source
  # (web/build.sh builds it for WebAssembly), Chromium and npm for its test
  command -v emcc >/dev/null 2>&1 || need="$need emscripten"
  command -v chromium >/dev/null 2>&1 || need="$need chromium"
  command -v npm >/dev/null 2>&1 || need="$need npm"
  command -v dpkg-source >/dev/null 2>&1 || need="$need dpkg-dev"
elif [ -n "${1:-}" ]; then
  echo "usage: scripts/deps.sh [--test | --python | --web]" >&2
  exit 2
fi
[ -n "$need" ] || exit 0
if [ "$(id -u)" -ne 0 ]; then
  echo "kvplan needs:$need (run: sudo apt-get install$need)" >&2
  exit 1
fi
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $need >/dev/null
