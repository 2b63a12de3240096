/* readme_blur.c - the program for Gaussian blur in docs/blur.md (keep the two identical).
   Blurs an 8-bit RGB image in device memory, checks it against the CPU device (the same bytes),
   then blurs a batch of host images spread over every device. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mgpu.h"

#define CHECK(call) do { mgpu_result r_ = (call); if (r_ != MGPU_SUCCESS) { \
    fprintf(stderr, "%s: %s\n", #call, mgpu_last_error()); exit(1); } } while (0)

#define W 640
#define H 480
#define BYTES ((size_t)W * H * 3)
#define BATCH 8

int main(void)
{
    unsigned char *pixels = malloc(BYTES), *out = malloc(BYTES), *ref = malloc(BYTES);
    unsigned char *batch = malloc(BATCH * BYTES);
    mgpu_image src = {NULL, W, H, 3, 0, MGPU_PIXEL_U8}, dst, srcs[BATCH], dsts[BATCH];
    mgpu_blur_params params = {0};    /* zero fields: sigma 2, radius 2, replicate border */
    mgpu_stream cpu;
    void *d_src, *d_dst;
    size_t i;
    int k, bad = 0;

    CHECK(mgpu_init(NULL));
    if (!pixels || !out || !ref || !batch) return 1;
    for (i = 0; i < BYTES; i++) pixels[i] = (unsigned char)(i * 7 % 251);
    params.sigma = 3.0f;
    params.radius = 6;
    params.border = MGPU_BORDER_REFLECT_101;

    CHECK(mgpu_malloc(&d_src, BYTES));                 /* device 0 */
    CHECK(mgpu_malloc(&d_dst, BYTES));
    CHECK(mgpu_memcpy(d_src, pixels, BYTES));
    src.data = d_src;                                  /* pitch 0: packed rows of W * 3 bytes */
    dst = src;
    dst.data = d_dst;                                  /* not in place: src and dst must not overlap */
    CHECK(mgpu_blur(&src, &dst, &params, NULL));       /* device 0's default stream; waits */
    CHECK(mgpu_memcpy(out, d_dst, BYTES));

    CHECK(mgpu_default_stream(mgpu_cpu_device(0), &cpu));
    src.data = pixels;                                 /* the CPU device reads host memory */
    dst.data = ref;
    CHECK(mgpu_blur(&src, &dst, &params, cpu));
    bad += memcmp(out, ref, BYTES) != 0;

    for (k = 0; k < BATCH; k++) {                      /* host images: any device may take one */
        srcs[k] = src;
        dsts[k] = src;
        dsts[k].data = batch + k * BYTES;
    }
    CHECK(mgpu_blur_batch(srcs, dsts, BATCH, &params, NULL, 0));   /* NULL, 0: every device */
    for (k = 0; k < BATCH; k++) bad += memcmp(batch + k * BYTES, ref, BYTES) != 0;
    printf("%dx%d RGB blur on device 0, the CPU device and in a batch: %s\n", W, H,
           bad ? "DIFFERENT" : "identical");

    CHECK(mgpu_free(d_src));
    CHECK(mgpu_free(d_dst));
    free(pixels); free(out); free(ref); free(batch);
    return mgpu_shutdown() == MGPU_SUCCESS && !bad ? 0 : 1;
}
