#!/bin/sh
# doc_check.sh - README.md agrees with the code (`make test-docs`, part of `make check` and
# `make test`). One line per check, then a summary; exits 1 if any failed.
#   snippets   every ```c block of README.md whose first line is "/* NAME.c - ..." is
#              examples/NAME.c character for character, and every examples/readme_*.c is such a
#              block, once (test-examples builds and runs every example, so each snippet
#              compiles and runs)
#   channels   the blur channel rule: the lists in mgpu.h's GAUSSIAN BLUR comment, in README.md
#              and in the implementation's error message are the same
#   cpu        the default number of CPU devices: mgpu.h's ENVIRONMENT comment, mgpu_desc's
#              comment, README.md's table and the implementation say the same
cd "$(dirname "$0")/.." || exit 1
OUT=build/doc_check
rm -rf "$OUT" && mkdir -p "$OUT" || exit 1
fail=0

# ---- snippets
names=$(awk -v out="$OUT" '
    /^```c$/ { inb = 1; first = 1; name = ""; next }
    inb && /^```$/ { if (name != "") close(out "/" name); inb = 0; next }
    inb {
        if (first) {
            first = 0
            if (match($0, /^\/\* [A-Za-z0-9_]+\.c - /)) { name = substr($0, 4, RLENGTH - 6); print name }
        }
        if (name != "") print > (out "/" name)
    }' README.md docs/*.md)
nblocks=0
for n in $names; do
    nblocks=$((nblocks + 1))
    if [ "$(printf '%s\n' $names | grep -cx "$n")" -ne 1 ]; then
        echo "FAIL README.md has more than one block for $n"; fail=1; continue
    fi
    if [ ! -f "examples/$n" ]; then
        echo "FAIL README.md has a block for $n, but examples/$n does not exist"; fail=1; continue
    fi
    if ! diff -u "examples/$n" "$OUT/$n" > "$OUT/$n.diff"; then
        echo "FAIL README.md's $n block differs from examples/$n (- example, + README):"
        cat "$OUT/$n.diff"; fail=1
    fi
done
for f in examples/readme_*.c; do
    n=${f#examples/}
    printf '%s\n' $names | grep -qx "$n" || { echo "FAIL examples/$n is not in README.md (a \`\`\`c block opening with its first line)"; fail=1; }
done
[ $fail -eq 0 ] && echo "ok   README.md snippets: $nblocks blocks, each = its examples/ file"

# ---- channels
hdr=$(grep -o '(8-bit: [^;]*; f32: [^)]*)' mgpu.h | head -1)
u8=$(echo "$hdr" | sed 's/^(8-bit: \([^;]*\);.*/\1/')
f32=$(echo "$hdr" | sed 's/.*; f32: \([^)]*\))$/\1/')
impl=$(grep -o 'channels: use [^"]*"' mgpu.h | head -1 | sed 's/channels: use \(.*\)"/\1/')
readme=$(cat README.md docs/*.md | grep -o '8-bit: [^;]*; f32: [^)]*)' | head -1)
if [ -z "$hdr" ] || [ -z "$impl" ]; then
    echo "FAIL channels: the rule was not found in mgpu.h (\"(8-bit: ...; f32: ...)\" and \"channels: use ...\")"; fail=1
elif [ "$u8" != "$impl" ] || [ "$f32" != "$impl" ]; then
    echo "FAIL channels: mgpu.h documents 8-bit: $u8 / f32: $f32, the implementation accepts $impl"; fail=1
elif [ "$readme" != "${hdr#(}" ]; then
    echo "FAIL channels: README.md says \"${readme:-nothing}\", mgpu.h \"${hdr#(}\""; fail=1
else
    echo "ok   blur channels: 8-bit $u8, f32 $f32 in mgpu.h, README.md and the implementation"
fi

# ---- default CPU devices
h=$(grep -o 'MGPU_CPU_DEVICES=N *number of CPU devices (default [0-9]*' mgpu.h | grep -o '[0-9]*$')
d=$(grep -o 'int cpu_devices; */\* 0: MGPU_CPU_DEVICES or [0-9]*' mgpu.h | grep -o '[0-9]*$')
r=$(grep -o '`MGPU_CPU_DEVICES=N` | `cpu_devices` | number of CPU devices (default [0-9]*' README.md | grep -o '[0-9]*$')
c=$(grep -o 'ncpu = [0-9]*;' mgpu.h | head -1 | grep -o '[0-9]*')        # mgpu_init's default
if [ -n "$h" ] && [ "$h" = "$d" ] && [ "$h" = "$r" ] && [ "$h" = "$c" ]; then
    echo "ok   default CPU devices: $h in mgpu.h, README.md and the implementation"
else
    echo "FAIL default CPU devices: mgpu.h ENVIRONMENT '${h}', mgpu_desc '${d}', README.md '${r}', implementation '${c}'"; fail=1
fi
[ $fail -eq 0 ] && echo "README.md's $nblocks snippets are their examples/ files; blur channels and CPU devices agree"
exit $fail
