/* bench_blur - Gaussian blur throughput on one GPU, for the targets of the blur issue
   (mgpu only; an NPP peer, e.g. nppiFilterGaussBorder_8u_C4R, belongs in bench/peers).

   Cases (sigma 2, radius 2, replicate; device-resident images, 16-byte aligned rows):
     rgba     7680x4320 RGBA u8, mgpu_blur_async             target >= 2500 GB/s
     gray     7680x4320 gray u8                              target >= 2000 GB/s
     batch    64 x 3840x2160 RGBA u8, mgpu_blur_async back to back on one stream
                                                             target >= 2500 GB/s
     batch3   the same 64 images over 3 streams (round robin; kernels may overlap)
     api      the same 64 images through mgpu_blur_batch(devs = {device}) (wall clock,
              includes the call's own setup: streams, thread)
     info     3840x2160 RGB u8, f32 RGBA, and RGBA radius 5 (the shared-memory kernel)
   GB/s = (bytes read + bytes written) / time, 1e9 bytes per second, i.e. 2 * w * h * C *
   size per image. Timing: events around `inner` back-to-back calls after a warm-up, median
   of --reps (default 15). Cold data: every case rotates over enough source/destination
   pairs that a call never finds its image in the 50-60 MB L2. The first rgba result is
   compared with the CPU device (must be identical).

   Build and run from the repository root:
     make bench   (build/bench_blur)
     ./build/bench_blur [--device N] [--reps N]
   Exit: 0 targets met, 3 a target missed, 77 no GPU, 1 an error. */
