/* bench_blur - Gaussian blur throughput on one GPU, for the targets of the blur issue, beside
   NPP (bench/peers/npp_blur.cu) and the device-to-device copy of the same bytes; then the
   same batch over several GPUs.

   Cases (sigma 2, radius 2, replicate; device-resident images, 16-byte aligned rows):
     rgba     7680x4320 RGBA u8, mgpu_blur_async             target >= 2500 GB/s
     gray     7680x4320 gray u8                              target >= 2000 GB/s
     batch    64 x 3840x2160 RGBA u8, mgpu_blur_async back to back on one stream
     batch3   the same 64 images over 3 streams (round robin; kernels may overlap)
     api      the same 64 images through mgpu_blur_batch(devs = {device}), the library's
              batch call (wall clock, the call's own setup included: streams; median of
              --reps after a warm-up call)                   target >= 2500 GB/s
     info     3840x2160 RGB u8, f32 RGBA, and RGBA radius 5 (the shared-memory kernel)
   Beside rgba, gray and batch: NPP's nppiFilterGaussBorder_8u_C4R / _C1R (5x5 mask, which
   is a sampled Gaussian of sigma ~1.4: compare speed, not results), NPP's
   nppiFilterGaussAdvancedBorder with mgpu's own 5 sigma-2 taps, each as mgpu / NPP, and
   the copy ceiling: cuMemcpyDtoD (mgpu_memcpy_async between device buffers) of the same
   bytes, timed the same way, as mgpu / copy. NPP calls are timed by the peer with CUDA
   events around the same number of calls on the same images.
   GB/s = (bytes read + bytes written) / time, 1e9 bytes per second, i.e. 2 * w * h * C *
   size per image. Timing: events around `calls` back-to-back calls after a warm-up, median
   of --reps (default 15). Cold data: every case rotates over enough source/destination
   pairs that a call never finds its image in the 50-60 MB L2. The first rgba result is
   compared with the CPU device (must be identical).

   --radii: 7680x4320 RGBA and gray u8 and 3840x2160 RGBA f32 at radius 1, 2, 3, 5, 8, 12, 16,
   32, 64 (sigma r / 3): mgpu GB/s as a fraction of the copy ceiling, and NPP's advanced
   filter with the same taps (u8), each result first compared with the CPU device's (split
   over the MGPU_CPU_DEVICES CPU devices: MGPU_CPU_DEVICES=16 makes radius 64 quick).
   --radii=LIST (e.g. --radii=3,5,8): those radii only (0..64); --images=LIST: those of rgba,
   gray, rgb (7680x4320 RGB u8), f32 (3840x2160 RGBA f32), f32gray (3840x2160 gray f32) only
   (default: rgba, gray, f32); --only-radii: skip the standard cases (and the multi-GPU
   section).

   --sweep: the variants of the pipelined 8-bit kernel in build/blur_variants.fatbin (see
   bench/blur_variants.cu; --variants FILE for another path), on the rgba, gray and batch
   images, each with strips sized for 1, 2 and 4 waves of 16 warps per multiprocessor and
   fixed strips of 32 and 128 rows: each (variant, strip) output is first compared with the
   CPU device's result, bit for bit (a variant that differs is reported and not timed),
   then timed like the cases above; prints the ten fastest per case and the best.

   Multi-GPU section (after the single-GPU cases; --no-multi skips it, --ndev N uses GPUs
   0..N-1, default all; one GPU: "skipped"): the batch's 64 x 3840x2160 RGBA u8 images
   through mgpu_blur_batch on k = 1, 2, 4, 8 GPUs (k <= N, and k = N), wall clock (the
   call's own setup included), median of --reps after a warm-up call:
     resident  image i's src and dst in GPU (i % k)'s memory, so each GPU blurs its own
               share; GB/s as above and the scaling over k = 1
                                                     target >= 3.8x at k = 4 (7.6x at 8: info)
     host      the images in pinned host memory (mgpu_malloc_host), pulled by the GPUs from
               the call's shared queue; GB/s = (bytes up + bytes down) / time, the same
               2 * w * h * 4 per image, beside the pinned ceiling measured in the same run:
               each of the k GPUs uploads its share of the batch and downloads as much at
               once, on two streams (mgpu_memcpy_async), wall clock
                                                     target >= 0.85 x ceiling at every k >= 2
   Every image of the warm-up calls (each k, both placements) is compared with the CPU
   device's result byte for byte. Every GPU holds a copy of the whole batch (4.2 GB), so
   every k reuses the same buffers.

   --scale N (2, 4 or 8): every image N times smaller in both directions, targets not
   judged: a quick dry run (e.g. on tests/fake_cuda's stand-in libcuda, build/libfake_cuda.so:
   MGPU_CUDA_PATH=build/libfake_cuda.so FAKE_CUDA_DEVICES=2 ./build/bench_blur --scale 8).

   Build and run from the repository root:
     make build/bench_blur   (or make bench)
     ./build/bench_blur [--device N] [--reps N] [--sweep] [--variants FILE] [--scale N]
                        [--no-multi] [--ndev N] [--radii[=LIST]] [--images=LIST] [--only-radii]
   Exit: 0 targets met, 3 a target missed, 77 no GPU, 1 an error (or a variant or a
   multi-GPU result that differs from the CPU device). */
