/* readme_collectives.c - the program for collectives over devices in docs/api.md (keep the two identical).
   One buffer per device: all-reduce (every buffer becomes the elementwise sum over devices),
   broadcast from device 0, then a host array scattered in ranges over the devices and gathered. */
#include <stdio.h>
#include <stdlib.h>
#include "mgpu.h"

#define CHECK(call) do { mgpu_result r_ = (call); if (r_ != MGPU_SUCCESS) { \
    fprintf(stderr, "%s: %s\n", #call, mgpu_last_error()); exit(1); } } while (0)

#define N 1000000

int main(void)
{
    float *host = malloc(N * sizeof *host), want;
    void *bufs[MGPU_MAX_DEVICES];
    mgpu_range ranges[MGPU_MAX_DEVICES];
    int d, n, i, bad = 0;

    CHECK(mgpu_init(NULL));
    n = mgpu_device_count();
    if (!host) return 1;
    for (d = 0; d < n; d++) {                       /* device d's buffer holds d + 1 everywhere */
        for (i = 0; i < N; i++) host[i] = (float)(d + 1);
        CHECK(mgpu_set_device(d));
        CHECK(mgpu_malloc(&bufs[d], N * sizeof *host));
        CHECK(mgpu_memcpy(bufs[d], host, N * sizeof *host));
    }
    /* devs NULL, ndev 0: every device of the default backend; bufs[d] belongs to device d */
    CHECK(mgpu_allreduce(bufs, N, MGPU_F32, MGPU_OP_SUM, NULL, 0));
    want = (float)(n * (n + 1) / 2);
    for (d = 0; d < n; d++) {
        CHECK(mgpu_memcpy(host, bufs[d], N * sizeof *host));
        for (i = 0; i < N; i++) bad += host[i] != want;
    }
    CHECK(mgpu_broadcast(bufs, N * sizeof *host, 0, NULL, 0));  /* bufs[0] into every other */

    for (i = 0; i < N; i++) host[i] = (float)i;
    CHECK(mgpu_split(N, NULL, 0, MGPU_SPLIT_EVEN, NULL, 0, 0, ranges));  /* one range per device */
    CHECK(mgpu_scatter(host, sizeof *host, ranges, n, bufs));  /* range d -> start of bufs[d] */
    for (i = 0; i < N; i++) host[i] = 0;
    CHECK(mgpu_gather(host, sizeof *host, ranges, n, (const void *const *)bufs));
    for (i = 0; i < N; i++) bad += host[i] != (float)i;
    printf("all-reduce over %d device(s), broadcast, scatter and gather: %s\n", n, bad ? "WRONG" : "correct");

    for (d = 0; d < n; d++) CHECK(mgpu_free(bufs[d]));
    free(host);
    return mgpu_shutdown() == MGPU_SUCCESS && !bad ? 0 : 1;
}
