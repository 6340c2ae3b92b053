#!/bin/sh
# Installs what kvplan needs to build and test on Debian, if it is missing:
# a C compiler, CMake, pkg-config and jansson. Run as root (CI and fresh
# containers are); otherwise it says what to install.
set -eu
need=""
command -v cc >/dev/null 2>&1 || need="$need gcc libc6-dev"
command -v cmake >/dev/null 2>&1 || need="$need cmake"
command -v pkg-config >/dev/null 2>&1 || need="$need pkg-config"
[ -f /usr/include/jansson.h ] || need="$need libjansson-dev"
[ -n "$need" ] || exit 0
if [ "$(id -u)" -ne 0 ]; then
  echo "kvplan needs:$need (run: sudo apt-get install$need)" >&2
  exit 1
fi
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $need >/dev/null
