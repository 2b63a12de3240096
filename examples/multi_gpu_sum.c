/* multi_gpu_sum.c - DotCompute's MultiGpuSum with mgpu: one large host array summed on
   every device at once.

   DotCompute cuts the array into one equal chunk per GPU, runs a LocalReduce kernel on each
   and adds the per-GPU partial sums on the CPU. mgpu_reduce_multi does all of that:
     - mgpu_split gives each device a share (by throughput, so mixed GPUs finish together);
     - per device, the share streams up in chunks through the copy engine while the GPU
       reduces the previous chunk (the array is pinned, so chunks are copied straight from
       it; a pageable array would go through two pinned buffers per device);
     - the per-chunk partials are added on the host in a fixed order, so the float sum is
       accurate and identical from run to run.
   The sum, the minimum and the maximum are checked against the host. On a machine without
   a GPU the same program runs on CPU devices (MGPU_CPU_DEVICES=4 for four of them), one
   thread per device. Exit status 0 when every result matches. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "mgpu.h"

#define N ((size_t)1 << 25)                          /* 32 Mi floats: 128 MiB */

#define CHECK(call) do { mgpu_result r_ = (call); if (r_ != MGPU_SUCCESS) { \
    fprintf(stderr, "multi_gpu_sum: %s failed: %s\n  %s\n", #call, mgpu_result_string(r_), mgpu_last_error()); \
    exit(1); } } while (0)

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int main(void)
{
    mgpu_range share[MGPU_MAX_DEVICES];
    float *data, sum = 0, lo = 0, hi = 0, want_lo, want_hi;
    long double want = 0;
    double t0, t1, err;
    uint32_t x = 12345;
    size_t i;
    int d, ndev, ok;

    CHECK(mgpu_init(NULL));
    ndev = mgpu_device_count();

    /* The data: pinned host memory, values in [0, 1). */
    CHECK(mgpu_malloc_host((void **)&data, N * sizeof *data));
    for (i = 0; i < N; i++) {
        x = x * 1664525u + 1013904223u;
        data[i] = (float)(x >> 8) * (1.0f / 16777216.0f);
    }

    /* Who does what: shares by throughput, in whole 1024-element blocks. */
    CHECK(mgpu_split(N, NULL, 0, MGPU_SPLIT_WEIGHTED, NULL, 0, 1024, share));
    printf("summing %zu floats (%.0f MiB) on %d device(s):\n", (size_t)N, N * 4.0 / 1048576.0, ndev);
    for (d = 0; d < ndev; d++) {
        mgpu_device_info info;
        CHECK(mgpu_device_info_get(share[d].device, &info));
        printf("  device %d (%s): elements [%zu, %zu)\n", share[d].device, info.name, share[d].offset,
               share[d].offset + share[d].count);
    }

    t0 = now_s();
    CHECK(mgpu_reduce_multi(data, N, MGPU_F32, MGPU_OP_SUM, &sum, NULL, 0, share));
    t1 = now_s();
    CHECK(mgpu_reduce_multi(data, N, MGPU_F32, MGPU_OP_MIN, &lo, NULL, 0, share));
    CHECK(mgpu_reduce_multi(data, N, MGPU_F32, MGPU_OP_MAX, &hi, NULL, 0, share));

    /* The host's answer. */
    want_lo = want_hi = data[0];
    for (i = 0; i < N; i++) {
        want += data[i];
        if (data[i] < want_lo) want_lo = data[i];
        if (data[i] > want_hi) want_hi = data[i];
    }
    err = (double)(((long double)sum - want) / want);
    if (err < 0) err = -err;
    ok = err < 1e-6 && lo == want_lo && hi == want_hi;
    printf("sum %.6f (host %.6Lf, relative error %.1e) in %.2f ms (%.1f GB/s)\n", sum, want, err,
           (t1 - t0) * 1e3, N * 4.0 / (t1 - t0) / 1e9);
    printf("min %g (host %g), max %g (host %g)\n", lo, want_lo, hi, want_hi);
    printf("%s\n", ok ? "ok" : "MISMATCH");

    CHECK(mgpu_free_host(data));
    CHECK(mgpu_shutdown());
    return ok ? 0 : 1;
}
