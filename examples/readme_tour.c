/* readme_tour.c - the program of README.md's API tour (keep the two identical).
   One thread per device fills its share of a host array on its own stream; main checks it. */
#include <stdio.h>
#include <stdlib.h>
#include "mgpu.h"

#define N 1000000

static mgpu_result fill(mgpu_device dev, int index, void *arg)   /* runs bound to dev */
{
    int ndev = mgpu_device_count();
    size_t first = (size_t)N * index / ndev, count = (size_t)N * (index + 1) / ndev - first;
    uint32_t *host = (uint32_t *)arg + first, *buf;
    mgpu_stream s;
    mgpu_result r = mgpu_stream_create(&s);
    if (r != MGPU_SUCCESS) return r;
    r = mgpu_malloc((void **)&buf, count * sizeof *buf);
    if (r == MGPU_SUCCESS) {
        r = mgpu_iota_u32(count, (uint32_t)first, buf, s);                       /* queued on s */
        if (r == MGPU_SUCCESS) r = mgpu_memcpy_async(host, buf, count * sizeof *buf, s);
        if (r == MGPU_SUCCESS) r = mgpu_stream_synchronize(s);
        mgpu_free(buf);
    }
    mgpu_stream_destroy(s);
    printf("device %d: %zu values\n", dev, count);
    return r;
}

int main(void)
{
    const char *why;
    uint32_t *host = malloc(N * sizeof *host);
    int i;
    mgpu_result r = mgpu_init(NULL);              /* CUDA devices if any, else CPU devices */
    if (r != MGPU_SUCCESS || !host) { fprintf(stderr, "init: %s\n", mgpu_last_error()); return 1; }
    if (mgpu_cuda_status(&why) != MGPU_SUCCESS) printf("CPU backend: %s\n", why);

    r = mgpu_run_on_devices(NULL, mgpu_device_count(), fill, host);
    if (r != MGPU_SUCCESS) { fprintf(stderr, "%s: %s\n", mgpu_result_string(r), mgpu_last_error()); return 1; }
    for (i = 0; i < N; i++)
        if (host[i] != (uint32_t)i) { fprintf(stderr, "host[%d] = %u\n", i, (unsigned)host[i]); return 1; }
    printf("%d values from %d device(s): correct\n", N, mgpu_device_count());
    free(host);
    return mgpu_shutdown() == MGPU_SUCCESS ? 0 : 1;
}
