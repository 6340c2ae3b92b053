#!/bin/sh
# Every binary the build made (the build folder and its lib/): no RUNPATH or
# RPATH with an empty entry (an empty entry is the current directory, so a
# run in an untrusted folder would load a library planted there), and
# neither the command nor the library needs libcurl at start (it is loaded
# when the Hub is asked: linked, its 30-odd libraries cost ~5 ms of every
# run). Skipped (77) without readelf.
#   tests/elf.sh BUILD_DIR
set -eu
build=$1
command -v readelf >/dev/null 2>&1 || { echo "elf: no readelf here"; exit 77; }
checked=0 bad=0
for f in "$build"/* "$build"/lib/*; do
  [ -f "$f" ] && [ ! -L "$f" ] || continue
  head -c 4 "$f" 2>/dev/null | grep -q 'ELF' || continue
  checked=$((checked + 1))
  paths=$(readelf -d "$f" | sed -n 's/.*(R[UN]*PATH).*\[\(.*\)\]$/\1/p')
  for p in $paths; do
    case ":$p:" in
      *::*) echo "$f: RUNPATH [$p] has an empty entry (the current directory)"
            bad=1 ;;
    esac
  done
  case "$(basename "$f")" in
    kvplan | libkvplan.so*)
      if readelf -d "$f" | grep -q 'NEEDED.*libcurl'; then
        echo "$f needs libcurl at start; it must be loaded only when the Hub is asked"
        bad=1
      fi ;;
  esac
done
[ "$checked" -gt 0 ] || { echo "elf: no binary in $build"; exit 1; }
[ "$bad" -eq 0 ] || exit 1
echo "elf: $checked binaries, no empty RUNPATH entry; kvplan and libkvplan.so load libcurl only to fetch"
