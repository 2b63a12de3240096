/* readme_curves.c - the program for MSMs in BN254 G2 and BLS12-381 G1 and G2 in docs/curves.md
   (keep the two identical). For each group, sum k_i * P_i over 1000 random points on device 0,
   checked against the CPU device, then 2 MSMs of that group spread over every device. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mgpu.h"

#define CHECK(call) do { mgpu_result r_ = (call); if (r_ != MGPU_SUCCESS) { \
    fprintf(stderr, "%s: %s\n", #call, mgpu_last_error()); exit(1); } } while (0)

#define N 1000

int main(void)
{
    static const int groups[] = { MGPU_MSM_BN254_G2, MGPU_MSM_BLS12_381_G1, MGPU_MSM_BLS12_381_G2 };
    static const char *names[] = { "BN254 G2", "BLS12-381 G1", "BLS12-381 G2" };
    mgpu_bls12_381_g2_jacobian r, ref, rs[2];    /* the largest result: room for every group */
    mgpu_bls12_381_g2_affine a, b;
    mgpu_bn254_scalar *k = malloc(N * sizeof *k);
    void *p = malloc(N * sizeof(mgpu_bls12_381_g2_affine));
    mgpu_stream cpu;
    int g, i, bad = 0;

    CHECK(mgpu_init(NULL));
    if (!k || !p) return 1;
    CHECK(mgpu_default_stream(mgpu_cpu_device(0), &cpu));
    for (g = 0; g < 3; g++) {
        mgpu_msm_config cfg = {0};
        size_t point = mgpu_msm_point_bytes(groups[g]), result = mgpu_msm_result_bytes(groups[g]);
        cfg.group = groups[g];                      /* 0 would be BN254 G1 */
        CHECK(mgpu_curve_random_scalars(cfg.group, k, N, 1));
        CHECK(mgpu_curve_random_points(cfg.group, p, N, 2));

        CHECK(mgpu_msm_curve(k, p, N, 1, &cfg, &r, NULL));     /* device 0; waits */
        CHECK(mgpu_msm_curve(k, p, N, 1, &cfg, &ref, cpu));    /* the CPU device: the reference */
        CHECK(mgpu_curve_to_affine(cfg.group, &r, &a, 0));
        CHECK(mgpu_curve_to_affine(cfg.group, &ref, &b, 0));
        bad += memcmp(&a, &b, point) != 0;

        /* 2 MSMs of N / 2 points: rs[j] = sum over points j * N/2 .. (j + 1) * N/2 - 1 */
        CHECK(mgpu_msm_curve_multi(k, p, N / 2, 2, &cfg, rs, NULL, 0));    /* NULL, 0: every device */
        for (i = 0; i < 2; i++) {
            CHECK(mgpu_msm_curve(k + i * (N / 2), (char *)p + i * (N / 2) * point, N / 2, 1, &cfg, &ref, cpu));
            CHECK(mgpu_curve_to_affine(cfg.group, (char *)rs + i * result, &a, 0));
            CHECK(mgpu_curve_to_affine(cfg.group, &ref, &b, 0));
            bad += memcmp(&a, &b, point) != 0;
        }
        printf("%-12s on device 0, the CPU device and over %d device(s): %s\n", names[g], mgpu_device_count(),
               bad ? "DIFFERENT" : "identical");
    }
    free(k);
    free(p);
    return mgpu_shutdown() == MGPU_SUCCESS && !bad ? 0 : 1;
}
