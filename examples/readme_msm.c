/* readme_msm.c - the program for BN254 multi-scalar multiplication in docs/msm.md (keep the two identical).
   sum k_i * P_i over 4096 random points on device 0, checked against the CPU device, then a
   batch of 4 MSMs spread over every device. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mgpu.h"

#define CHECK(call) do { mgpu_result r_ = (call); if (r_ != MGPU_SUCCESS) { \
    fprintf(stderr, "%s: %s\n", #call, mgpu_last_error()); exit(1); } } while (0)

#define N 4096

int main(void)
{
    mgpu_bn254_scalar *k = malloc(N * sizeof *k);
    mgpu_bn254_affine *p = malloc(N * sizeof *p), a, ref, b;
    mgpu_bn254_jacobian r, rs[4];
    mgpu_msm_config cfg = {0};        /* standard forms, window chosen by mgpu */
    mgpu_stream cpu;
    int i, bad = 0;

    CHECK(mgpu_init(NULL));
    if (!k || !p) return 1;
    CHECK(mgpu_bn254_random_scalars(k, N, 1));   /* host memory; device memory works too */
    CHECK(mgpu_bn254_random_points(p, N, 2));

    CHECK(mgpu_msm(k, p, N, &cfg, &r, NULL));    /* device 0; waits (mgpu_msm_async does not) */
    CHECK(mgpu_bn254_to_affine(&r, &a, 0));
    CHECK(mgpu_default_stream(mgpu_cpu_device(0), &cpu));
    CHECK(mgpu_msm(k, p, N, &cfg, &r, cpu));     /* the CPU device: the reference */
    CHECK(mgpu_bn254_to_affine(&r, &ref, 0));
    bad += memcmp(&a, &ref, sizeof a) != 0;
    printf("x = 0x%016llx%016llx%016llx%016llx\n", (unsigned long long)a.x[3], (unsigned long long)a.x[2],
           (unsigned long long)a.x[1], (unsigned long long)a.x[0]);

    /* 4 MSMs of N / 4 points: results[j] = sum over points j * N/4 .. (j + 1) * N/4 - 1 */
    CHECK(mgpu_msm_multi(k, p, N / 4, 4, &cfg, rs, NULL, 0));       /* NULL, 0: every device */
    for (i = 0; i < 4; i++) {
        CHECK(mgpu_msm(k + i * (N / 4), p + i * (N / 4), N / 4, &cfg, &r, cpu));
        CHECK(mgpu_bn254_to_affine(&r, &ref, 0));
        CHECK(mgpu_bn254_to_affine(&rs[i], &b, 0));
        bad += memcmp(&b, &ref, sizeof b) != 0;
    }
    printf("MSM on device 0, the CPU device and a batch over %d device(s): %s\n", mgpu_device_count(),
           bad ? "DIFFERENT" : "identical");
    free(k);
    free(p);
    return mgpu_shutdown() == MGPU_SUCCESS && !bad ? 0 : 1;
}
