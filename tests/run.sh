#!/bin/sh
# run.sh NAME LOG [VAR=value...] COMMAND [ARG...] - one run of `make test` / `make check`:
# the command (with the variables set) writes its output to LOG, and this prints one line,
#     ok   NAME  <the log's last line>  (seconds)
# or, if it exits non-zero, "FAIL NAME (exit N after Ns, log: LOG)" with the log's FAIL lines
# and its last 30 lines. Exits with the command's status.
name=$1 log=$2
shift 2
start=$(date +%s)
env "$@" > "$log" 2>&1
rc=$?
t=$(($(date +%s) - start))
if [ "$rc" -eq 0 ]; then
    printf 'ok   %-30s  %s  (%ss)\n' "$name" "$(tail -n 1 "$log")" "$t"
else
    printf 'FAIL %s (exit %s after %ss, log: %s)\n' "$name" "$rc" "$t" "$log"
    grep -a '^FAIL' "$log" | head -n 20 | sed 's/^/    /'
    echo "    -- the log's last lines:"
    tail -n 30 "$log" | sed 's/^/    /'
fi
exit "$rc"
