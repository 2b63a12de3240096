#!/bin/sh
# mpi_run.sh - the MPI examples (examples/mpi_*.c) under a real mpirun, a run of `make test`:
#   mpi_allreduce, ipc and mpi paths, 2 and 4 ranks, CPU devices (MGPU_DEVICE=cpu)
#   mpi_msm 2^12, 2 and 4 ranks, CPU devices
#   the same on the fake GPUs of build/libfake_cuda.so (2 per machine; each rank takes one
#   by its local rank, so 4 ranks share them two by two): mpi_allreduce ipc 2 and 4 ranks,
#   mpi 2 ranks; mpi_msm 2^10, 2 ranks
# mpirun gets --oversubscribe (CI has 2 cores) and, as root, --allow-run-as-root. Each run
# is killed after 300 s, so a hung rank fails the run instead of hanging make. Output:
# build/mpi.log; prints one line, ok or FAIL (with the log's end). Without mpicc or mpirun
# it prints a skip line and exits 0 (.ci/run installs Debian's libopenmpi-dev openmpi-bin).
cd "$(dirname "$0")/.." || exit 1
MPIRUN=${MPIRUN:-mpirun}
log=build/mpi.log
if ! command -v "${MPICC:-mpicc}" > /dev/null 2>&1 || ! command -v "$MPIRUN" > /dev/null 2>&1; then
    echo "skip mpi: mpicc or mpirun not found (Debian: apt-get install libopenmpi-dev openmpi-bin)"
    exit 0
fi
flags=--oversubscribe
[ "$(id -u)" -eq 0 ] && flags="$flags --allow-run-as-root"
fake="MGPU_CUDA_PATH=$(pwd)/build/libfake_cuda.so FAKE_CUDA_DEVICES=2"
start=$(date +%s)
: > "$log"
n=0
# run ENV NP PROGRAM ARGS...: one mpirun; its output must have the program's success line
run() {
    envs=$1 np=$2
    shift 2
    n=$((n + 1))
    echo "== $envs mpirun -np $np $*" >> "$log"
    # shellcheck disable=SC2086  # the lists are meant to split
    if ! env $envs timeout 300 "$MPIRUN" $flags -np "$np" "$@" >> "$log" 2>&1; then
        fail "$envs mpirun -np $np $* failed"
    fi
    tail -n 20 "$log" | grep -q -e 'bit-identical on every rank and equal to the CPU device' \
        -e "equal to the CPU device's MSM" || fail "$envs mpirun -np $np $*: no success line"
}
fail() {
    printf 'FAIL mpi: %s (log: %s)\n' "$1" "$log"
    echo "    -- the log's last lines:"
    tail -n 30 "$log" | sed 's/^/    /'
    exit 1
}
for np in 2 4; do
    run MGPU_DEVICE=cpu $np build/mpi_allreduce 100000 ipc
    run MGPU_DEVICE=cpu $np build/mpi_allreduce 100000 mpi
    run MGPU_DEVICE=cpu $np build/mpi_msm 12
done
run "$fake" 2 build/mpi_allreduce 100000 ipc
run "$fake" 4 build/mpi_allreduce 100000 ipc
run "$fake" 2 build/mpi_allreduce 100000 mpi
run "$fake" 2 build/mpi_msm 10
grep -q 'GPU memory over IPC' "$log" || fail "the fake-GPU runs did not use GPUs"
printf 'ok   %-30s  %s  (%ss)\n' mpi "$n mpirun runs: 2 and 4 ranks, CPU devices and fake GPUs" $(($(date +%s) - start))
