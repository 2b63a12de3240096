/* per_device_threads.c - one host thread per device, each on its own stream.

   The pattern of ICICLE's RunOnDevice and CUDA.jl's "one task per device": main splits a
   host array into one slice per device and mgpu_run_on_devices starts one thread per
   device, already bound to it. Each thread checks its binding (mgpu_get_device), creates
   its own stream, allocates stream-ordered device memory, and queues on that stream:
       ids[i] = first + i            (mgpu_iota_u32)
       y[i]   = 3 * x[i] + y[i]      (mgpu_axpy_f32, x and y copied up from host)
   then copies both results back into its slice and synchronizes. main gathers and checks
   every element. Works on GPUs or, without one, on CPU devices (MGPU_CPU_DEVICES=4).

   Build and run: make examples && ./build/per_device_threads */
#include <stdio.h>
#include <stdlib.h>
#include "mgpu.h"

#define N ((size_t)1 << 22)    /* elements in all */

#define CHECK(call) do { mgpu_result r_ = (call); if (r_ != MGPU_SUCCESS) { \
    fprintf(stderr, "per_device_threads: %s failed: %s\n  %s\n", #call, mgpu_result_string(r_), \
            mgpu_last_error()); exit(1); } } while (0)
/* Inside a device thread: return the error; mgpu_run_on_devices reports the first one. */
#define TRY(call) do { mgpu_result r_ = (call); if (r_ != MGPU_SUCCESS) return r_; } while (0)

typedef struct job {
    int ndev;
    uint32_t *ids;             /* pinned host memory: the results */
    float *x, *y;              /* pinned host memory: input x, input/output y */
} job;

/* Device memory from the stream's pool; plain mgpu_malloc where the device has no pools. */
static mgpu_result alloc_on(void **p, size_t bytes, mgpu_stream s, int *pooled)
{
    mgpu_result r = mgpu_malloc_async(p, bytes, s);
    *pooled = r == MGPU_SUCCESS;
    if (r == MGPU_ERROR_NOT_SUPPORTED) r = mgpu_malloc(p, bytes);
    return r;
}
static mgpu_result free_on(void *p, mgpu_stream s, int pooled)
{
    return pooled ? mgpu_free_async(p, s) : mgpu_free(p);
}

static mgpu_result work(mgpu_device dev, int index, void *arg)
{
    const job *j = (const job *)arg;
    size_t first = N * (size_t)index / (size_t)j->ndev, last = N * (size_t)(index + 1) / (size_t)j->ndev;
    size_t count = last - first;
    mgpu_device bound = -1;
    mgpu_stream s;
    uint32_t *ids;
    float *x, *y;
    int pooled_ids, pooled_x, pooled_y;

    TRY(mgpu_get_device(&bound));              /* the thread starts bound to dev */
    if (bound != dev) return MGPU_ERROR_WRONG_DEVICE;
    TRY(mgpu_stream_create(&s));               /* on the bound device */

    TRY(alloc_on((void **)&ids, count * sizeof *ids, s, &pooled_ids));
    TRY(alloc_on((void **)&x, count * sizeof *x, s, &pooled_x));
    TRY(alloc_on((void **)&y, count * sizeof *y, s, &pooled_y));

    /* Everything below is queued on s and returns at once on a GPU. */
    TRY(mgpu_iota_u32(count, (uint32_t)first, ids, s));
    TRY(mgpu_memcpy_async(x, j->x + first, count * sizeof *x, s));
    TRY(mgpu_memcpy_async(y, j->y + first, count * sizeof *y, s));
    TRY(mgpu_axpy_f32(count, 3.0f, x, y, s));
    TRY(mgpu_memcpy_async(j->ids + first, ids, count * sizeof *ids, s));
    TRY(mgpu_memcpy_async(j->y + first, y, count * sizeof *y, s));
    TRY(free_on(ids, s, pooled_ids));
    TRY(free_on(x, s, pooled_x));
    TRY(free_on(y, s, pooled_y));

    TRY(mgpu_stream_synchronize(s));
    TRY(mgpu_stream_destroy(s));
    printf("  thread %d on device %d: elements [%zu, %zu) done\n", index, dev, first, last);
    return MGPU_SUCCESS;
}

int main(void)
{
    const char *why = "";
    mgpu_result cuda;
    job j;
    size_t i, bad = 0;

    CHECK(mgpu_init(NULL));
    j.ndev = mgpu_device_count();
    cuda = mgpu_cuda_status(&why);
    if (cuda == MGPU_SUCCESS)
        printf("backend: cuda, %d GPU(s)\n", j.ndev);
    else
        printf("backend: cpu, %d CPU device(s); CUDA unavailable (%s): %s\n", j.ndev,
               mgpu_result_string(cuda), why);

    CHECK(mgpu_malloc_host((void **)&j.ids, N * sizeof *j.ids));
    CHECK(mgpu_malloc_host((void **)&j.x, N * sizeof *j.x));
    CHECK(mgpu_malloc_host((void **)&j.y, N * sizeof *j.y));
    for (i = 0; i < N; i++) {
        j.ids[i] = 0;
        j.x[i] = (float)(i % 1000);            /* small integers: 3x + y is exact in float */
        j.y[i] = 1.0f;
    }

    printf("splitting %zu elements over %d device(s), one thread each:\n", N, j.ndev);
    CHECK(mgpu_run_on_devices(NULL, j.ndev, work, &j));

    for (i = 0; i < N; i++)
        if (j.ids[i] != (uint32_t)i || j.y[i] != 3.0f * (float)(i % 1000) + 1.0f) {
            if (bad++ < 5) fprintf(stderr, "  element %zu: id %u, y %g\n", i, (unsigned)j.ids[i], (double)j.y[i]);
        }
    CHECK(mgpu_free_host(j.ids));
    CHECK(mgpu_free_host(j.x));
    CHECK(mgpu_free_host(j.y));
    CHECK(mgpu_shutdown());
    if (bad) {
        fprintf(stderr, "per_device_threads: %zu of %zu elements wrong\n", bad, N);
        return 1;
    }
    printf("all %zu elements correct\n", N);
    return 0;
}
