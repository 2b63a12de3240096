#!/bin/sh
# vendor_check.sh - mgpu as a user vendors it (`make test-vendor`): mgpu.h and kernels_fatbin.h
# copied into an empty folder, a ten-line program next to them, built with one plain cc line
# (no -I, no -lcuda, no CUDA toolkit), run, and the folder removed.
cd "$(dirname "$0")/.." || exit 1
for f in mgpu.h kernels_fatbin.h; do
    if [ ! -f "$f" ]; then
        echo "FAIL vendor check: $f is missing (kernels_fatbin.h comes from \`make kernels\`)" >&2
        exit 1
    fi
done

dir=$(mktemp -d "${TMPDIR:-/tmp}/mgpu-vendor.XXXXXX") || exit 1
trap 'rm -rf "$dir"' EXIT
trap 'exit 1' HUP INT TERM
cp mgpu.h kernels_fatbin.h "$dir"/ || exit 1

cat >"$dir/prog.c" <<'PROG'
#define MGPU_IMPLEMENTATION
#include "mgpu.h"
#include <stdio.h>
int main(void) {
    mgpu_device_info info;
    if (mgpu_init(NULL) != MGPU_SUCCESS) { fprintf(stderr, "%s\n", mgpu_last_error()); return 1; }
    if (mgpu_device_info_get(0, &info) != MGPU_SUCCESS) { fprintf(stderr, "%s\n", mgpu_last_error()); return 1; }
    printf("%d device(s); device 0: %s\n", mgpu_device_count(), info.name);
    return mgpu_shutdown() == MGPU_SUCCESS ? 0 : 1;
}
PROG

if ! (cd "$dir" && cc -std=c99 -O2 prog.c -o prog -ldl -lpthread); then
    echo "FAIL vendor check: cc -std=c99 -O2 prog.c -o prog -ldl -lpthread failed" >&2
    exit 1
fi
(cd "$dir" && ./prog)
status=$?
if [ "$status" -ne 0 ]; then
    echo "FAIL vendor check: the program exited with status $status" >&2
    exit 1
fi
echo "ok vendor check"
