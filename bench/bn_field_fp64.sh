#!/bin/sh
# bench_bn_field's FP64 measurements on a GPU machine, as docs/msm_fp64.md reports them:
# the whole bench (integer baseline, FP64 products, hybrid additions, every output
# compared), then ncu's pipe utilization of the gathered-addition variants (BN_PROFILE=1:
# each variant once) and the SASS instruction mix of the kernels. Logs under $OUT.
#   bench/bn_field_fp64.sh [build/bench_bn_field]
B=${1:-build/bench_bn_field}
OUT=${OUT:-/tmp/bn_field_fp64}
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee "$OUT/gpu.txt"
"$B" 2048 > "$OUT/bench.txt" 2>&1; rc=$?
if command -v ncu > /dev/null; then
    M='regex:^(sm__inst_executed_pipe_[a-z0-9_]+|sm__pipe_[a-z0-9_]+_cycles_active)\.avg\.pct_of_peak_sustained_active$'
    BN_PROFILE=1 timeout 80 ncu --clock-control none -k regex:madd_gather_ --metrics "$M,smsp__issue_active.avg.pct_of_peak_sustained_active,smsp__warps_active.avg.per_cycle_active" \
        "$B" 64 > "$OUT/ncu.txt" 2>&1 ||
    BN_PROFILE=1 timeout 80 ncu --clock-control none -k regex:madd_gather_ --section ComputeWorkloadAnalysis "$B" 64 >> "$OUT/ncu.txt" 2>&1
else
    echo "no ncu on this machine" > "$OUT/ncu.txt"
fi
command -v cuobjdump > /dev/null && cuobjdump -sass "$B" | gzip > "$OUT/sass.txt.gz"
grep -E "bench_bn_field on|op=|WRONG|summary|products:" "$OUT/bench.txt"
grep -cE "madd_gather_" "$OUT/ncu.txt" | sed 's/^/ncu kernel lines: /'
exit $rc
