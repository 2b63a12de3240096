#!/usr/bin/env bash
# bench/run_all.sh - build and run every mgpu benchmark on a GPU machine.
#
#   bench/run_all.sh                     logs in build/bench_logs/
#   OUT=/some/dir bench/run_all.sh       logs in $OUT/bench_*.log
#   BENCH_P2P_ARGS="--pairs all" BENCH_LAUNCH_ARGS="--device 1" bench/run_all.sh
#   BENCH_REDUCE_ARGS="--no-multi" BENCH_COLLECTIVES_ARGS="--sizes 1G --no-nccl" bench/run_all.sh
#   BENCHES="msm" BENCH_MSM_ARGS="--n 2^20 --split-n 0" bench/run_all.sh
#
# bench_startup: mgpu_init and the first operation beside the raw driver, fresh processes.
# bench_reduce (f32 sum vs CUB and a read-only kernel; multi-GPU reductions),
# bench_collectives (all-reduce, broadcast, scatter/gather vs NCCL) and bench_msm (BN254
# MSM on one GPU beside era-bellman-cuda run in the same call when .peers/era_bench exists,
# else the numbers quoted in issue 5; batch and split over all GPUs) get
# the defaults below; bench_blur (one GPU against NPP and the copy ceiling, then
# mgpu_blur_batch over 1..all GPUs, device-resident and from pinned host memory) runs with
# its own, each a few minutes at most on 4x H200; a benchmark that fails to
# build is reported as FAILED and the others still run.
#
# Each benchmark exits 0 (ran, targets met), 3 (ran, a target missed), 77 (skipped: no
# usable GPU), 1 (error or copied data did not match) or 2 (bad arguments). This script
# exits 0 when all ran and met their targets, 3 when a target was missed, 77 when all were
# skipped, and 1 when the build or any benchmark failed. The summary comes last.
set -u -o pipefail
export NCCL_NVLS_ENABLE=0              # NVLink multicast stays off on shared hosts
cd "$(dirname "$0")/.." || exit 1

logdir=${OUT:-build/bench_logs}
mkdir -p "$logdir"
benches=${BENCHES:-"p2p launch startup reduce collectives msm blur ipc"}   # BENCHES="reduce" runs a subset
: "${BENCH_REDUCE_ARGS=--n 2^20,2^24,2^28 --reps 21 --shard-bytes 1G --host-bytes 4G}"
: "${BENCH_COLLECTIVES_ARGS=--sizes 256M,1G --bcast-bytes 1G --sg-bytes 1G --reps 21}"
: "${BENCH_MSM_ARGS=--n 2^10,2^12,2^14,2^16,2^18,2^20,2^22,2^24 --batch-n 2^20 --split-n 2^24,2^26 --reps 9}"
# bench_msm's peer: era-bellman-cuda built outside the repository (see bench/msm.c) at .peers/era_bench
[ -x .peers/era_bench ] && BENCH_MSM_ARGS="$BENCH_MSM_ARGS --peer-cmd .peers/era_bench"

{
    echo "== $(date -u '+%Y-%m-%d %H:%M:%S UTC') on $(hostname)"
    if command -v nvidia-smi > /dev/null 2>&1; then
        nvidia-smi -L
        nvidia-smi --query-gpu=index,name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv
        nvidia-smi topo -m
    else
        echo "nvidia-smi not found"
    fi
} 2>&1 | tee "$logdir/bench_env.log"

echo "== make -k bench"
# Stale binaries must not stand in for ones that no longer build.
for b in $benches; do rm -f "build/bench_$b"; done
make -k -j"$(nproc)" bench 2>&1 | tee "$logdir/bench_build.log"
build_rc=${PIPESTATUS[0]}
[ "$build_rc" -ne 0 ] && echo "make -k bench FAILED (exit $build_rc): see $logdir/bench_build.log"

declare -A rc
for b in $benches; do
    var="BENCH_$(echo "$b" | tr '[:lower:]' '[:upper:]')_ARGS"
    args=${!var:-}
    echo
    if [ ! -x "build/bench_$b" ]; then
        echo "== build/bench_$b: not built (see $logdir/bench_build.log)" | tee "$logdir/bench_$b.log"
        rc[$b]=1
        continue
    fi
    echo "== build/bench_$b $args"
    # shellcheck disable=SC2086  # the arguments are meant to split
    ./build/bench_$b $args 2>&1 | tee "$logdir/bench_$b.log"
    rc[$b]=${PIPESTATUS[0]}
done

echo
echo "== summary (logs in $logdir)"
worst=0
all_skipped=1
for b in $benches; do
    case ${rc[$b]} in
    0) what="ran, targets met"; all_skipped=0 ;;
    3) what="ran, a target MISSED"; all_skipped=0; [ "$worst" -eq 0 ] && worst=3 ;;
    77) what="skipped" ;;
    *) what="FAILED (exit ${rc[$b]})"; all_skipped=0; worst=1 ;;
    esac
    echo "bench_$b: $what"
    grep -E 'summary:|: skipped:' "$logdir/bench_$b.log" | sed 's/^/    /'
done
[ "$build_rc" -ne 0 ] && { echo "make -k bench FAILED: see $logdir/bench_build.log"; worst=1; }
if [ "$worst" -eq 0 ] && [ "$all_skipped" -eq 1 ]; then exit 77; fi
exit "$worst"