#define _POSIX_C_SOURCE 200809L
#include "mgpu.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define CHECK(x) do { mgpu_result r_ = (x); if (r_ != MGPU_SUCCESS) { \
    fprintf(stderr, "bench_blur: %s: %s\n", #x, mgpu_last_error()); exit(1); } } while (0)

static int reps = 15;

static int cmp_float(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return x < y ? -1 : x > y;
}

/* Images: `pairs` source/destination pairs of w x h x c (format f) in device memory. */
typedef struct set { int pairs; mgpu_image src[128], dst[128]; size_t bytes; } set;

static void set_make(set *s, int pairs, int w, int h, int c, mgpu_pixel_format f)
{
    int i;
    size_t n = (size_t)w * h * c * (f == MGPU_PIXEL_U8 ? 1 : 4);
    unsigned char *host = (unsigned char *)malloc(n);
    if (!host) exit(1);
    for (i = 0; (size_t)i < n; i++) host[i] = (unsigned char)(i * 2654435761u >> 24);
    if (f == MGPU_PIXEL_F32) for (i = 0; (size_t)i < n / 4; i++) ((float *)(void *)host)[i] = (float)(i % 251) / 251.0f;
    memset(s, 0, sizeof *s);
    s->pairs = pairs;
    s->bytes = 2 * n;
    for (i = 0; i < pairs; i++) {
        mgpu_image im;
        memset(&im, 0, sizeof im);
        im.width = w; im.height = h; im.channels = c; im.format = f;
        s->src[i] = s->dst[i] = im;
        CHECK(mgpu_malloc(&s->src[i].data, n));
        CHECK(mgpu_malloc(&s->dst[i].data, n));
        CHECK(mgpu_memcpy(s->src[i].data, host, n));
    }
    free(host);
}
static void set_free(set *s)
{
    int i;
    for (i = 0; i < s->pairs; i++) { mgpu_free(s->src[i].data); mgpu_free(s->dst[i].data); }
}

/* Median GB/s of `calls` blurs per repetition, image k of set s for call k (mod pairs),
   on `nstreams` streams round robin. */
static double run(set *s, const mgpu_blur_params *p, int calls, mgpu_stream *st, int nstreams)
{
    mgpu_event a, b;
    float ms[256];
    int rep, k, next = 0;
    CHECK(mgpu_event_create(&a));
    CHECK(mgpu_event_create(&b));
    for (k = 0; k < calls; k++) CHECK(mgpu_blur_async(&s->src[k % s->pairs], &s->dst[k % s->pairs], p, st[k % nstreams]));
    for (k = 0; k < nstreams; k++) CHECK(mgpu_stream_synchronize(st[k]));
    for (rep = 0; rep < reps; rep++) {
        CHECK(mgpu_event_record(a, st[0]));
        for (k = 1; k < nstreams; k++) CHECK(mgpu_stream_wait_event(st[k], a));
        for (k = 0; k < calls; k++, next++)
            CHECK(mgpu_blur_async(&s->src[next % s->pairs], &s->dst[next % s->pairs], p, st[k % nstreams]));
        for (k = 1; k < nstreams; k++) {       /* join the other streams into st[0] */
            mgpu_event j;
            CHECK(mgpu_event_create_flags(&j, MGPU_EVENT_DISABLE_TIMING));
            CHECK(mgpu_event_record(j, st[k]));
            CHECK(mgpu_stream_wait_event(st[0], j));
            CHECK(mgpu_event_destroy(j));
        }
        CHECK(mgpu_event_record(b, st[0]));
        CHECK(mgpu_event_synchronize(b));
        CHECK(mgpu_event_elapsed_ms(a, b, &ms[rep]));
    }
    qsort(ms, (size_t)reps, sizeof ms[0], cmp_float);
    mgpu_event_destroy(a);
    mgpu_event_destroy(b);
    return (double)s->bytes * calls / (ms[reps / 2] * 1e-3) / 1e9;
}

static int report(const char *name, double gbs, double target)
{
    if (target > 0) printf("%-48s %8.0f GB/s   target %5.0f  %s\n", name, gbs, target, gbs >= target ? "met" : "MISSED");
    else printf("%-48s %8.0f GB/s\n", name, gbs);
    fflush(stdout);
    return target > 0 && gbs < target;
}

int main(int argc, char **argv)
{
    int dev = 0, i, missed = 0;
    mgpu_device_info info;
    mgpu_stream st[3];
    mgpu_blur_params p;
    set s;
    const char *why = "";
    for (i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--device") && i + 1 < argc) dev = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--reps") && i + 1 < argc) reps = atoi(argv[++i]);
        else { fprintf(stderr, "usage: bench_blur [--device N] [--reps N]\n"); return 1; }
    }
    if (reps < 1 || reps > 256) reps = 15;
    CHECK(mgpu_init(NULL));
    if (mgpu_cuda_status(&why) != MGPU_SUCCESS) { printf("bench_blur: skipped: %s\n", why); return 77; }
    CHECK(mgpu_set_device(dev));
    CHECK(mgpu_device_info_get(dev, &info));
    printf("bench_blur: %s (%d SMs, %.0f GB/s peak), sigma 2 radius 2 replicate, median of %d\n", info.name,
           info.multiprocessors, info.memory_bandwidth_gbs, reps);
    for (i = 0; i < 3; i++) CHECK(mgpu_stream_create_flags(&st[i], MGPU_STREAM_NON_BLOCKING));
    memset(&p, 0, sizeof p);

    set_make(&s, 2, 7680, 4320, 4, MGPU_PIXEL_U8);    /* 2 x 265 MB: nothing stays in L2 */
    {   /* correctness: the first image against the CPU device */
        size_t n = s.bytes / 2;
        unsigned char *in = (unsigned char *)malloc(n), *gpu = (unsigned char *)malloc(n), *cpu = (unsigned char *)malloc(n);
        mgpu_image a = s.src[0], b = s.dst[0];
        mgpu_stream cs;
        if (!in || !gpu || !cpu) return 1;
        CHECK(mgpu_blur(&s.src[0], &s.dst[0], &p, st[0]));
        CHECK(mgpu_memcpy(in, s.src[0].data, n));
        CHECK(mgpu_memcpy(gpu, s.dst[0].data, n));
        a.data = in; b.data = cpu;
        CHECK(mgpu_default_stream(mgpu_cpu_device(0), &cs));
        CHECK(mgpu_blur(&a, &b, &p, cs));
        printf("7680x4320 RGBA result %s the CPU device's\n", memcmp(gpu, cpu, n) ? "DIFFERS from" : "is identical to");
        if (memcmp(gpu, cpu, n)) return 1;
        free(in); free(gpu); free(cpu);
    }
    missed |= report("rgba  7680x4320x4 u8", run(&s, &p, 10, st, 1), 2500);
    set_free(&s);
    set_make(&s, 4, 7680, 4320, 1, MGPU_PIXEL_U8);
    missed |= report("gray  7680x4320x1 u8", run(&s, &p, 20, st, 1), 2000);
    set_free(&s);
    set_make(&s, 64, 3840, 2160, 4, MGPU_PIXEL_U8);   /* 64 x 66 MB */
    missed |= report("batch 64 x 3840x2160x4 u8, one stream", run(&s, &p, 64, st, 1), 2500);
    report("batch 64 x 3840x2160x4 u8, 3 streams", run(&s, &p, 64, st, 3), 0);
    {
        double best = 1e30;
        int rep;
        for (rep = 0; rep < 5; rep++) {
            struct timespec t0, t1;
            double t;
            clock_gettime(CLOCK_MONOTONIC, &t0);
            CHECK(mgpu_blur_batch(s.src, s.dst, 64, &p, &dev, 1));
            clock_gettime(CLOCK_MONOTONIC, &t1);
            t = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
            if (t < best) best = t;
        }
        report("batch 64 x 3840x2160x4 u8, mgpu_blur_batch", (double)s.bytes * 64 / best / 1e9, 0);
    }
    set_free(&s);
    set_make(&s, 8, 3840, 2160, 3, MGPU_PIXEL_U8);
    report("info  3840x2160x3 u8 (RGB)", run(&s, &p, 16, st, 1), 0);
    set_free(&s);
    set_make(&s, 4, 3840, 2160, 4, MGPU_PIXEL_F32);
    report("info  3840x2160x4 f32", run(&s, &p, 8, st, 1), 0);
    set_free(&s);
    set_make(&s, 2, 7680, 4320, 4, MGPU_PIXEL_U8);
    p.radius = 5;
    report("info  7680x4320x4 u8 radius 5 (generic kernel)", run(&s, &p, 4, st, 1), 0);
    set_free(&s);
    for (i = 0; i < 3; i++) mgpu_stream_destroy(st[i]);
    mgpu_shutdown();
    return missed ? 3 : 0;
}
