/* readme_reduce.c - the program for reductions in docs/api.md (keep the two identical).
   Sum and max of 2^24 floats: on one device from its memory, and over every device from a
   host array (mgpu_reduce_multi splits it by throughput and overlaps copies and kernels). */
#include <stdio.h>
#include <stdlib.h>
#include "mgpu.h"

#define CHECK(call) do { mgpu_result r_ = (call); if (r_ != MGPU_SUCCESS) { \
    fprintf(stderr, "%s: %s\n", #call, mgpu_last_error()); exit(1); } } while (0)

#define N ((size_t)1 << 24)

int main(void)
{
    float *host = malloc(N * sizeof *host), *dev, sum, max, sum_all;
    double exact = 0;
    size_t i;

    CHECK(mgpu_init(NULL));
    if (!host) return 1;
    for (i = 0; i < N; i++) { host[i] = (float)(i % 1000) / 8; exact += host[i]; }

    CHECK(mgpu_malloc((void **)&dev, N * sizeof *dev));           /* on device 0 */
    CHECK(mgpu_memcpy(dev, host, N * sizeof *dev));
    CHECK(mgpu_reduce(dev, N, MGPU_F32, MGPU_OP_SUM, &sum, NULL)); /* waits; _async does not */
    CHECK(mgpu_reduce(dev, N, MGPU_F32, MGPU_OP_MAX, &max, NULL));
    CHECK(mgpu_reduce_multi(host, N, MGPU_F32, MGPU_OP_SUM, &sum_all, NULL, 0, NULL)); /* all devices */

    /* mgpu_reduce's f32 sum accumulates in double and rounds once: the float nearest the exact
       sum. mgpu_reduce_multi rounds a partial per chunk: within about 1e-7 of it. */
    printf("sum %.1f (exact %.1f), max %.3f, sum over %d device(s) %.1f\n", sum, exact, max,
           mgpu_device_count(), sum_all);
    CHECK(mgpu_free(dev));
    free(host);
    return mgpu_shutdown() == MGPU_SUCCESS && sum == (float)exact && max == 999.0f / 8 &&
           sum_all > 0.999999 * exact && sum_all < 1.000001 * exact ? 0 : 1;
}
