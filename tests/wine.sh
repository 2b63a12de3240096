#!/bin/sh
# wine.sh PROGRAM.exe [ARG...] - runs a program of the Windows build (mingw-w64) under wine,
# Debian's wine64 (.ci/run installs it), with the environment passed on and its standard error
# joined to its standard output, and exits with the program's status. The wine prefix is
# build/wine, made by the first run (the others wait for it under a lock); wine's own messages
# are off (WINEDEBUG=-all) and it installs neither Mono nor Gecko, so a run prints only the
# program's output.
# wine.sh --find: prints the wine command, or nothing (exit 1) if wine is not installed.
root=$(cd "$(dirname "$0")/.." && pwd) || exit 1
WINE_BIN=$(command -v wine64 2> /dev/null || { [ -x /usr/lib/wine/wine64 ] && echo /usr/lib/wine/wine64; } \
           || command -v wine 2> /dev/null)
if [ "${1:-}" = --find ]; then
    [ -n "$WINE_BIN" ] && echo "$WINE_BIN"
    [ -n "$WINE_BIN" ]
    exit
fi
[ -n "$WINE_BIN" ] || { echo "wine.sh: wine is not installed (Debian: apt-get install wine64)"; exit 127; }
WINEPREFIX=$root/build/wine
WINEDEBUG=-all
WINEDLLOVERRIDES="mscoree,mshtml="
export WINEPREFIX WINEDEBUG WINEDLLOVERRIDES
mkdir -p "$root/build" || exit 1
if [ ! -f "$WINEPREFIX/.made" ]; then
    flock "$root/build/wine.lock" sh -c '[ -f "$WINEPREFIX/.made" ] || { "$1" wineboot -i && touch "$WINEPREFIX/.made"; }' \
        sh "$WINE_BIN" > /dev/null 2>&1 < /dev/null
fi
# Windows writes text as CRLF: the output loses its CRs, so that the logs read as on Linux (the
# checks anchor lines with $); the program's standard error goes to the same file, so that the
# two stay in the order written; the program's status is kept. (A file, not a pipe: the wine
# server and services a run starts inherit its output and hold a pipe open until the server
# exits, seconds after the program: 2.7 s a run instead of 1.0 here.) A run that wine itself cut
# off ("wine client error: ... Connection reset by peer", its server gone: seen under load
# in make test), or that failed without a word (seen once in CI: readme_memory.exe, exit 1
# and no output; every program here says why it fails), runs once more, its output after
# the first's. A run that succeeded but printed wine's own crash report ("wine: Unhandled
# page fault ...": seen once in CI, the compile matrix's mingw C11 impl.exe, which only
# calls mgpu_init and mgpu_shutdown, under load; 72 runs of it here were silent) runs once
# more in place of the first: the first's output is dropped, as the program's status says
# it did not crash (a crash of the program itself is its status). The program's own
# failures are not retried.
raw=$(mktemp) || exit 1
out=$(mktemp) || exit 1
for try in 1 2; do
    "$WINE_BIN" "$@" > "$raw" 2>&1
    rc=$?
    tr -d '\r' < "$raw" > "$out"
    if [ "$try" = 1 ] && [ "${rc:-1}" = 0 ] && grep -q '^wine: Unhandled' "$out"; then continue; fi
    cat "$out"
    [ "${rc:-1}" != 0 ] && [ "$try" = 1 ] && { grep -q '^wine client error:' "$out" || [ ! -s "$out" ]; } || break
done
rm -f "$raw" "$out"
exit "${rc:-1}"
