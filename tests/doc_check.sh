#!/bin/sh
# doc_check.sh - README.md and docs/*.md agree with the code (`make test-docs`, part of
# `make check` and `make test`). One line per check, then a summary; exits 1 if any failed.
#   snippets   every ```c block whose first line is "/* NAME.c - ..." is examples/NAME.c
#              character for character, and every examples/readme_*.c is such a block, once in
#              README.md and docs/*.md together (test-examples builds and runs every example,
#              so each snippet compiles and runs)
#   excerpts   every ```c block whose first line is "/* examples/NAME.c (excerpt) */" holds
#              lines of examples/NAME.c, in the file's order ("..." lines stand for the rest)
#   links      every relative link [..](path), [..](path#anchor) and [..](#anchor) names a file
#              that exists and, with an anchor, a heading of that file (GitHub's anchors)
#   api        every function mgpu.h declares (MGPU_API, before the implementation) is named
#              in docs/api.md's table of functions by group
#   channels   the blur channel rule: the lists in mgpu.h's GAUSSIAN BLUR comment, in the docs
#              and in the implementation's error message are the same
#   cpu        the default number of CPU devices: mgpu.h's ENVIRONMENT comment, mgpu_desc's
#              comment, README.md's table and the implementation say the same
cd "$(dirname "$0")/.." || exit 1
OUT=build/doc_check
rm -rf "$OUT" && mkdir -p "$OUT" || exit 1
DOCS="README.md $(ls docs/*.md 2> /dev/null)"
fail=0

# ---- snippets and excerpts: every ```c block is cut out into $OUT
# full blocks as $OUT/NAME (their names listed in $OUT/names), excerpts as $OUT/excerpt.K
# (the example's name on their first line, then the block without its opening comment)
awk -v out="$OUT" '
    FNR == 1 { inb = 0 }
    /^```c$/ { inb = 1; first = 1; name = ""; ex = ""; next }
    inb && /^```$/ { if (name != "") close(out "/" name); if (ex != "") close(ex); inb = 0; next }
    inb {
        if (first) {
            first = 0
            if (match($0, /^\/\* [A-Za-z0-9_]+\.c - /)) {
                name = substr($0, 4, RLENGTH - 6); print name " " FILENAME > (out "/names")
            } else if ($0 ~ /^\/\* examples\/[A-Za-z0-9_]+\.c \(excerpt\) \*\/$/) {
                nex++; ex = out "/excerpt." nex
                print substr($0, 4, length($0) - 16) " " FILENAME ":" FNR > ex
                next
            }
        }
        if (name != "") print > (out "/" name)
        else if (ex != "") print > ex
    }' $DOCS
touch "$OUT/names"
names=$(cut -d' ' -f1 "$OUT/names")
nblocks=0
for n in $names; do
    nblocks=$((nblocks + 1))
    if [ "$(grep -c "^$n " "$OUT/names")" -ne 1 ]; then
        echo "FAIL more than one block for $n: $(grep "^$n " "$OUT/names" | cut -d' ' -f2 | tr '\n' ' ')"; fail=1; continue
    fi
    where=$(grep "^$n " "$OUT/names" | cut -d' ' -f2)
    if [ ! -f "examples/$n" ]; then
        echo "FAIL $where has a block for $n, but examples/$n does not exist"; fail=1; continue
    fi
    if ! diff -u "examples/$n" "$OUT/$n" > "$OUT/$n.diff"; then
        echo "FAIL $where's $n block differs from examples/$n (- example, + $where):"
        cat "$OUT/$n.diff"; fail=1
    fi
