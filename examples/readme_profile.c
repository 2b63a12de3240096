/* readme_profile.c - the program for the profiler in docs/profiler.md (keep the two identical).
   Profiles an upload, a reduction and a download on every device, prints each device's
   compute / transfer / sync time and GB/s, and writes a trace for Perfetto (argv[1], or
   /tmp/readme_profile.json). MGPU_PROFILE=path does the same for any program, unchanged. */
#include <stdio.h>
#include <stdlib.h>
#include "mgpu.h"

#define CHECK(call) do { mgpu_result r_ = (call); if (r_ != MGPU_SUCCESS) { \
    fprintf(stderr, "%s: %s\n", #call, mgpu_last_error()); exit(1); } } while (0)

#define N (1 << 22)

int main(int argc, char **argv)
{
    const char *path = argc > 1 ? argv[1] : "/tmp/readme_profile.json";
    float *host, sum;
    mgpu_profile_device per[MGPU_MAX_DEVICES];
    int d, n;

    CHECK(mgpu_init(NULL));
    CHECK(mgpu_malloc_host((void **)&host, N * sizeof *host));
    for (d = 0; d < N; d++) host[d] = 1.0f;
    CHECK(mgpu_profile_start());                 /* or mgpu_desc.profile = 1, or MGPU_PROFILE */
    for (d = 0; d < mgpu_device_count(); d++) {
        float *x;
        mgpu_stream s;
        CHECK(mgpu_set_device(d));
        CHECK(mgpu_stream_create(&s));
        CHECK(mgpu_malloc((void **)&x, N * sizeof *x));
        CHECK(mgpu_memcpy_async(x, host, N * sizeof *x, s));              /* transfer */
        CHECK(mgpu_reduce(x, N, MGPU_F32, MGPU_OP_SUM, &sum, s));        /* compute, then sync */
        CHECK(mgpu_memcpy_async(host, x, N * sizeof *x, s));              /* transfer */
        CHECK(mgpu_stream_synchronize(s));                                /* sync */
        CHECK(mgpu_free(x));
        CHECK(mgpu_stream_destroy(s));
    }
    CHECK(mgpu_profile_stop());
    CHECK(mgpu_profile_summary(per, MGPU_MAX_DEVICES, &n));
    for (d = 0; d < n; d++)
        printf("device %d: compute %.3f ms, transfer %.3f ms (%.1f GB/s), sync %.3f ms\n", d,
               per[d].compute_ms, per[d].transfer_ms, per[d].transfer_gbs, per[d].sync_ms);
    CHECK(mgpu_profile_write(path));             /* open it in https://ui.perfetto.dev */
    printf("sum %.0f; trace written to %s\n", sum, path);
    CHECK(mgpu_free_host(host));
    return mgpu_shutdown() == MGPU_SUCCESS ? 0 : 1;
}
