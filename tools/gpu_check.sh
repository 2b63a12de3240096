#!/usr/bin/env bash
# One call on a GPU machine: build, `make test`'s suite on every GPU and on one GPU, the
# operation suites (reduce, collectives, blur, msm, pipeline, pointers, interop), suite_faults on the
# real driver through the fault shim (tests/fault_shim), msm_file on the
# BN254 vectors (first GPU, then split over all GPUs), the examples, the sanitizer build,
# compute-sanitizer memcheck, racecheck and synccheck over every suite (SANITIZE="msm blur
# ..." picks some; "none" skips), initcheck over every suite (INITCHECK="..."), and the
# benchmarks.
# Logs in build/gpu_logs (and, where $OUT is set, packed into $OUT/gpu_logs.tgz).
# Run: bash tools/gpu_check.sh    (the lead's device command; prints a short table last)
# SKIP_ASAN=1 skips the ASan build, SKIP_BENCH=1 the benchmarks; BENCHES="msm blur" picks some.
set -u -o pipefail
export NCCL_NVLS_ENABLE=0
cd "$(dirname "$0")/.." || exit 1
out=build/gpu_logs
rm -rf "$out"; mkdir -p "$out"
nvidia-smi -L | tee "$out/gpus.txt"
fake="MGPU_FAKE_OLD_DRIVER=build/libfake_old_cuda.so"
if ! make -s -j"$(nproc)" build/mgpu_tests build/libfake_old_cuda.so examples build/suite_reduce build/suite_collectives build/suite_blur build/suite_msm build/suite_pipeline build/suite_pointers build/suite_faults build/libcuda_faultshim.so build/suite_interop \
        > "$out/build.log" 2>&1; then
    tail -40 "$out/build.log"; exit 1
fi
run() {  # name, command...
    local name=$1; shift
    local t0=$SECONDS
    env "$@" > "$out/$name.log" 2>&1
    local rc=$?
    printf '%-14s rc=%-3s %4ss  %s\n' "$name" "$rc" "$((SECONDS - t0))" "$(tail -1 "$out/$name.log")" | tee -a "$out/summary.txt"
}
run test_all_gpus $fake ./build/mgpu_tests
run test_one_gpu CUDA_VISIBLE_DEVICES=0 $fake ./build/mgpu_tests
run suite_reduce ./build/suite_reduce
run suite_coll ./build/suite_collectives
run suite_blur ./build/suite_blur
run suite_msm ./build/suite_msm
run suite_pipeline ./build/suite_pipeline
# Memory from the real driver's cuMemAlloc used through mgpu; ranges past its end refused.
run suite_pointers ./build/suite_pointers
# Fault injection on the real driver: build/libcuda_faultshim.so (tests/fault_shim) in front
# of libcuda.so.1 fails each driver call of suite_faults' programs in turn, on the first two
# GPUs (FAULT_GPUS; each run is an mgpu_init and mgpu_shutdown, so more GPUs only cost time).
# Not under compute-sanitizer: it is a driver of its own in front of the real one.
run suite_faults CUDA_VISIBLE_DEVICES="${FAULT_GPUS:-0,1}" MGPU_CUDA_PATH="$PWD/build/libcuda_faultshim.so" \
    timeout 1800 ./build/suite_faults
grep -a -e '^skip' -e '^FAIL' -e '^ok' "$out/suite_faults.log" | head -n 8
run pipeline_stages ./build/pipeline_stages
# Graphics interop: the suite's checks on the real driver, and examples/vulkan_blur, the real
# exporter (a Vulkan buffer, image and timeline semaphore blurred in place, checked against
# the CPU device, then docs/interop.md's measurements), where the Vulkan loader is (carry
# .gl). Built here it needs the Vulkan headers; VULKAN_BLUR= names a binary built elsewhere.
run suite_interop ./build/suite_interop
if ldconfig -p | grep -q libvulkan.so.1; then run vulkan_blur "${VULKAN_BLUR:-./build/vulkan_blur}" --bench
else echo "skip vulkan_blur: no libvulkan.so.1 (carry the loaders: .gl)" | tee -a "$out/summary.txt"; fi
run msm_file ./build/msm_file tests/vectors/bn254msm/*.bin
run msm_file_all ./build/msm_file --gpus all tests/vectors/bn254msm/*.bin
run examples make -s test-examples
[ -n "${SKIP_ASAN:-}" ] || run test_asan make -s test-asan
# compute-sanitizer: the tools in SANITIZE_TOOLS (default memcheck racecheck synccheck) over
# the suites named in SANITIZE, and initcheck over those in INITCHECK (both default "all":
# every suite, core included; "none" skips), with their small GPU cases (racecheck, the
# slowest per launch: the blur suite's sanitizer set). The runs go in parallel
# (SANITIZE_JOBS, default 8: they share the GPU); the core suite's deliberate driver errors
# (a huge allocation, a missing kernel, bad PTX) are not reported as API errors.
cs=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
suites() { case $1 in all) echo core reduce collectives blur msm pipeline pointers ;; none) ;; *) echo "$1" ;; esac; }
sanitize() {  # tool suite, in the background once fewer than SANITIZE_JOBS run
    local exe=./build/suite_$2 api=all quick=1
    [ "$2" = core ] && { exe=./build/mgpu_tests; api=no; }
    [ "$1" = racecheck ] && quick=2
    while [ "$(jobs -rp | wc -l)" -ge "${SANITIZE_JOBS:-8}" ]; do sleep 1; done
    run "cs_$1_$2" TEST_MSM_QUICK=1 TEST_BLUR_QUICK=$quick TEST_REDUCE_QUICK=1 timeout 900 \
        "$cs" --tool "$1" --report-api-errors $api --error-exitcode 9 $exe &
}
for s in $(suites "${SANITIZE:-all}"); do
    for tool in ${SANITIZE_TOOLS:-memcheck racecheck synccheck}; do sanitize "$tool" "$s"; done
done
for s in $(suites "${INITCHECK:-all}"); do sanitize initcheck "$s"; done
wait
if [ -z "${SKIP_BENCH:-}" ]; then
    OUT=$out BENCHES="${BENCHES:-p2p launch reduce collectives msm blur}" bash bench/run_all.sh > "$out/bench.log" 2>&1
    echo "bench rc=$?" | tee -a "$out/summary.txt"
fi
grep -E "FAIL" "$out"/test_*.log | head -20
[ -f "$out/bench.log" ] && sed -n '/== summary/,$p' "$out/bench.log"
cat "$out/summary.txt"
[ -n "${OUT:-}" ] && tar czf "$OUT/gpu_logs.tgz" -C build gpu_logs