done
for f in examples/readme_*.c; do
    n=${f#examples/}
    grep -q "^$n " "$OUT/names" || { echo "FAIL examples/$n is in neither README.md nor docs/*.md (a \`\`\`c block opening with its first line)"; fail=1; }
done
[ $fail -eq 0 ] && echo "ok   snippets: $nblocks blocks in README.md and docs/, each = its examples/ file"

nex=0; exfail=0
for e in $(ls "$OUT"/excerpt.* 2> /dev/null); do
    nex=$((nex + 1))
    src=$(head -1 "$e" | cut -d' ' -f1); where=$(head -1 "$e" | cut -d' ' -f2)
    if [ ! -f "$src" ]; then echo "FAIL $where: an excerpt of $src, which does not exist"; exfail=1; continue; fi
    bad=$(tail -n +2 "$e" | awk -v src="$src" '
        BEGIN { while ((getline l < src) > 0) f[++n] = l; at = 1 }
        /^ *\.\.\. *$/ { next }
        { while (at <= n && f[at] != $0) at++
          if (at > n) { print "line \"" $0 "\" is not in " src " (after the lines before it)"; exit }
          at++ }')
    [ -n "$bad" ] && { echo "FAIL $where: excerpt of $src: $bad"; exfail=1; }
done
[ $exfail -eq 0 ] && echo "ok   excerpts: $nex blocks, each in order in its examples/ file"
[ $exfail -ne 0 ] && fail=1

# ---- links
# the anchors of a markdown file: its headings outside code blocks, as GitHub writes them
anchors() {
    awk '/^```/ { code = !code; next }
         !code && /^#+ / { h = $0; sub(/^#+ +/, "", h); h = tolower(h); gsub(/[^a-z0-9 _-]/, "", h); gsub(/ /, "-", h)
                           if (seen[h]++) h = h "-" (seen[h] - 1); print h }' "$1"
}
nlinks=0; lfail=0
for f in $DOCS; do
    dir=$(dirname "$f")
    for l in $(awk '/^```/ { code = !code; next } !code { s = $0; gsub(/`[^`]*`/, "", s)
                   while (match(s, /\]\([^) ]+\)/)) { print substr(s, RSTART + 2, RLENGTH - 3); s = substr(s, RSTART + RLENGTH) } }' "$f"); do
        case "$l" in http://*|https://*|mailto:*) continue ;; esac
        nlinks=$((nlinks + 1))
        path=${l%%#*}; anchor=; case "$l" in *#*) anchor=${l#*#} ;; esac
        if [ -z "$path" ]; then target=$f; else target=$dir/$path; fi
        if [ ! -e "$target" ]; then echo "FAIL $f: link ($l): $target does not exist"; lfail=1; continue; fi
        if [ -n "$anchor" ] && ! anchors "$target" | grep -qx "$anchor"; then
            echo "FAIL $f: link ($l): $target has no heading with the anchor #$anchor"; lfail=1
        fi
    done
done
[ $lfail -eq 0 ] && echo "ok   links: $nlinks relative links in README.md and docs/, every file and anchor there"
[ $lfail -ne 0 ] && fail=1

# ---- api: the public functions against docs/api.md's table
awk '/^#if defined\(MGPU_IMPLEMENTATION\)/ { exit } /^MGPU_API / { print }' mgpu.h |
    sed 's/(.*//; s/.*[ *]//' | sort -u > "$OUT/api_declared"
grep '^|' docs/api.md 2> /dev/null | grep -o '`mgpu_[a-z0-9_]*`' | tr -d '`' | sort -u > "$OUT/api_table"
missing=$(comm -23 "$OUT/api_declared" "$OUT/api_table" | tr '\n' ' ')
unknown=$(comm -13 "$OUT/api_declared" "$OUT/api_table" | tr '\n' ' ')
ndecl=$(wc -l < "$OUT/api_declared")
if [ "$ndecl" -lt 50 ]; then
    echo "FAIL api: only $ndecl declarations found in mgpu.h (the check's pattern no longer matches)"; fail=1
elif [ -n "$missing" ] || [ -n "$unknown" ]; then
    [ -n "$missing" ] && echo "FAIL api: declared in mgpu.h but not in docs/api.md's table: $missing"
    [ -n "$unknown" ] && echo "FAIL api: in docs/api.md's table but not declared in mgpu.h: $unknown"
    fail=1
else
    echo "ok   api: the $ndecl functions mgpu.h declares are each in docs/api.md's table"
fi

# ---- channels
hdr=$(grep -o '(8-bit: [^;]*; f32: [^)]*)' mgpu.h | head -1)
u8=$(echo "$hdr" | sed 's/^(8-bit: \([^;]*\);.*/\1/')
f32=$(echo "$hdr" | sed 's/.*; f32: \([^)]*\))$/\1/')
impl=$(grep -o 'channels: use [^"]*"' mgpu.h | head -1 | sed 's/channels: use \(.*\)"/\1/')
docs=$(cat $DOCS | grep -o '8-bit: [^;]*; f32: [^)]*)' | sort -u)
if [ -z "$hdr" ] || [ -z "$impl" ]; then
    echo "FAIL channels: the rule was not found in mgpu.h (\"(8-bit: ...; f32: ...)\" and \"channels: use ...\")"; fail=1
elif [ "$u8" != "$impl" ] || [ "$f32" != "$impl" ]; then
    echo "FAIL channels: mgpu.h documents 8-bit: $u8 / f32: $f32, the implementation accepts $impl"; fail=1
elif [ "$docs" != "${hdr#(}" ]; then
    echo "FAIL channels: the docs say \"${docs:-nothing}\", mgpu.h \"${hdr#(}\""; fail=1
else
    echo "ok   blur channels: 8-bit $u8, f32 $f32 in mgpu.h, the docs and the implementation"
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
[ $fail -eq 0 ] && echo "README.md and docs/: $nblocks snippets, $nex excerpts, $nlinks links, the API table, blur channels and CPU devices agree with the code"
exit $fail
