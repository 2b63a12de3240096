#!/bin/sh
# fake_run.sh SUITE [VAR=value...] [ran:PREFIX=N...] [ARGUMENT...] - one run of `make test-fake`:
# build/suite_SUITE on the 2 fake GPUs of build/libfake_cuda.so (FAKE_CUDA_DEVICES=2,
# FAKE_CUDA_REPORT=1), with the variables set and the arguments given. It must pass, show
# that it ran on the 2 fake GPUs (its 2-GPU header, or its [cuda] all-reduce line), and for
# each ran:PREFIX=N have launched exactly N different kernels whose names start with PREFIX.
# Log: build/suite_SUITE.fake[.nop2p][.FIRST_ARGUMENT][.shim].log. Prints one line (ok or FAIL, with the log's end).
# fake_run.sh --windows SUITE ...: the same with the Windows build, build/win/suite_SUITE.exe
# on build/win/fake_cuda.dll under wine (tests/wine.sh); logs in build/win/.
cd "$(dirname "$0")/.." || exit 1
dir=build run= lib=libfake_cuda.so exe= tag=
if [ "$1" = --windows ]; then
    dir=build/win run="sh tests/wine.sh" lib=fake_cuda.dll exe=.exe tag=win_
    shift
fi
s=$1
shift
vars= args= ran=
for w in "$@"; do
    case $w in
    ran:*) ran="$ran ${w#ran:}" ;;
    *=*) vars="$vars $w" ;;
    *) args="$args $w" ;;
    esac
done
log=$dir/suite_$s.fake
case $vars in *P2P=0*) log=$log.nop2p ;; esac
set -- $args
[ $# -gt 0 ] && log=$log.$1        # runs of one suite over different sections: a log each
log=$log.log
name="${tag}fake_$s$vars$args"
case $vars in *FAULTSHIM_REAL=*)  # through the fault shim (Makefile's run/faults_shim): its own log, a short name
    log=${log%.log}.shim.log name="${tag}fake_$s through the fault shim:$args" ;;
esac
start=$(date +%s)
fail() {
    printf 'FAIL %s: %s (log: %s)\n' "$name" "$1" "$log"
    grep -a '^FAIL' "$log" | head -n 20 | sed 's/^/    /'
    echo "    -- the log's last lines:"
    tail -n 30 "$log" | sed 's/^/    /'
    exit 1
}
# shellcheck disable=SC2086  # the lists are meant to split
env MGPU_CUDA_PATH="$(pwd)/$dir/$lib" FAKE_CUDA_DEVICES=2 FAKE_CUDA_REPORT=1 $vars \
    $run ./$dir/suite_"$s"$exe $args > "$log" 2>&1 || fail "exit $?"
grep -q -e '^test_msm: 2 GPU(s),' -e '^test_blur: 2 device(s), default backend cuda' -e '^-- 1 CPU device(s), 2 GPU(s)$' \
    -e '^ok   allreduce\[cuda\]$' "$log" || fail "did not run on the 2 fake GPUs"
kernels=
for r in $ran; do
    n=$(grep -ac "^fake libcuda: ran ${r%=*}" "$log")
    [ "$n" = "${r##*=}" ] || fail "launched $n kernels named ${r%=*}*, expected ${r##*=}"
    kernels="$kernels, $n ${r%=*}*"
done
printf 'ok   %-30s  %s%s  (%ss)\n' "$name" "$(grep -a 'passed, .* failed, .* skipped$' "$log" | tail -n 1)" \
    "${kernels:+ (kernels:${kernels#,})}" "$(($(date +%s) - start))"
