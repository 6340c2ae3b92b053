#!/bin/sh
# io.sh KVPLAN: the command's I/O failures are said on standard error
# (issue 25, review R18/R19): a full disk, a closed standard output, and
# a config.json over the one cap (32 MiB) on standard input as in a file.
kvplan=$1
fail=0
check() { # NAME STATUS-WANTED STDERR-PATTERN STATUS STDERR
    if [ "$4" != "$2" ] || ! printf '%s' "$5" | grep -q -- "$3"; then
        echo "FAIL $1: exit $4, stderr '$5' (wanted $2, /$3/)"
        fail=1
    else
        echo "ok   $1"
    fi
}
if [ -w /dev/full ]; then
    err=$("$kvplan" 2>&1 >/dev/full); st=$?
    check "plan > /dev/full" 4 "cannot write the output: No space left" "$st" "$err"
    err=$("$kvplan" --json 2>&1 >/dev/full); st=$?
    check "--json > /dev/full" 4 "cannot write the output" "$st" "$err"
fi
err=$("$kvplan" sweep --tp 1,2 2>&1 >&-); st=$?
check "sweep >&-" 4 "cannot write the output" "$st" "$err"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# 33 MiB: a config.json's object followed by blanks
{ printf '{"architectures": ["LlamaForCausalLM"]}'; head -c 34603008 /dev/zero | tr '\0' ' '; } > "$tmp/big.json"
err=$("$kvplan" --model-path - < "$tmp/big.json" 2>&1 >/dev/null); st=$?
check "config on stdin over 32 MiB" 3 "too large\|at most 32 MiB" "$st" "$err"
err=$("$kvplan" --model-path "$tmp/big.json" 2>&1 >/dev/null); st=$?
check "config file over 32 MiB" 3 "at most 32 MiB" "$st" "$err"
exit $fail