#define _POSIX_C_SOURCE 200809L
#include "mgpu.h"
#include "bench/peers/peers.h"
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define CHECK(x) do { mgpu_result r_ = (x); if (r_ != MGPU_SUCCESS) { \
    fprintf(stderr, "bench_blur: %s: %s\n", #x, mgpu_last_error()); exit(1); } } while (0)

static int reps = 15;
static int scale = 1;                    /* --scale N: images N times smaller (dry runs; targets not judged) */
static int npp_ok, npp_ordinal;
static float npp_taps[2 * MGPU_BLUR_MAX_RADIUS + 1];  /* NPP advanced: mgpu's own taps */
static int npp_ntaps = 5;

static int cmp_float(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return x < y ? -1 : x > y;
}
static int cmp_double_desc(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x > y ? -1 : x < y;
}

/* Images: `pairs` source/destination pairs of w x h x c (format f) in device memory, all
   with the same contents; host: a copy of the source (for the CPU reference). */
typedef struct set { int pairs; mgpu_image src[128], dst[128]; size_t bytes; unsigned char *host; } set;

static void set_make(set *s, int pairs, int w, int h, int c, mgpu_pixel_format f)
{
    size_t i, n;
    int k;
    w /= scale;
    h /= scale;
    n = (size_t)w * h * c * (f == MGPU_PIXEL_U8 ? 1 : 4);
    unsigned char *host = (unsigned char *)malloc(n);
    if (!host) exit(1);
    for (i = 0; i < n; i++) host[i] = (unsigned char)(i * 2654435761u >> 24);
    if (f == MGPU_PIXEL_F32) for (i = 0; i < n / 4; i++) ((float *)(void *)host)[i] = (float)(i % 251) / 251.0f;
    memset(s, 0, sizeof *s);
    s->pairs = pairs;
    s->bytes = 2 * n;
    s->host = host;
    for (k = 0; k < pairs; k++) {
        mgpu_image im;
        memset(&im, 0, sizeof im);
        im.width = w; im.height = h; im.channels = c; im.format = f;
        s->src[k] = s->dst[k] = im;
        CHECK(mgpu_malloc(&s->src[k].data, n));
        CHECK(mgpu_malloc(&s->dst[k].data, n));
        CHECK(mgpu_memcpy(s->src[k].data, host, n));
    }
}
static void set_free(set *s)
{
    int i;
    for (i = 0; i < s->pairs; i++) { mgpu_free(s->src[i].data); mgpu_free(s->dst[i].data); }
    free(s->host);
}

/* The CPU device's result for the set's image (malloc'ed, packed). */
static unsigned char *cpu_reference(const set *s, const mgpu_blur_params *p)
{
    size_t n = s->bytes / 2;
    unsigned char *out = (unsigned char *)malloc(n);
    mgpu_image a = s->src[0], b = s->dst[0];
    mgpu_stream cs;
    if (!out) exit(1);
    a.data = s->host;
    b.data = out;
    if (mgpu_cpu_device_count() > 1) {        /* bands over every CPU device: the same bytes */
        mgpu_device cpus[64];
        int i, n = mgpu_cpu_device_count() < 64 ? mgpu_cpu_device_count() : 64;
        for (i = 0; i < n; i++) cpus[i] = mgpu_cpu_device(i);
        CHECK(mgpu_blur_split(&a, &b, p, cpus, n));
        return out;
    }
    CHECK(mgpu_default_stream(mgpu_cpu_device(0), &cs));
    CHECK(mgpu_blur(&a, &b, p, cs));
    return out;
}

/* One timed batch: `calls` operations enqueued by fn(k, stream) between two events. */
typedef void (*enqueue_fn)(void *ctx, int k, mgpu_stream st);
static double time_calls(enqueue_fn fn, void *ctx, size_t bytes_per_call, int calls, mgpu_stream *st, int nstreams)
{
    mgpu_event a, b;
    float ms[256];
    int rep, k, next = 0;
    CHECK(mgpu_event_create(&a));
    CHECK(mgpu_event_create(&b));
    for (k = 0; k < calls; k++) fn(ctx, k, st[k % nstreams]);
    for (k = 0; k < nstreams; k++) CHECK(mgpu_stream_synchronize(st[k]));
    for (rep = 0; rep < reps; rep++) {
        CHECK(mgpu_event_record(a, st[0]));
        for (k = 1; k < nstreams; k++) CHECK(mgpu_stream_wait_event(st[k], a));
        for (k = 0; k < calls; k++, next++) fn(ctx, next, st[k % nstreams]);
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
    return (double)bytes_per_call * calls / (ms[reps / 2] * 1e-3) / 1e9;
}

typedef struct blur_ctx { set *s; const mgpu_blur_params *p; } blur_ctx;
static void enqueue_blur(void *ctx, int k, mgpu_stream st)
{
    blur_ctx *c = (blur_ctx *)ctx;
    CHECK(mgpu_blur_async(&c->s->src[k % c->s->pairs], &c->s->dst[k % c->s->pairs], c->p, st));
}
static void enqueue_copy(void *ctx, int k, mgpu_stream st)
{
    set *s = (set *)ctx;
    CHECK(mgpu_memcpy_async(s->dst[k % s->pairs].data, s->src[k % s->pairs].data, s->bytes / 2, st));
}

/* Median GB/s of `calls` blurs per repetition, image k of set s for call k (mod pairs),
   on `nstreams` streams round robin. */
static double run(set *s, const mgpu_blur_params *p, int calls, mgpu_stream *st, int nstreams)
{
    blur_ctx c;
    c.s = s;
    c.p = p;
    return time_calls(enqueue_blur, &c, s->bytes, calls, st, nstreams);
}

/* The copy ceiling: the same bytes moved by cuMemcpyDtoD, timed the same way. */
static double run_copy(set *s, int calls, mgpu_stream st)
{
    return time_calls(enqueue_copy, s, s->bytes, calls, &st, 1);
}

/* NPP: median GB/s of `calls` calls per repetition (the peer times each batch with events). */
static double run_npp(set *s, int which, int calls, mgpu_stream st, char *why, size_t cap)
{
    npppeer_image im[128];
    float ms[256];
    void *cu = NULL;
    int i, rep;
    if (!npp_ok) { snprintf(why, cap, "not built"); return -1; }
    CHECK(mgpu_native_stream(st, &cu));
    for (i = 0; i < s->pairs; i++) {
        im[i].src = s->src[i].data;
        im[i].dst = s->dst[i].data;
        im[i].width = s->src[i].width;
        im[i].height = s->src[i].height;
        im[i].channels = s->src[i].channels;
        im[i].spitch = im[i].dpitch = (size_t)s->src[i].width * (size_t)s->src[i].channels;
    }
    if (npppeer_time(which, npp_ordinal, im, s->pairs, calls, npp_taps, npp_ntaps, cu, &ms[0], why, cap)) return -1;  /* warm-up */
    for (rep = 0; rep < reps; rep++)
        if (npppeer_time(which, npp_ordinal, im, s->pairs, calls, npp_taps, npp_ntaps, cu, &ms[rep], why, cap)) return -1;
    qsort(ms, (size_t)reps, sizeof ms[0], cmp_float);
    return (double)s->bytes * calls / (ms[reps / 2] * 1e-3) / 1e9;
}

static int report(const char *name, double gbs, double target)
{
    if (scale != 1) target = 0;
    if (target > 0) printf("%-52s %7.0f GB/s   target %5.0f  %s\n", name, gbs, target, gbs >= target ? "met" : "MISSED");
    else printf("%-52s %7.0f GB/s\n", name, gbs);
    fflush(stdout);
    return target > 0 && gbs < target;
}

/* NPP (both filters) and the copy ceiling beside an mgpu result. */
static void peers(set *s, int calls, mgpu_stream st, double mgpu_gbs)
{
    static const char *const names[2] = { "NPP FilterGaussBorder 5x5 mask", "NPP FilterGaussAdvancedBorder, 5 sigma-2 taps" };
    char why[512];
    double g;
    int which;
    for (which = 0; which < 2; which++) {
        g = run_npp(s, which, calls, st, why, sizeof why);
        if (g > 0) printf("      %-46s %7.0f GB/s   mgpu / NPP  %5.2fx\n", names[which], g, mgpu_gbs / g);
        else printf("      %-46s %12s   (%s)\n", names[which], "-", why);
    }
    g = run_copy(s, calls, st);
    printf("      %-46s %7.0f GB/s   mgpu / copy %5.2f\n", "copy ceiling: cuMemcpyDtoD of the same bytes", g, mgpu_gbs / g);
    fflush(stdout);
}

/* ------------------------------------------------------------------ --sweep */
/* = mgpu__blur_args in mgpu.h (the kernels' mgpu_blr::args): 680 bytes */
typedef struct blur_args {
    unsigned long long src, dst, spitch, dpitch;
    int width, height, channels, src_row0;
    int y_begin, y_end, radius, border;
    int strip, vec_src, vec_dst, cval_u8;
    float cval_f32;
    int reserved;
    uint32_t wi[MGPU_BLUR_MAX_RADIUS + 1];
    float wf[MGPU_BLUR_MAX_RADIUS + 1];
    uint32_t wp[17];                                     /* the ring kernels' weight pairs, |t| <= 16 */
    int reserved2;
} blur_args;
typedef char blur_args_size[sizeof(blur_args) == 680 ? 1 : -1];

/* The variants' parameters, as instantiated in bench/blur_variants.cu (BLURV_C). */
static const int variant_table[][4] = {                 /* PF, WARPS, CACHE, ARITH */
    {2, 4, 0, 0}, {4, 4, 0, 0}, {6, 4, 0, 0}, {8, 4, 0, 0},
    {2, 4, 0, 1}, {4, 4, 0, 1}, {6, 4, 0, 1}, {8, 4, 0, 1},
    {4, 4, 1, 0}, {6, 4, 1, 0}, {8, 4, 1, 0},
    {4, 4, 1, 1}, {6, 4, 1, 1}, {8, 4, 1, 1},
    {4, 4, 3, 1}, {6, 4, 3, 1}, {8, 4, 3, 1},
    {6, 4, 5, 1}, {8, 4, 5, 1},
    {4, 8, 1, 1}, {4, 8, 3, 1} };
#define NVARIANTS ((int)(sizeof variant_table / sizeof variant_table[0]))
static const int strip_modes[] = { -1, -2, -4, 32, 128 };   /* < 0: waves; > 0: rows */
#define NSTRIPS ((int)(sizeof strip_modes / sizeof strip_modes[0]))

typedef struct variant_ctx {
    set *s;
    mgpu_kernel k;
    blur_args a;
    mgpu_launch_dims dims;
} variant_ctx;

static void variant_shape(variant_ctx *v, int warps, int strip_mode, int sms)
{
    const mgpu_image *im = &v->s->src[0];
    const long long rowlen = (long long)im->width * im->channels, rows = im->height, segw = 32 * 16;
    const long long per_row = (rowlen + segw - 1) / segw;
    long long strip = strip_mode > 0 ? strip_mode
                    : (rows * per_row + (long long)sms * 16 * -strip_mode - 1) / ((long long)sms * 16 * -strip_mode);
    if (strip < 8) strip = 8;
    if (strip > rows) strip = rows;
    v->a.strip = (int)strip;
    memset(&v->dims, 0, sizeof v->dims);
    v->dims.grid[0] = (unsigned)((per_row * ((rows + strip - 1) / strip) + warps - 1) / warps);
    v->dims.grid[1] = v->dims.grid[2] = v->dims.block[1] = v->dims.block[2] = 1;
    v->dims.block[0] = (unsigned)(32 * warps);
}

static void variant_args(variant_ctx *v, int k)
{
    const mgpu_image *src = &v->s->src[k % v->s->pairs], *dst = &v->s->dst[k % v->s->pairs];
    v->a.src = (unsigned long long)(uintptr_t)src->data;
    v->a.dst = (unsigned long long)(uintptr_t)dst->data;
}

static void enqueue_variant(void *ctx, int k, mgpu_stream st)
{
    variant_ctx *v = (variant_ctx *)ctx;
    void *params[1];
    variant_args(v, k);
    params[0] = &v->a;
    CHECK(mgpu_launch(v->k, &v->dims, params, st));
}

typedef struct sweep_result { double gbs; char name[160]; } sweep_result;
static int cmp_result(const void *a, const void *b)
{
    return cmp_double_desc(&((const sweep_result *)a)->gbs, &((const sweep_result *)b)->gbs);
}

/* Every variant for the set's channel count, every strip mode. Returns the number of
   (variant, strip) runs that differ from the CPU device. */
static int sweep_case(const char *label, set *s, int calls, mgpu_module mod, const mgpu_blur_params *p,
                      mgpu_stream st, int sms, double library_gbs)
{
    const int C = s->src[0].channels;
    const size_t n = s->bytes / 2;
    unsigned char *ref = cpu_reference(s, p), *got = (unsigned char *)malloc(n);
    sweep_result res[NVARIANTS * NSTRIPS];
    int nres = 0, i, m, bad = 0, missing = 0;
    variant_ctx v;
    if (!got) exit(1);
    memset(&v, 0, sizeof v);
    v.s = s;
    v.a.spitch = v.a.dpitch = (unsigned long long)((size_t)s->src[0].width * (size_t)C);
    v.a.width = s->src[0].width;
    v.a.height = s->src[0].height;
    v.a.channels = C;
    v.a.y_end = s->src[0].height;
    v.a.vec_src = v.a.vec_dst = 1;
    CHECK(mgpu_blur_weights(p, &v.a.radius, v.a.wi, v.a.wf));
    printf("sweep %s (%d x %d x %d u8, %d calls per timing; strips: waves of 16 warps per SM, or rows):\n", label,
           s->src[0].width, s->src[0].height, C, calls);
    for (i = 0; i < NVARIANTS; i++) {
        char kname[64];
        const int *t = variant_table[i];
        snprintf(kname, sizeof kname, "blurv_c%d_pf%d_w%d_k%d_a%d", C, t[0], t[1], t[2], t[3]);
        if (mgpu_module_kernel(mod, kname, &v.k) != MGPU_SUCCESS) { missing++; continue; }
        for (m = 0; m < NSTRIPS; m++) {
            sweep_result *r = &res[nres];
            variant_shape(&v, t[1], strip_modes[m], sms);
            if (strip_modes[m] < 0) snprintf(r->name, sizeof r->name, "%s waves %d (strip %d)", kname, -strip_modes[m], v.a.strip);
            else snprintf(r->name, sizeof r->name, "%s strip %d", kname, v.a.strip);
            CHECK(mgpu_memset(s->dst[0].data, 0xA5, n));
            enqueue_variant(&v, 0, st);
            if (mgpu_stream_synchronize(st) != MGPU_SUCCESS) {
                printf("  %-60s launch failed: %s\n", r->name, mgpu_last_error());
                return bad + 1;               /* the context may be gone: stop here */
            }
            CHECK(mgpu_memcpy(got, s->dst[0].data, n));
            if (memcmp(got, ref, n)) {
                size_t x = 0;
                while (got[x] == ref[x]) x++;
                printf("  %-60s DIFFERS from the CPU device (first at byte %zu: %u, want %u): not timed\n",
                       r->name, x, got[x], ref[x]);
                bad++;
                continue;
            }
            r->gbs = time_calls(enqueue_variant, &v, s->bytes, calls, &st, 1);
            nres++;
        }
    }
    if (missing) printf("  (%d variants not in the module: %s)\n", missing, "rebuild build/blur_variants.fatbin");
    qsort(res, (size_t)nres, sizeof res[0], cmp_result);
    for (i = 0; i < nres && i < 10; i++) printf("  %2d. %-60s %7.0f GB/s\n", i + 1, res[i].name, res[i].gbs);
    if (nres) printf("  best %-8s %s: %.0f GB/s (library kernel %.0f GB/s); all %d (variant, strip) outputs checked: %s\n",
                     label, res[0].name, res[0].gbs, library_gbs, nres + bad, bad ? "SOME DIFFER" : "identical to the CPU device");
    fflush(stdout);
    free(ref);
    free(got);
    return bad;
}

/* ------------------------------------------------------------------ --radii */
/* One image set at radius 1, 2, 3, 5, 8, 12, 16, 32, 64 (sigma r / 3, replicate): mgpu's GB/s, the
   result first compared with the CPU device's (exit 1 if it differs), NPP's advanced filter
   with mgpu's own 2r + 1 taps (8-bit, 1 or 4 channels), and the copy ceiling. Returns the
   number of radii whose result differs. */
static int radii[MGPU_BLUR_MAX_RADIUS + 1] = { 1, 2, 3, 5, 8, 12, 16, 32, 64 }, n_radii = 9;
static int radii_case(const char *label, set *s, int calls, mgpu_stream st)
{
    const double copy = run_copy(s, calls, st);
    const int C = s->src[0].channels, u8 = s->src[0].format == MGPU_PIXEL_U8;
    const size_t n = s->bytes / 2;
    int i, k, bad = 0;
    printf("%s: copy ceiling %.0f GB/s\n", label, copy);
    printf("  %6s %10s %8s %12s %10s\n", "radius", "mgpu GB/s", "/ copy", "NPP adv GB/s", "mgpu/NPP");
    for (i = 0; i < n_radii; i++) {
        mgpu_blur_params p;
        float wf[MGPU_BLUR_MAX_RADIUS + 1];
        unsigned char *ref, *got = (unsigned char *)malloc(n);
        char why[512], npp[64] = "-", ratio[32] = "-";
        double g, gn;
        int same;
        memset(&p, 0, sizeof p);
        p.radius = radii[i] ? radii[i] : MGPU_BLUR_RADIUS_ZERO;
        p.sigma = radii[i] ? (float)radii[i] / 3.0f : 1.0f;
        ref = cpu_reference(s, &p);
        CHECK(mgpu_blur(&s->src[0], &s->dst[0], &p, st));
        CHECK(mgpu_memcpy(got, s->dst[0].data, n));
        same = !memcmp(got, ref, n);
        bad += !same;
        free(ref);
        free(got);
        g = run(s, &p, calls, &st, 1);
        if (u8 && (C == 1 || C == 4)) {
            CHECK(mgpu_blur_weights(&p, NULL, NULL, wf));
            npp_ntaps = 2 * radii[i] + 1;
            for (k = 0; k <= radii[i]; k++) npp_taps[radii[i] - k] = npp_taps[radii[i] + k] = wf[k];
            gn = run_npp(s, 1, calls, st, why, sizeof why);
            if (gn > 0) { snprintf(npp, sizeof npp, "%.0f", gn); snprintf(ratio, sizeof ratio, "%.2fx", g / gn); }
        }
        printf("  %6d %10.0f %8.2f %12s %10s%s\n", radii[i], g, g / copy, npp, ratio, same ? "" : "   RESULT DIFFERS FROM THE CPU DEVICE");
        fflush(stdout);
    }
    npp_ntaps = 5;
    return bad;
}

/* ------------------------------------------------------------------ multi-GPU section */
#define MULTI_IMAGES 64

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* The batch as mgpu_blur_batch sees it, for k of the section's GPUs. */
typedef struct multi {
    const mgpu_device *devs;
    int k;
    const mgpu_blur_params *p;
    set *on;                               /* on[g]: the 64 pairs in GPU g's memory */
    unsigned char *hsrc, *hdst;            /* the 64 pairs in pinned host memory, packed */
    mgpu_stream (*st)[2];                  /* st[g]: GPU g's upload and download streams */
    mgpu_image src[MULTI_IMAGES], dst[MULTI_IMAGES];
} multi;

typedef void (*call_fn)(multi *m);
static void call_batch(multi *m)
{
    CHECK(mgpu_blur_batch(m->src, m->dst, MULTI_IMAGES, m->p, m->devs, m->k));
}
/* The pinned ceiling: every GPU uploads its share of the batch (image i on GPU i % k) and
   downloads as many bytes, on two streams, so the directions overlap as in the batch. */
static void call_copies(multi *m)
{
    const size_t n = m->on[0].bytes / 2;
    int i, g;
    for (i = 0; i < MULTI_IMAGES; i++) {
        g = i % m->k;
        CHECK(mgpu_memcpy_async(m->on[g].dst[i].data, m->hsrc + (size_t)i * n, n, m->st[g][0]));
        CHECK(mgpu_memcpy_async(m->hdst + (size_t)i * n, m->on[g].src[i].data, n, m->st[g][1]));
    }
    for (g = 0; g < m->k; g++) {
        CHECK(mgpu_stream_synchronize(m->st[g][0]));
        CHECK(mgpu_stream_synchronize(m->st[g][1]));
    }
}
/* Median wall-clock seconds of --reps calls, after one warm-up call. */
static double wall_median(call_fn fn, multi *m)
{
    double t[256];
    int rep;
    fn(m);
    for (rep = 0; rep < reps; rep++) {
        const double t0 = now_s();
        fn(m);
        t[rep] = now_s() - t0;
    }
    qsort(t, (size_t)reps, sizeof t[0], cmp_double_desc);
    return t[reps / 2];
}

/* The batch in GPU memory (image i in GPU i % k's), else in pinned host memory. */
static void multi_place(multi *m, int resident)
{
    const size_t n = m->on[0].bytes / 2;
    int i;
    for (i = 0; i < MULTI_IMAGES; i++) {
        m->src[i] = m->on[resident ? i % m->k : 0].src[i];
        m->dst[i] = m->on[resident ? i % m->k : 0].dst[i];
        if (!resident) {
            m->src[i].data = m->hsrc + (size_t)i * n;
            m->dst[i].data = m->hdst + (size_t)i * n;
        }
    }
}

/* One call on cleared destinations, every image then compared with the CPU device's
   result (ref) byte for byte: a difference exits 1. This call is also the warm-up. */
static void multi_check(multi *m, const char *what, const unsigned char *ref, unsigned char *tmp)
{
    const size_t n = m->on[0].bytes / 2;
    int i;
    for (i = 0; i < MULTI_IMAGES; i++) CHECK(mgpu_memset(m->dst[i].data, 0xA5, n));
    call_batch(m);
    for (i = 0; i < MULTI_IMAGES; i++) {
        size_t x = 0;
        CHECK(mgpu_memcpy(tmp, m->dst[i].data, n));
        if (!memcmp(tmp, ref, n)) continue;
        while (tmp[x] == ref[x]) x++;
        printf("multi %s, %d GPU(s): image %d DIFFERS from the CPU device's (first at byte %zu: %u, want %u)\n",
               what, m->k, i, x, tmp[x], ref[x]);
        exit(1);
    }
}

/* mgpu_blur_batch over k = 1, 2, 4, 8 (and ndev) GPUs: the batch resident on the GPUs (its
   scaling over k = 1), and from pinned host memory beside the pinned copy ceiling. Returns
   1 if a judged target is missed. */
static int multi_section(int ndev, const mgpu_blur_params *p, mgpu_device bound)
{
    mgpu_device devs[MGPU_MAX_DEVICES];
    mgpu_stream st[MGPU_MAX_DEVICES][2];
    double res[MGPU_MAX_DEVICES + 1], host[MGPU_MAX_DEVICES + 1], cap[MGPU_MAX_DEVICES + 1];
    int ks[8], nk = 0, i, g, missed = 0, worst_k = 0;
    unsigned char *ref, *tmp;
    size_t n, total;
    set *on;
    multi m;
    if (ndev < 2) { printf("multi-GPU: skipped (one GPU)\n"); return 0; }
    if (!(on = (set *)calloc((size_t)ndev, sizeof *on))) exit(1);
    for (i = 1; i <= ndev; i *= 2) ks[nk++] = i;
    if (ks[nk - 1] != ndev) ks[nk++] = ndev;
    memset(&m, 0, sizeof m);
    for (g = 0; g < ndev; g++) {              /* every GPU holds the whole batch: any k can use it */
        devs[g] = g;
        CHECK(mgpu_set_device(g));
        set_make(&on[g], MULTI_IMAGES, 3840, 2160, 4, MGPU_PIXEL_U8);
        CHECK(mgpu_stream_create_flags(&st[g][0], MGPU_STREAM_NON_BLOCKING));
        CHECK(mgpu_stream_create_flags(&st[g][1], MGPU_STREAM_NON_BLOCKING));
    }
    CHECK(mgpu_set_device(bound));
    n = on[0].bytes / 2;
    total = on[0].bytes * MULTI_IMAGES;         /* resident: read + written; host: up + down */
    m.devs = devs;
    m.p = p;
    m.on = on;
    m.st = st;
    CHECK(mgpu_malloc_host((void **)&m.hsrc, n * MULTI_IMAGES));
    CHECK(mgpu_malloc_host((void **)&m.hdst, n * MULTI_IMAGES));
    for (i = 0; i < MULTI_IMAGES; i++) memcpy(m.hsrc + (size_t)i * n, on[0].host, n);
    ref = cpu_reference(&on[0], p);
    if (!(tmp = (unsigned char *)malloc(n))) exit(1);
    printf("multi-GPU: %d GPUs, %d x %dx%dx4 u8 per mgpu_blur_batch call, wall clock, median of %d\n", ndev,
           MULTI_IMAGES, on[0].src[0].width, on[0].src[0].height, reps);
    fflush(stdout);
    for (i = 0; i < nk; i++) {
        m.k = ks[i];
        multi_place(&m, 1);
        multi_check(&m, "resident", ref, tmp);
        res[m.k] = (double)total / wall_median(call_batch, &m) / 1e9;
        multi_place(&m, 0);
        multi_check(&m, "host", ref, tmp);
        host[m.k] = (double)total / wall_median(call_batch, &m) / 1e9;
        cap[m.k] = (double)total / wall_median(call_copies, &m) / 1e9;
        printf("  %d GPU(s): every image, resident and from host memory, identical to the CPU device's\n", m.k);
        fflush(stdout);
    }
    printf("  GPUs  resident GB/s  scaling   host GB/s  pinned ceiling GB/s  host / ceiling\n");
    for (i = 0; i < nk; i++) {
        const int k = ks[i];
        printf("  %4d  %13.0f  x%-6.2f  %10.0f  %19.0f  %14.2f%s\n", k, res[k], res[k] / res[1], host[k], cap[k],
               host[k] / cap[k], k == 1 ? " (info)" : "");
        if (k >= 2 && (!worst_k || host[k] / cap[k] < host[worst_k] / cap[worst_k])) worst_k = k;
    }
    if (ndev < 4) printf("  target >= 3.8x at 4 GPUs: not measured (%d GPUs)\n", ndev);
    else if (scale != 1) printf("  target >= 3.8x at 4 GPUs: x%.2f, not judged (--scale)\n", res[4] / res[1]);
    else {
        printf("  target >= 3.8x at 4 GPUs: x%.2f %s\n", res[4] / res[1], res[4] >= 3.8 * res[1] ? "met" : "MISSED");
        missed |= res[4] < 3.8 * res[1];
    }
    if (ndev >= 8) printf("  info   >= 7.6x at 8 GPUs: x%.2f\n", res[8] / res[1]);
    printf("  target host >= 0.85 x pinned ceiling at 2+ GPUs: worst %.2f at %d GPUs, %s\n", host[worst_k] / cap[worst_k],
           worst_k, scale != 1 ? "not judged (--scale)" : host[worst_k] >= 0.85 * cap[worst_k] ? "met" : "MISSED");
    if (scale == 1) missed |= host[worst_k] < 0.85 * cap[worst_k];
    fflush(stdout);
    for (g = 0; g < ndev; g++) {
        mgpu_stream_destroy(st[g][0]);
        mgpu_stream_destroy(st[g][1]);
        set_free(&on[g]);
    }
    mgpu_free_host(m.hsrc);
    mgpu_free_host(m.hdst);
    free(on);
    free(ref);
    free(tmp);
    return missed;
}

static unsigned char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    unsigned char *buf = NULL;
    long n;
    if (!f) return NULL;
    if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) > 0 && fseek(f, 0, SEEK_SET) == 0 &&
        (buf = (unsigned char *)malloc((size_t)n)) && fread(buf, 1, (size_t)n, f) == (size_t)n) {
        *len = (size_t)n;
    } else {
        free(buf);
        buf = NULL;
    }
    fclose(f);
    return buf;
}

int main(int argc, char **argv)
{
    int dev = 0, i, missed = 0, sweep = 0, differ = 0, multi_on = 1, ndev = -1, radii_on = 0, only_radii = 0;
    const char *images = "rgba,gray,f32";
    mgpu_device_info info;
    mgpu_stream st[3];
    mgpu_blur_params p;
    set s;
    char why_npp[512], variants_default[1024];
    const char *why = "", *variants = NULL;
    double g_rgba = 0, g_gray = 0, g_batch = 0;
    for (i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--device") && i + 1 < argc) dev = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--reps") && i + 1 < argc) reps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--sweep")) sweep = 1;
        else if (!strcmp(argv[i], "--radii")) radii_on = 1;
        else if (!strncmp(argv[i], "--radii=", 8)) {
            const char *q = argv[i] + 8;
            char *end;
            radii_on = 1;
            for (n_radii = 0; *q && n_radii <= MGPU_BLUR_MAX_RADIUS; q = *end == ',' ? end + 1 : end) {
                const long v = strtol(q, &end, 10);
                if (end == q || v < 0 || v > MGPU_BLUR_MAX_RADIUS) { fprintf(stderr, "bench_blur: --radii=LIST of 0..64\n"); return 1; }
                radii[n_radii++] = (int)v;
            }
        }
        else if (!strncmp(argv[i], "--images=", 9)) images = argv[i] + 9;
        else if (!strcmp(argv[i], "--only-radii")) { only_radii = radii_on = 1; multi_on = 0; }
        else if (!strcmp(argv[i], "--variants") && i + 1 < argc) variants = argv[++i];
        else if (!strcmp(argv[i], "--scale") && i + 1 < argc) scale = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--no-multi")) multi_on = 0;
        else if (!strcmp(argv[i], "--ndev") && i + 1 < argc) ndev = atoi(argv[++i]);
        else { fprintf(stderr, "usage: bench_blur [--device N] [--reps N] [--sweep] [--variants FILE] [--scale 1|2|4|8]"
                               " [--no-multi] [--ndev N] [--radii[=LIST]] [--images=LIST] [--only-radii]\n"); return 1; }
    }
    if (reps < 1 || reps > 256) reps = 15;
    if (scale != 1 && scale != 2 && scale != 4 && scale != 8) { fprintf(stderr, "bench_blur: --scale 1, 2, 4 or 8\n"); return 1; }
    if (ndev != -1 && ndev < 1) { fprintf(stderr, "bench_blur: --ndev N: N >= 1\n"); return 1; }
    if (!variants) {                              /* next to the executable */
        const char *slash = strrchr(argv[0], '/');
        snprintf(variants_default, sizeof variants_default, "%.*sblur_variants.fatbin",
                 slash ? (int)(slash - argv[0] + 1) : 0, argv[0]);
        variants = variants_default;
    }
    CHECK(mgpu_init(NULL));
    if (mgpu_cuda_status(&why) != MGPU_SUCCESS) { printf("bench_blur: skipped: %s\n", why); return 77; }
    CHECK(mgpu_set_device(dev));
    CHECK(mgpu_device_info_get(dev, &info));
    printf("bench_blur: %s (%d SMs, %.0f GB/s peak), sigma 2 radius 2 replicate, median of %d%s\n", info.name,
           info.multiprocessors, info.memory_bandwidth_gbs, reps, scale != 1 ? " (--scale: smaller images, targets not judged)" : "");
    npp_ok = npppeer_available(why_npp, sizeof why_npp);
    npp_ordinal = info.ordinal;
    printf("peers: %s\n", npp_ok ? npppeer_version() : why_npp);
    for (i = 0; i < 3; i++) CHECK(mgpu_stream_create_flags(&st[i], MGPU_STREAM_NON_BLOCKING));
    memset(&p, 0, sizeof p);
    {   /* NPP's advanced filter gets mgpu's own taps (sigma 2, radius 2) */
        float wf[MGPU_BLUR_MAX_RADIUS + 1];
        CHECK(mgpu_blur_weights(&p, NULL, NULL, wf));
        npp_taps[0] = npp_taps[4] = wf[2];
        npp_taps[1] = npp_taps[3] = wf[1];
        npp_taps[2] = wf[0];
    }

    if (!only_radii) {
        set_make(&s, 2, 7680, 4320, 4, MGPU_PIXEL_U8);    /* 2 x 265 MB: nothing stays in L2 */
        {   /* correctness: the first image against the CPU device */
            size_t n = s.bytes / 2;
            unsigned char *gpu = (unsigned char *)malloc(n), *cpu = cpu_reference(&s, &p);
            if (!gpu) return 1;
            CHECK(mgpu_blur(&s.src[0], &s.dst[0], &p, st[0]));
            CHECK(mgpu_memcpy(gpu, s.dst[0].data, n));
            printf("%dx%d RGBA result %s the CPU device's\n", s.src[0].width, s.src[0].height,
                   memcmp(gpu, cpu, n) ? "DIFFERS from" : "is identical to");
            if (memcmp(gpu, cpu, n)) return 1;
            free(gpu); free(cpu);
        }
        g_rgba = run(&s, &p, 10, st, 1);
        missed |= report("rgba  7680x4320x4 u8", g_rgba, 2500);
        peers(&s, 10, st[0], g_rgba);
        set_free(&s);
        set_make(&s, 8, 7680, 4320, 1, MGPU_PIXEL_U8);    /* 8 x 66 MB */
        g_gray = run(&s, &p, 24, st, 1);
        missed |= report("gray  7680x4320x1 u8", g_gray, 2000);
        peers(&s, 24, st[0], g_gray);
        set_free(&s);
        set_make(&s, 64, 3840, 2160, 4, MGPU_PIXEL_U8);   /* 64 x 66 MB */
        g_batch = run(&s, &p, 64, st, 1);
        report("batch 64 x 3840x2160x4 u8, one stream", g_batch, 0);
        peers(&s, 64, st[0], g_batch);
        report("batch 64 x 3840x2160x4 u8, 3 streams", run(&s, &p, 64, st, 3), 0);
        {
            multi m;
            memset(&m, 0, sizeof m);
            m.devs = &dev;
            m.k = 1;
            m.p = &p;
            memcpy(m.src, s.src, sizeof m.src);
            memcpy(m.dst, s.dst, sizeof m.dst);
            missed |= report("batch 64 x 3840x2160x4 u8, mgpu_blur_batch", (double)s.bytes * 64 / wall_median(call_batch, &m) / 1e9, 2500);
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
        report("info  7680x4320x4 u8 radius 5", run(&s, &p, 4, st, 1), 0);
        p.radius = 0;
        set_free(&s);
    }

    if (radii_on) {
        static const struct { const char *name, *label; int count, w, h, C; mgpu_pixel_format f; int calls; } im[] = {
            { "rgba", "radii rgba 7680x4320x4 u8", 2, 7680, 4320, 4, MGPU_PIXEL_U8, 6 },
            { "gray", "radii gray 7680x4320x1 u8", 8, 7680, 4320, 1, MGPU_PIXEL_U8, 16 },
            { "rgb", "radii rgb 7680x4320x3 u8", 2, 7680, 4320, 3, MGPU_PIXEL_U8, 6 },
            { "f32", "radii rgba 3840x2160x4 f32", 4, 3840, 2160, 4, MGPU_PIXEL_F32, 8 },
            { "f32gray", "radii gray 3840x2160x1 f32", 8, 3840, 2160, 1, MGPU_PIXEL_F32, 16 } };
        for (i = 0; i < (int)(sizeof im / sizeof im[0]); i++) {
            const size_t len = strlen(im[i].name);
            const char *q;
            for (q = images; (q = strstr(q, im[i].name)) != NULL; q += len)
                if ((q == images || q[-1] == ',') && (q[len] == ',' || !q[len])) break;
            if (!q) continue;
            set_make(&s, im[i].count, im[i].w, im[i].h, im[i].C, im[i].f);
            differ += radii_case(im[i].label, &s, im[i].calls, st[0]);
            set_free(&s);
        }
    }
    if (sweep) {
        size_t len = 0;
        unsigned char *image = read_file(variants, &len);
        mgpu_module mod;
        if (!image) {
            printf("sweep: %s not found or empty (built by `make bench` with nvcc): skipped\n", variants);
        } else if (mgpu_module_create(image, len, &mod) != MGPU_SUCCESS || mgpu_module_load(mod, dev) != MGPU_SUCCESS) {
            printf("sweep: cannot load %s: %s\n", variants, mgpu_last_error());
            differ = 1;
        } else {
            set_make(&s, 2, 7680, 4320, 4, MGPU_PIXEL_U8);
            differ += sweep_case("rgba", &s, 10, mod, &p, st[0], info.multiprocessors, g_rgba);
            set_free(&s);
            set_make(&s, 8, 7680, 4320, 1, MGPU_PIXEL_U8);
            differ += sweep_case("gray", &s, 24, mod, &p, st[0], info.multiprocessors, g_gray);
            set_free(&s);
            set_make(&s, 64, 3840, 2160, 4, MGPU_PIXEL_U8);
            differ += sweep_case("batch", &s, 64, mod, &p, st[0], info.multiprocessors, g_batch);
            set_free(&s);
            mgpu_module_destroy(mod);
            printf("sweep: %s\n", differ ? "SOME VARIANTS DIFFER FROM THE CPU DEVICE (exit 1)"
                                         : "every variant's output is identical to the CPU device's");
        }
        free(image);
    }
    if (multi_on) {
        if (ndev < 0 || ndev > mgpu_device_count()) ndev = mgpu_device_count();
        missed |= multi_section(ndev, &p, dev);
    }
    for (i = 0; i < 3; i++) mgpu_stream_destroy(st[i]);
    mgpu_shutdown();
    return differ ? 1 : missed ? 3 : 0;
}
