#!/bin/sh
# compile_matrix.sh - mgpu.h built every way a user may build it (`make test-matrix`).
#
# gcc and clang as C99 and C11, g++ and clang++ as C++17, all with -Wall -Wextra -pedantic
# -Werror (C adds -Wstrict-prototypes -Wshadow; impl and msvc-paths at -O2, the others at
# -O0); each program is linked with -ldl -lpthread
# and run (it calls mgpu_init(NULL) and mgpu_shutdown, and is silent on success):
#   impl          the implementation in one file                 tests/compile/impl.c
#   static-pair   two MGPU_STATIC copies in one program          tests/compile/static_a.c static_b.c
#   header-twice  mgpu.h through a user header, included twice  tests/compile/twice.c user.h
#   cuda.h        impl.c with -DMGPU_USE_CUDA_H against the real cuda.h (C11 and C++17 only:
#                 cuda.h itself uses anonymous unions, which -pedantic rejects in C99)
# mingw (x86_64-w64-mingw32-gcc, C99 and C11) and mingw++ (x86_64-w64-mingw32-g++, C++17) build
# the same programs for Windows, linked with no library at all, and run them under wine
# (tests/wine.sh), plus impl.c once more with -DMGPU__TEST_MSVC_PATHS: the code paths MSVC
# takes (Interlocked atomics, _umul128) built by mingw-w64 (msvc-paths).
# One line per configuration; a compiler that is not installed is skipped with a line.
# Binaries and logs go to build/matrix/. Exits 1 if any configuration failed.
# Arguments, optional: the compilers and standards to build, e.g. `gcc-c99 clang++-c++17`
# (`make test` runs each on its own, in parallel); none: all nine.
cd "$(dirname "$0")/.." || exit 1

OUT=build/matrix
mkdir -p "$OUT" || exit 1
ALL="gcc-c99 gcc-c11 clang-c99 clang-c11 g++-c++17 clang++-c++17 mingw-c99 mingw-c11 mingw++-c++17"
CONFS=$ALL
[ $# -gt 0 ] && CONFS="$*"
# impl and msvc-paths at -O2 (gcc finds maybe-uninitialized values only when optimizing, as
# build/mgpu.o does), the others at -O0 (what they check does not depend on optimizing, and gcc
# checks some format truncations only at -O0; a third of the time)
WARN="-Wall -Wextra -pedantic -Werror"
CWARN="$WARN -Wstrict-prototypes -Wshadow"
SRC=tests/compile
RUN=
if command -v timeout >/dev/null 2>&1; then RUN="timeout 120"; fi

CUDA_INCLUDE=
if [ -n "${CUDA_HOME:-}" ] && [ -f "$CUDA_HOME/include/cuda.h" ]; then
    CUDA_INCLUDE=$CUDA_HOME/include
elif [ -f /usr/local/cuda/include/cuda.h ]; then
    CUDA_INCLUDE=/usr/local/cuda/include
fi

failed=0
passed=0

# report NAME LOG STATUS: prints ok or FAIL (with the start of the log).
report() {
    if [ "$3" -eq 0 ]; then
        echo "ok $1"
        passed=$((passed + 1))
    else
        echo "FAIL $1 (log: $2)"
        sed -n '1,40p' "$2" | sed 's/^/    /'
        failed=$((failed + 1))
    fi
}

# build NAME TAG COMPILER LANGFLAGS EXTRAFLAGS SOURCES...: compile, link, run.
build() {
    name=$1 btag=$2 bcc=$3 lang=$4 extra=$5
    shift 5
    bin=$OUT/$btag
    log=$OUT/$btag.log
    # shellcheck disable=SC2086  # the flag lists are meant to split
    if ! $bcc $lang $extra -I. -o "$bin" "$@" -x none $LIBS >"$log" 2>&1; then
        report "$name" "$log" 1
        return
    fi
    $RUN $EXEC "./$bin" >>"$log" 2>&1
    status=$?
    if [ "$status" -ne 0 ]; then
        echo "(the program exited with status $status)" >>"$log"
        report "$name (run)" "$log" 1
        return
    fi
    if [ -s "$log" ]; then        # success must be silent: warnings or output are failures
        report "$name (output on success)" "$log" 1
        return
    fi
    report "$name" "$log" 0
}

# Each configuration: compiler, a label, the flags that pick the language.
for conf in $CONFS; do
    cc=${conf%-*} std=${conf##*-}
    case " $ALL " in
    *" $conf "*) ;;
    *) echo "FAIL $conf: not a configuration of the matrix"; failed=$((failed + 1)); continue ;;
    esac
    label=$cc LIBS="-ldl -lpthread" EXEC= EXE=
    case $cc in
    mingw)   cc=x86_64-w64-mingw32-gcc ;;
    mingw++) cc=x86_64-w64-mingw32-g++ ;;
    esac
    if ! command -v "$cc" >/dev/null 2>&1; then
        echo "skip $label $std: $cc is not installed"
        continue
    fi
    if [ "$label" != "$cc" ]; then     # Windows: no library to link; the programs run under wine
        LIBS="-static" EXEC="sh tests/wine.sh" EXE=.exe
        if ! sh tests/wine.sh --find >/dev/null; then
            echo "skip $label $std: wine is not installed (Debian: wine64)"
            continue
        fi
    fi
    case $std in
    c++*) lang="-std=$std -x c++ $WARN" ;;
    *)    lang="-std=$std -x c $CWARN" ;;
    esac
    tag=$(echo "$label-$std" | tr '+' 'x')
    rm -f "$OUT/$tag"-*

    build "$label $std" "$tag-impl$EXE" "$cc" "$lang" -O2 $SRC/impl.c
    build "$label $std static-pair" "$tag-static$EXE" "$cc" "$lang" -O0 $SRC/static_a.c $SRC/static_b.c
    build "$label $std header-twice" "$tag-twice$EXE" "$cc" "$lang" -O0 $SRC/twice.c
    [ -n "$EXE" ] && build "$label $std msvc-paths" "$tag-msvc$EXE" "$cc" "$lang" "-O2 -DMGPU__TEST_MSVC_PATHS" $SRC/impl.c
    if [ -z "$CUDA_INCLUDE" ]; then
        echo "skip $label $std cuda.h: no cuda.h in \$CUDA_HOME/include or /usr/local/cuda/include"
    elif [ "$std" = c99 ]; then
        : # cuda.h is not C99 -pedantic clean (anonymous unions); checked as C11 and C++17
    else
        build "$label $std cuda.h" "$tag-cudah$EXE" "$cc" "$lang" "-O0 -DMGPU_USE_CUDA_H -I$CUDA_INCLUDE" $SRC/impl.c
    fi
done

echo "compile matrix${1:+ $*}: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
