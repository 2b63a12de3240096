#!/bin/sh
# wine.sh PROGRAM.exe [ARG...] - runs a program of the Windows build (mingw-w64) under wine,
# Debian's wine64 (.ci/run installs it), with the environment passed on, and exits with the
# program's status. The wine prefix is build/wine, made by the first run (the others wait for
# it under a lock); wine's own messages are off (WINEDEBUG=-all) and it installs neither Mono
# nor Gecko, so a run prints only the program's output.
# wine.sh --find: prints the wine command, or nothing (exit 1) if wine is not installed.
cd "$(dirname "$0")/.." || exit 1
WINE_BIN=$(command -v wine64 2> /dev/null || { [ -x /usr/lib/wine/wine64 ] && echo /usr/lib/wine/wine64; } \
           || command -v wine 2> /dev/null)
if [ "${1:-}" = --find ]; then
    [ -n "$WINE_BIN" ] && echo "$WINE_BIN"
    [ -n "$WINE_BIN" ]
    exit
fi
[ -n "$WINE_BIN" ] || { echo "wine.sh: wine is not installed (Debian: apt-get install wine64)"; exit 127; }
WINEPREFIX=$(pwd)/build/wine
WINEDEBUG=-all
WINEDLLOVERRIDES="mscoree,mshtml="
export WINEPREFIX WINEDEBUG WINEDLLOVERRIDES
mkdir -p build || exit 1
if [ ! -f "$WINEPREFIX/.made" ]; then
    flock build/wine.lock sh -c '[ -f "$WINEPREFIX/.made" ] || { "$1" wineboot -i && touch "$WINEPREFIX/.made"; }' \
        sh "$WINE_BIN" > /dev/null 2>&1 < /dev/null
fi
exec "$WINE_BIN" "$@"
