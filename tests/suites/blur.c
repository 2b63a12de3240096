/* tests/suites/blur.c - tests of mgpu's Gaussian blur (mgpu_blur_*). Built and run by
   `make test-unit` (build/suite_blur) and `make test-asan`; the CUDA cases run when a GPU
   is present and are skipped, with the reason, otherwise (TEST_BLUR_SEED=n for other
   random images; -v for detail).

   What it checks:
   - the weights follow the documented rule (recomputed here with libm), including the
     centre's correction at large radii, and are >= 0 summing to 4096 at every radius
     0..64 over a range of sigmas;
   - the CPU device equals a direct 2D convolution: bit for bit for 8-bit images (same
     fixed-point weights, one rounding), within 1e-5 for f32 (reference in double), at
     radius 0..16 and (small images, most narrower or shorter than the radius) 17, 33, 64;
   - pitches (padded, unaligned, 0 = packed), unaligned data, row padding left alone;
   - bad inputs get their own status and message;
   - band split over 1, 2 and 4 devices and batches over devices equal one device's result;
   - with CUDA: every GPU against the CPU device on random images (8-bit identical, f32
     within 1e-5), every kernel family, all borders, channels 1..4, radius 0..32 and 64,
     odd sizes (some narrower or shorter than the radius), padded and unaligned pitches;
     split and batch over GPUs with images in pageable, pinned and device memory. */
#define MGPU_IMPLEMENTATION
#include "mgpu.h"
#include "tests/suites/suite.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int verbose, quick;             /* quick: TEST_BLUR_QUICK=1; 2: the sanitizer set (see test_cuda) */

/* ---- test images: host memory with a canary in the padding and around */
#define CANARY 0xA5
typedef struct timg {
    unsigned char *mem;
    size_t bytes, offset;
    mgpu_image im;
} timg;

static size_t esize(mgpu_pixel_format f) { return f == MGPU_PIXEL_U8 ? 1 : 4; }
static size_t rowbytes_of(const mgpu_image *im) { return (size_t)im->width * (size_t)im->channels * esize(im->format); }
static size_t pitch_of(const mgpu_image *im) { return im->pitch ? im->pitch : rowbytes_of(im); }
static size_t span_of(const mgpu_image *im) { return (size_t)(im->height - 1) * pitch_of(im) + rowbytes_of(im); }

/* extra: bytes of padding per row (0: pitch 0, packed); offset: bytes before the data. */
static void timg_make(timg *t, int w, int h, int c, mgpu_pixel_format f, size_t extra, size_t offset)
{
    memset(t, 0, sizeof *t);
    t->im.width = w;
    t->im.height = h;
    t->im.channels = c;
    t->im.format = f;
    t->im.pitch = extra ? rowbytes_of(&t->im) + extra : 0;
    t->offset = offset;
    t->bytes = offset + span_of(&t->im) + 32;
    t->mem = (unsigned char *)malloc(t->bytes);
    if (!t->mem) { printf("FAIL out of memory\n"); exit(1); }
    memset(t->mem, CANARY, t->bytes);
    t->im.data = t->mem + offset;
}
static void timg_free(timg *t) { free(t->mem); t->mem = NULL; }

static float rnd_float(void) { return (float)(rnd() >> 40) / (float)(1 << 24); }

/* Random pixel values; padding keeps the canary. */
static void timg_random(timg *t)
{
    const mgpu_image *im = &t->im;
    size_t rb = rowbytes_of(im), p = pitch_of(im), x;
    int y;
    for (y = 0; y < im->height; y++) {
        unsigned char *row = (unsigned char *)im->data + (size_t)y * p;
        if (im->format == MGPU_PIXEL_U8) for (x = 0; x < rb; x++) row[x] = (unsigned char)(rnd() >> 56);
        else for (x = 0; x < rb / 4; x++) { float v = rnd_float(); memcpy(row + 4 * x, &v, 4); }
    }
}

static float getf(const mgpu_image *im, int y, int x)
{
    float v;
    memcpy(&v, (const unsigned char *)im->data + (size_t)y * pitch_of(im) + 4 * (size_t)x, 4);
    return v;
}
static unsigned getb(const mgpu_image *im, int y, int x) { return ((const unsigned char *)im->data)[(size_t)y * pitch_of(im) + x]; }

/* Every byte outside the pixels still holds the canary. */
static int canary_ok(const timg *t)
{
    const mgpu_image *im = &t->im;
    size_t rb = rowbytes_of(im), p = pitch_of(im), i;
    for (i = 0; i < t->bytes; i++) {
        size_t o = i - t->offset;
        if (i >= t->offset && o < span_of(im) && o % p < rb) continue;
        if (t->mem[i] != CANARY) return 0;
    }
    return 1;
}

/* Compares the pixels: 8-bit exactly, f32 within tol (relative to max(1, |ref|)). Returns
   the number of mismatches and describes the first in why. */
static long compare(const mgpu_image *got, const mgpu_image *want, double tol, char *why, size_t cap)
{
    long bad = 0;
    int y, x, n = got->width * got->channels;
    why[0] = 0;
    for (y = 0; y < got->height; y++)
        for (x = 0; x < n; x++) {
            int differ;
            double a, b;
            if (got->format == MGPU_PIXEL_U8) { a = getb(got, y, x); b = getb(want, y, x); differ = a != b; }
            else { a = getf(got, y, x); b = getf(want, y, x); differ = !(fabs(a - b) <= tol * (fabs(b) > 1 ? fabs(b) : 1)); }
            if (differ && !bad++) snprintf(why, cap, "row %d value %d (pixel %d channel %d): got %.9g want %.9g",
                                           y, x, x / got->channels, x % got->channels, a, b);
        }
    return bad;
}

/* ---- the reference: direct 2D convolution, its own border rule */
static int ref_map(int p, int n, mgpu_border b)
{
    int period;
    if (p >= 0 && p < n) return p;
    if (b == MGPU_BORDER_REPLICATE) return p < 0 ? 0 : n - 1;
    if (b == MGPU_BORDER_CONSTANT) return -1;
    if (n == 1) return 0;
    period = 2 * (n - 1);
    p %= period;
    if (p < 0) p += period;
    return p < n ? p : period - p;
}

static void ref_blur(const mgpu_image *src, const mgpu_image *dst, int r, mgpu_border b, float cval,
                     const uint32_t *wi, const float *wf)
{
    const int w = src->width, h = src->height, c = src->channels;
    int y, x, ch, dy, dx;
    for (y = 0; y < h; y++)
        for (x = 0; x < w; x++)
            for (ch = 0; ch < c; ch++) {
                uint64_t acc = 0;
                double accd = 0.0;
                for (dy = -r; dy <= r; dy++)
                    for (dx = -r; dx <= r; dx++) {
                        int my = ref_map(y + dy, h, b), mx = ref_map(x + dx, w, b);
                        double v;
                        if (my < 0 || mx < 0) v = src->format == MGPU_PIXEL_U8 ? floor(cval + 0.5) : cval;
                        else v = src->format == MGPU_PIXEL_U8 ? getb(src, my, mx * c + ch) : getf(src, my, mx * c + ch);
                        if (src->format == MGPU_PIXEL_U8) acc += (uint64_t)wi[abs(dy)] * wi[abs(dx)] * (uint64_t)v;
                        else accd += (double)wf[abs(dy)] * (double)wf[abs(dx)] * v;
                    }
                if (src->format == MGPU_PIXEL_U8)
                    ((unsigned char *)dst->data)[(size_t)y * pitch_of(dst) + (size_t)x * c + ch] = (unsigned char)((acc + (1u << 23)) >> 24);
                else {
                    float f = (float)accd;
                    memcpy((unsigned char *)dst->data + (size_t)y * pitch_of(dst) + 4 * ((size_t)x * c + ch), &f, 4);
                }
            }
}

static const char *border_name(mgpu_border b)
{
    return b == MGPU_BORDER_REPLICATE ? "replicate" : b == MGPU_BORDER_REFLECT_101 ? "reflect101" : "constant";
}
static mgpu_blur_params params_of(float sigma, int r, mgpu_border b, float cval)
{
    mgpu_blur_params p;
    memset(&p, 0, sizeof p);
    p.sigma = sigma;
    p.radius = r == 0 ? MGPU_BLUR_RADIUS_ZERO : r;
    p.border = b;
    p.border_value = cval;
    return p;
}

/* ---- weights */
/* The documented 8-bit rule: W[k] = floor(4096 w[k] + 0.5) for k >= 1, W[0] the rest; above
   radius 16, while W[0] is more than 1 below (above) 4096 w[0], the side weight rounded up
   (down) the most, ties the outermost, is lowered (raised) by 1. Returns how many moved. */
static int doc_weights(const double *g, double total, int r, uint32_t *want)
{
    int side = 0, k, moved = 0;
    for (k = 1; k <= r; k++) side += (int)(want[k] = (uint32_t)floor(g[k] / total * 4096 + 0.5));
    while (r > 16 && fabs(4096 - 2 * side - g[0] / total * 4096) > 1) {
        const int dir = 4096 - 2 * side < g[0] / total * 4096 ? 1 : -1;
        int pick = 0;
        for (k = 1; k <= r; k++) {
            const double off = dir * (want[k] - g[k] / total * 4096);
            if (off > 0 && (!pick || off >= dir * (want[pick] - g[pick] / total * 4096))) pick = k;
        }
        if (!pick) break;
        want[pick] -= (uint32_t)dir;
        side -= dir;
        moved++;
    }
    want[0] = (uint32_t)(4096 - 2 * side);
    return moved;
}

static void test_weights(void)
{
    static const struct { float sigma; int radius; } cases[] = {
        { 0, 0 }, { 2, 2 }, { 1, 1 }, { 0.5f, 8 }, { 3, 8 }, { 100, 16 }, { 1e-20f, 4 }, { 2, MGPU_BLUR_RADIUS_ZERO }, { 7.5f, 16 },
        { 10, 32 }, { 21, 64 }, { 1e30f, 64 }, { 783.87f, 50 }, { 681.46f, 54 }, { 570.48f, 57 }, { 3e38f, 63 }
    };
    size_t i;
    int good = 1, k, lowered = 0;
    char why[2048] = "";
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        mgpu_blur_params p;
        uint32_t wi[MGPU_BLUR_MAX_RADIUS + 1], want[MGPU_BLUR_MAX_RADIUS + 1], side = 0;
        float wf[MGPU_BLUR_MAX_RADIUS + 1];
        double g[MGPU_BLUR_MAX_RADIUS + 1], total = 0, sigma;
        int r = -5, want_r;
        memset(&p, 0, sizeof p);
        p.sigma = cases[i].sigma;
        p.radius = cases[i].radius;
        if (mgpu_blur_weights(&p, &r, wi, wf) != MGPU_SUCCESS) { good = 0; snprintf(why, sizeof why, "case %zu failed", i); break; }
        want_r = p.radius == MGPU_BLUR_RADIUS_ZERO ? 0 : p.radius ? p.radius : 2;
        sigma = p.sigma ? p.sigma : 2.0;
        if (r != want_r) { good = 0; snprintf(why, sizeof why, "case %zu: radius %d", i, r); break; }
        for (k = 0; k <= r; k++) { g[k] = exp(-(double)k * k / (2 * sigma * sigma)); total += k ? 2 * g[k] : g[k]; }
        lowered += doc_weights(g, total, r, want);
        for (k = 0; k <= r; k++) {
            side += k ? wi[k] : 0;
            if (wi[k] != want[k]) { good = 0; snprintf(why, sizeof why, "case %zu: W[%d] = %u, want %u", i, k, wi[k], want[k]); }
        }
        if (wi[0] + 2 * side != 4096 || wi[0] > 4096) {
            good = 0;
            snprintf(why, sizeof why, "case %zu: W[0] = %d, weights sum to %u", i, (int)wi[0], wi[0] + 2 * side);
        }
        for (k = 0; k <= r; k++)
            if (fabs(wf[k] - g[k] / total) > 1e-7) { good = 0; snprintf(why, sizeof why, "case %zu: f[%d] = %.9g", i, k, wf[k]); }
        for (k = r + 1; k <= MGPU_BLUR_MAX_RADIUS; k++)
            if (wi[k] || wf[k] != 0.0f) { good = 0; snprintf(why, sizeof why, "case %zu: entry %d past the radius", i, k); }
        if (verbose) {
            printf("     sigma %g radius %d:", sigma, r);
            for (k = 0; k <= r; k++) printf(" %u", wi[k]);
            printf("\n");
        }
    }
    report(good && lowered > 0, "weights: W[k] = floor(4096 w[k] + 0.5), W[0] takes the rest, sum 4096, above radius 16 "
           "side weights moved until |W[0] - 4096 w[0]| <= 1 (%d moved in %zu cases up to radius 64); f32 = (float)w %s", lowered,
           sizeof cases / sizeof cases[0], why);
    {   /* every radius, sigmas from 0.05 to 1e5 and FLT_MAX: W[k] >= 0, W[0] > 30, sum 4096 */
        int r, si, nbad = 0, worst_r = 0;
        uint32_t least = 4096;
        float worst_sigma = 0;
        for (r = 1; r <= MGPU_BLUR_MAX_RADIUS; r++)
            for (si = 0; si <= 300; si++) {
                mgpu_blur_params p;
                uint32_t wi[MGPU_BLUR_MAX_RADIUS + 1], sum;
                memset(&p, 0, sizeof p);
                p.radius = r;
                p.sigma = si == 300 ? 3.402823466e+38f : 0.05f * powf(1.05f, (float)si);
                if (mgpu_blur_weights(&p, NULL, wi, NULL) != MGPU_SUCCESS) { nbad++; continue; }
                for (sum = wi[0], k = 1; k <= r; k++) sum += 2 * wi[k];
                for (k = 0; k <= r; k++) if (wi[k] > 4096) nbad++;
                if (sum != 4096 || wi[0] < 31) nbad++;
                if (wi[0] < least) { least = wi[0]; worst_r = r; worst_sigma = p.sigma; }
            }
        report(nbad == 0, "weights >= 0 (centre >= 31) summing to 4096 at radius 1..%d, sigma 0.05..1e5 and FLT_MAX: %d bad; least "
               "centre W[0] = %u (radius %d, sigma %g)", MGPU_BLUR_MAX_RADIUS, nbad, least, worst_r, (double)worst_sigma);
    }
    {   /* the default is the normalized 5x5 exp(-(dx^2+dy^2)/8) */
        uint32_t wi[MGPU_BLUR_MAX_RADIUS + 1];
        float wf[MGPU_BLUR_MAX_RADIUS + 1];
        double total = 0, worst = 0;
        int r = 0, dx, dy;
        mgpu_blur_weights(NULL, &r, wi, wf);
        for (dy = -2; dy <= 2; dy++) for (dx = -2; dx <= 2; dx++) total += exp(-(dx * dx + dy * dy) / 8.0);
        for (dy = -2; dy <= 2; dy++)
            for (dx = -2; dx <= 2; dx++) {
                double e = fabs(exp(-(dx * dx + dy * dy) / 8.0) / total - (double)wf[abs(dx)] * wf[abs(dy)]);
                if (e > worst) worst = e;
            }
        report(r == 2 && worst < 1e-7 && wi[0] == 1028 && wi[1] == 909 && wi[2] == 625,
               "default weights: radius %d, 8-bit %u %u %u, f32 outer product = normalized 5x5 exp(-(dx2+dy2)/8) "
               "(max error %.1e)", r, wi[0], wi[1], wi[2], worst);
    }
}

/* ---- the CPU device against the 2D reference */
static const int sizes[][2] = { { 1, 1 }, { 2, 2 }, { 7, 3 }, { 3, 7 }, { 1, 40 }, { 40, 1 }, { 33, 17 }, { 97, 45 } };
static const int radii[] = { 0, 1, 2, 3, 4, 5, 8, 16 };
/* large radii: small images (the reference is 2D), most narrower or shorter than the radius */
static const int wide_sizes[][2] = { { 1, 1 }, { 2, 3 }, { 7, 3 }, { 3, 40 }, { 40, 2 }, { 23, 9 } };
static const int wide_radii[] = { 17, 33, 64 };

static void test_cpu_reference(mgpu_stream cpu)
{
    const mgpu_border borders[3] = { MGPU_BORDER_REPLICATE, MGPU_BORDER_REFLECT_101, MGPU_BORDER_CONSTANT };
    int fi, bi, wide;
    for (wide = 0; wide < 2; wide++)
    for (fi = 0; fi < 2; fi++)
        for (bi = 0; bi < 3; bi++) {
            const mgpu_pixel_format f = fi ? MGPU_PIXEL_F32 : MGPU_PIXEL_U8;
            const int (*const sz)[2] = wide ? wide_sizes : sizes, *const rad = wide ? wide_radii : radii;
            const size_t nsz = wide ? sizeof wide_sizes / sizeof wide_sizes[0] : sizeof sizes / sizeof sizes[0];
            const size_t nrad = wide ? sizeof wide_radii / sizeof wide_radii[0] : sizeof radii / sizeof radii[0];
            long cases = 0, bad = 0;
            char why[2048] = "";
            size_t si, ri;
            int c;
            for (si = 0; si < nsz; si++)
                for (c = 1; c <= 4; c++)
                    for (ri = 0; ri < nrad; ri++) {
                        timg src, dst, ref;
                        mgpu_blur_params p = params_of(wide ? 0.4f * (float)rad[ri] : ri % 3 ? 2.0f : 1.3f, rad[ri], borders[bi],
                                                       f == MGPU_PIXEL_U8 ? 77.0f : 0.3f);
                        uint32_t wi[MGPU_BLUR_MAX_RADIUS + 1];
                        float wf[MGPU_BLUR_MAX_RADIUS + 1];
                        int r = 0;
                        char w2[256];
                        mgpu_result res;
                        long n;
                        timg_make(&src, sz[si][0], sz[si][1], c, f, 0, 0);
                        timg_make(&dst, sz[si][0], sz[si][1], c, f, 8, 4);
                        timg_make(&ref, sz[si][0], sz[si][1], c, f, 0, 0);
                        timg_random(&src);
                        mgpu_blur_weights(&p, &r, wi, wf);
                        ref_blur(&src.im, &ref.im, r, borders[bi], p.border_value, wi, wf);
                        res = mgpu_blur(&src.im, &dst.im, &p, cpu);
                        n = res == MGPU_SUCCESS ? compare(&dst.im, &ref.im, 1e-5, w2, sizeof w2) : -1;
                        cases++;
                        if (n != 0 || !canary_ok(&dst)) {
                            if (!bad++) snprintf(why, sizeof why, ": %dx%dx%d r=%d: %s", sz[si][0], sz[si][1], c, r,
                                                 n < 0 ? mgpu_last_error() : n ? w2 : "row padding overwritten");
                        }
                        timg_free(&src); timg_free(&dst); timg_free(&ref);
                    }
            report(bad == 0, "CPU device %s %s == direct 2D convolution (%s): %ld cases (%s), %ld wrong%s", fi ? "f32" : "u8",
                   border_name(borders[bi]), fi ? "f32 within 1e-5" : "bit for bit", cases,
                   wide ? "6 sizes up to 23x9 x 4 channels x radius 17, 33, 64" : "8 sizes x 4 channels x radius 0..5,8,16",
                   bad, why);
        }
    {   /* extremes: a constant image stays constant; 255 never overflows */
        int good = 1, v;
        for (v = 0; v < 3 && good; v++) {
            const unsigned val = v == 0 ? 0 : v == 1 ? 255 : 128;
            timg src, dst;
            mgpu_blur_params p = params_of(1000.0f, 16, MGPU_BORDER_CONSTANT, (float)val);
            size_t i;
            timg_make(&src, 61, 29, 4, MGPU_PIXEL_U8, 0, 0);
            timg_make(&dst, 61, 29, 4, MGPU_PIXEL_U8, 0, 0);
            memset(src.im.data, (int)val, span_of(&src.im));
            good = mgpu_blur(&src.im, &dst.im, &p, cpu) == MGPU_SUCCESS;
            for (i = 0; good && i < span_of(&dst.im); i++) good = ((unsigned char *)dst.im.data)[i] == val;
            timg_free(&src); timg_free(&dst);
        }
        report(good, "CPU device: constant images of 0, 128, 255 stay constant (radius 16, sigma 1000, constant border)");
    }
}

/* The result of the CPU device for src (into a packed new image). */
static void cpu_result(mgpu_stream cpu, const mgpu_image *src, const mgpu_blur_params *p, timg *out)
{
    timg_make(out, src->width, src->height, src->channels, src->format, 0, 0);
    if (mgpu_blur(src, &out->im, p, cpu) != MGPU_SUCCESS) { printf("FAIL cpu_result: %s\n", mgpu_last_error()); nfail++; }
}

/* ---- pitches and alignment on the CPU device */
static void test_pitch(mgpu_stream cpu)
{
    static const struct { size_t sextra, soff, dextra, doff; } layouts[] = {
        { 0, 0, 0, 0 }, { 16, 0, 3, 1 }, { 3, 1, 0, 0 }, { 5, 3, 64, 0 }, { 1, 1, 1, 1 }
    };
    int good = 1, fi, c;
    size_t li;
    char why[2048] = "";
    for (fi = 0; fi < 2; fi++)
        for (c = 1; c <= 4; c++)
            for (li = 0; li < sizeof layouts / sizeof layouts[0]; li++) {
                const mgpu_pixel_format f = fi ? MGPU_PIXEL_F32 : MGPU_PIXEL_U8;
                const size_t m = fi ? 4 : 1;        /* f32: keep 4-byte alignment */
                mgpu_blur_params p = params_of(1.7f, 3, MGPU_BORDER_REFLECT_101, 0);
                timg src, dst, want;
                char w2[256];
                long n;
                timg_make(&src, 45, 23, c, f, layouts[li].sextra * m, layouts[li].soff * m);
                timg_make(&dst, 45, 23, c, f, layouts[li].dextra * m, layouts[li].doff * m);
                timg_random(&src);
                cpu_result(cpu, &src.im, &p, &want);
                /* the reference: the same pixels packed */
                if (mgpu_blur(&src.im, &dst.im, &p, cpu) != MGPU_SUCCESS) { good = 0; snprintf(why, sizeof why, ": %s", mgpu_last_error()); }
                else if ((n = compare(&dst.im, &want.im, 0, w2, sizeof w2)) || !canary_ok(&dst)) {
                    good = 0;
                    snprintf(why, sizeof why, ": %s c=%d layout %zu: %s", fi ? "f32" : "u8", c, li, n ? w2 : "padding written");
                }
                timg_free(&src); timg_free(&dst); timg_free(&want);
            }
    {   /* the packed result equals the 2D reference with padded pitches too */
        timg src, dst, ref;
        mgpu_blur_params p = params_of(2, 2, MGPU_BORDER_REPLICATE, 0);
        uint32_t wi[MGPU_BLUR_MAX_RADIUS + 1];
        float wf[MGPU_BLUR_MAX_RADIUS + 1];
        int r;
        char w2[256];
        timg_make(&src, 67, 31, 3, MGPU_PIXEL_U8, 7, 1);
        timg_make(&dst, 67, 31, 3, MGPU_PIXEL_U8, 13, 3);
        timg_make(&ref, 67, 31, 3, MGPU_PIXEL_U8, 0, 0);
        timg_random(&src);
        mgpu_blur_weights(&p, &r, wi, wf);
        ref_blur(&src.im, &ref.im, r, MGPU_BORDER_REPLICATE, 0, wi, wf);
        if (mgpu_blur(&src.im, &dst.im, &p, cpu) != MGPU_SUCCESS || compare(&dst.im, &ref.im, 0, w2, sizeof w2) || !canary_ok(&dst)) {
            good = 0;
            snprintf(why, sizeof why, ": unaligned pitches vs 2D reference");
        }
        timg_free(&src); timg_free(&dst); timg_free(&ref);
    }
    report(good, "CPU device: padded, unaligned and packed pitches and unaligned data give the packed result; "
           "row padding untouched%s", why);
}

/* ---- bad inputs */
static void test_bad_inputs(mgpu_stream cpu)
{
    timg a, b;
    mgpu_image s, d, big;
    mgpu_blur_params p;
    int good = 1;
    char why[2048] = "";
    size_t i;
    struct bad { const char *what; mgpu_result want; const char *msg; } results[32];
    int n = 0;
    timg_make(&a, 16, 8, 4, MGPU_PIXEL_U8, 0, 0);
    timg_make(&b, 16, 8, 4, MGPU_PIXEL_U8, 0, 0);
#define BAD(what_, call_, want_, msg_) do { mgpu_result r_ = (call_); \
        if (r_ != (want_) || !strstr(mgpu_last_error(), msg_)) { good = 0; \
            snprintf(why, sizeof why, ": %s gave %s \"%s\", want %s \"...%s...\"", what_, mgpu_result_string(r_), \
                     mgpu_last_error(), mgpu_result_string(want_), msg_); } \
        else if (verbose) printf("     %-28s %s: %s\n", what_, mgpu_result_string(r_), mgpu_last_error()); \
        results[n].what = what_; results[n].want = want_; results[n].msg = msg_; n++; } while (0)
#define RESET() do { s = a.im; d = b.im; memset(&p, 0, sizeof p); } while (0)
    RESET(); BAD("src NULL", mgpu_blur(NULL, &d, NULL, cpu), MGPU_ERROR_INVALID_ARGUMENT, "src is NULL");
    RESET(); BAD("dst NULL", mgpu_blur(&s, NULL, NULL, cpu), MGPU_ERROR_INVALID_ARGUMENT, "dst is NULL");
    RESET(); s.data = NULL; BAD("src data NULL", mgpu_blur(&s, &d, NULL, cpu), MGPU_ERROR_INVALID_ARGUMENT, "src->data is NULL");
    RESET(); s.width = 0; BAD("zero width", mgpu_blur(&s, &d, NULL, cpu), MGPU_ERROR_INVALID_ARGUMENT, "width and height must be");
    RESET(); d.height = 0; BAD("zero height", mgpu_blur(&s, &d, NULL, cpu), MGPU_ERROR_INVALID_ARGUMENT, "width and height must be");
    RESET(); s.width = -3; BAD("negative width", mgpu_blur(&s, &d, NULL, cpu), MGPU_ERROR_INVALID_ARGUMENT, "width and height must be");
    RESET(); s.pitch = 63; BAD("pitch smaller than a row", mgpu_blur(&s, &d, NULL, cpu), MGPU_ERROR_INVALID_ARGUMENT, "smaller than a row");
    RESET(); big = s; big.width = 0x7fffffff; big.height = 0x7fffffff;
    BAD("width*height*channels overflow", mgpu_blur(&big, &d, NULL, cpu), MGPU_ERROR_SIZE_OVERFLOW, "larger than the limit");
    RESET(); big = s; big.width = 1 << 20; big.height = 1 << 20; big.pitch = SIZE_MAX / 4;
    BAD("rows * pitch overflow", mgpu_blur(&big, &d, NULL, cpu), MGPU_ERROR_SIZE_OVERFLOW, "overflow size_t");
    RESET(); p.sigma = -1; BAD("negative sigma", mgpu_blur(&s, &d, &p, cpu), MGPU_ERROR_INVALID_ARGUMENT, "is negative");
    RESET(); p.sigma = (float)nan(""); BAD("NaN sigma", mgpu_blur(&s, &d, &p, cpu), MGPU_ERROR_INVALID_ARGUMENT, "sigma is NaN");
    RESET(); p.sigma = (float)HUGE_VAL; BAD("infinite sigma", mgpu_blur(&s, &d, &p, cpu), MGPU_ERROR_INVALID_ARGUMENT, "sigma is infinite");
    RESET(); p.radius = MGPU_BLUR_MAX_RADIUS + 1;
    BAD("radius 65", mgpu_blur(&s, &d, &p, cpu), MGPU_ERROR_NOT_SUPPORTED, "radius = 65 is larger than MGPU_BLUR_MAX_RADIUS (64)");
    RESET(); p.radius = 0x7fffffff;
    BAD("radius INT_MAX", mgpu_blur_weights(&p, NULL, NULL, NULL), MGPU_ERROR_NOT_SUPPORTED, "radius = 2147483647 is larger");
    RESET(); p.radius = -2; BAD("negative radius", mgpu_blur(&s, &d, &p, cpu), MGPU_ERROR_INVALID_ARGUMENT, "radius = -2 is negative");
    RESET(); p.border = (mgpu_border)7; BAD("unknown border", mgpu_blur(&s, &d, &p, cpu), MGPU_ERROR_INVALID_ARGUMENT, "unknown border");
    RESET(); p.border = MGPU_BORDER_CONSTANT; p.border_value = 256;
    BAD("8-bit border_value 256", mgpu_blur(&s, &d, &p, cpu), MGPU_ERROR_INVALID_ARGUMENT, "outside [0, 255]");
    RESET(); s.channels = 5; BAD("5 channels", mgpu_blur(&s, &d, NULL, cpu), MGPU_ERROR_INVALID_ARGUMENT, "channels: use 1, 2, 3 or 4");
    RESET(); s.channels = 0; BAD("0 channels", mgpu_blur(&s, &d, NULL, cpu), MGPU_ERROR_INVALID_ARGUMENT, "channels: use 1, 2, 3 or 4");
    RESET(); s.format = (mgpu_pixel_format)9; BAD("unknown format", mgpu_blur(&s, &d, NULL, cpu), MGPU_ERROR_INVALID_ARGUMENT, "unknown pixel format");
    RESET(); d.channels = 3; BAD("shape mismatch", mgpu_blur(&s, &d, NULL, cpu), MGPU_ERROR_INVALID_ARGUMENT, "must match");
    RESET(); BAD("in place", mgpu_blur(&s, &s, NULL, cpu), MGPU_ERROR_INVALID_ARGUMENT, "blurring in place is not supported");
    RESET(); d.data = (unsigned char *)s.data + 16;
    BAD("overlap", mgpu_blur(&s, &d, NULL, cpu), MGPU_ERROR_INVALID_ARGUMENT, "blurring in place is not supported");
    RESET(); s.format = MGPU_PIXEL_F32; s.channels = 1; s.data = (unsigned char *)s.data + 2; d.format = MGPU_PIXEL_F32; d.channels = 1;
    BAD("f32 unaligned", mgpu_blur(&s, &d, NULL, cpu), MGPU_ERROR_INVALID_ARGUMENT, "must be 4-byte aligned");
    RESET(); BAD("batch count < 0", mgpu_blur_batch(&s, &d, -1, NULL, NULL, 0), MGPU_ERROR_INVALID_ARGUMENT, "count = -1");
    RESET(); BAD("batch NULL arrays", mgpu_blur_batch(NULL, &d, 2, NULL, NULL, 0), MGPU_ERROR_INVALID_ARGUMENT, "src or dst is NULL");
    RESET(); p.radius = 99; BAD("split radius too large", mgpu_blur_split(&s, &d, &p, NULL, 0), MGPU_ERROR_NOT_SUPPORTED, "MGPU_BLUR_MAX_RADIUS");
    RESET(); BAD("split bad device", mgpu_blur_split(&s, &d, NULL, NULL, 99), MGPU_ERROR_INVALID_ARGUMENT, "ndevs = 99");
    {
        mgpu_image ss[2], dd[2];
        RESET(); ss[0] = s; ss[1] = s; dd[0] = d; dd[1] = d; ss[1].width = 0;
        BAD("batch image 1 bad", mgpu_blur_batch(ss, dd, 2, NULL, NULL, 0), MGPU_ERROR_INVALID_ARGUMENT, "src[1] is 0 x 8");
    }
    {   /* a buffer that runs past its mgpu allocation */
        void *small = NULL;
        mgpu_set_device(mgpu_cpu_device(0));
        mgpu_malloc(&small, 100);
        RESET(); s.data = small;
        BAD("past the allocation", mgpu_blur(&s, &d, NULL, cpu), MGPU_ERROR_INVALID_ARGUMENT, "run past the end");
        mgpu_free(small);
        mgpu_set_device(0);
    }
    /* distinct messages: every case's expected text is its own */
    for (i = 0; i < (size_t)n; i++) {
        int j;
        for (j = 0; j < (int)i; j++)
            if (results[j].want == results[i].want && !strcmp(results[j].msg, results[i].msg) &&
                strcmp(results[j].msg, "width and height must be") && strcmp(results[j].msg, "channels: use 1, 2, 3 or 4") &&
                strcmp(results[j].msg, "blurring in place is not supported")) {
                good = 0;
                snprintf(why, sizeof why, ": %s and %s share a message", results[j].what, results[i].what);
            }
    }
    {   /* nothing was written to dst by any rejected call */
        size_t k;
        for (k = 0; k < span_of(&b.im); k++)
            if (((unsigned char *)b.im.data)[k] != CANARY) { good = 0; snprintf(why, sizeof why, ": a rejected call wrote dst"); break; }
    }
    {   /* the largest radius is accepted */
        RESET(); p.radius = MGPU_BLUR_MAX_RADIUS;
        if (mgpu_blur(&s, &d, &p, cpu) != MGPU_SUCCESS) { good = 0; snprintf(why, sizeof why, ": radius 64: %s", mgpu_last_error()); }
    }
    report(good, "bad inputs: %d cases, each with its status and message, dst untouched; radius 64 accepted%s", n, why);
#undef BAD
#undef RESET
    timg_free(&a);
    timg_free(&b);
}

/* ---- split and batch on a set of devices, against the CPU device */
static int split_case(mgpu_stream cpu, const mgpu_device *devs, int ndevs, int w, int h, int c, mgpu_pixel_format f,
                      int r, mgpu_border b, char *why, size_t cap)
{
    timg src, dst, want;
    mgpu_blur_params p = params_of(1.5f + 0.25f * r, r, b, f == MGPU_PIXEL_U8 ? 200.0f : -0.5f);
    int good = 1;
    char w2[256];
    timg_make(&src, w, h, c, f, f == MGPU_PIXEL_U8 ? 3 : 0, 0);
    timg_make(&dst, w, h, c, f, 4, 0);
    timg_random(&src);
    cpu_result(cpu, &src.im, &p, &want);
    if (mgpu_blur_split(&src.im, &dst.im, &p, devs, ndevs) != MGPU_SUCCESS) {
        good = 0;
        snprintf(why, cap, "%dx%dx%d r=%d %s: %s", w, h, c, r, border_name(b), mgpu_last_error());
    } else if (compare(&dst.im, &want.im, 0, w2, sizeof w2) || !canary_ok(&dst)) {
        good = 0;
        snprintf(why, cap, "%dx%dx%d %s r=%d %s over %d devices: %s", w, h, c, f == MGPU_PIXEL_U8 ? "u8" : "f32", r,
                 border_name(b), ndevs, w2);
    }
    timg_free(&src); timg_free(&dst); timg_free(&want);
    return good;
}

static void test_split_cpu(mgpu_stream cpu)
{
    static const int heights[] = { 1, 2, 3, 5, 9, 40, 131 }, rs[] = { 0, 1, 2, 5, 8, 16, 40 };
    const mgpu_border borders[3] = { MGPU_BORDER_REPLICATE, MGPU_BORDER_REFLECT_101, MGPU_BORDER_CONSTANT };
    mgpu_device devs[4];
    int nd, i, good = 1, cases = 0;
    char why[2048] = "";
    for (i = 0; i < 4; i++) devs[i] = mgpu_cpu_device(i);
    for (nd = 1; nd <= 4; nd *= 2) {
        size_t hi, ri;
        int bi, fi;
        for (hi = 0; hi < sizeof heights / sizeof heights[0]; hi++)
            for (ri = 0; ri < sizeof rs / sizeof rs[0]; ri++)
                for (bi = 0; bi < 3; bi++)
                    for (fi = 0; fi < 2; fi++) {
                        const int c = 1 + (int)((hi + ri + (size_t)bi) % 4);
                        cases++;
                        if (!split_case(cpu, devs, nd, 23 + (int)hi, heights[hi], c, fi ? MGPU_PIXEL_F32 : MGPU_PIXEL_U8,
                                        rs[ri], borders[bi], why, sizeof why)) good = 0;
                    }
        report(good, "split over %d CPU device%s == one device: %d cases (heights 1..131 incl. fewer rows than devices, "
               "radius 0..16 and 40, all borders, u8 and f32) %s", nd, nd > 1 ? "s" : "", cases, why);
        cases = 0;
    }
}

/* What a GPU worker does with an image it cannot read in place, on the CPU device: the band
   [y0, y1) from an exact copy of the rows mgpu__blur_rows names (nothing more: a read
   outside would be a heap overflow under ASan), equal to those rows of the whole image. */
static void test_band_rows(mgpu_stream cpu)
{
    const mgpu_border borders[3] = { MGPU_BORDER_REPLICATE, MGPU_BORDER_REFLECT_101, MGPU_BORDER_CONSTANT };
    int iter, good = 1, tight = 1;
    char why[2048] = "";
    for (iter = 0; iter < 600 && good; iter++) {
        const int h = 1 + (int)(rnd() % 40), w = 1 + (int)(rnd() % 30), c = 1 + (int)(rnd() % 4);
        const int r = iter % 4 == 3 ? 17 + (int)(rnd() % 48) : (int)(rnd() % 17);   /* a quarter above 16 */
        const mgpu_border b = borders[rnd() % 3];
        const mgpu_pixel_format f = rnd() % 2 ? MGPU_PIXEL_F32 : MGPU_PIXEL_U8;
        int y0 = (int)(rnd() % (unsigned)h), y1 = y0 + 1 + (int)(rnd() % (unsigned)(h - y0)), lo, hi, y, mlo = h, mhi = -1;
        mgpu_blur_params p = params_of(r > 16 ? 0.4f * r : 2.0f, r, b, f == MGPU_PIXEL_U8 ? 9.0f : 2.5f);
        mgpu__blur_plan pl;
        mgpu__blur_args a;
        mgpu__stream_obj *cs = NULL;       /* the object behind the handle cpu */
        timg src, want;
        size_t rb, n;
        unsigned char *rows, *out;
        mgpu__blur_rows(y0, y1, h, r, &lo, &hi);
        for (y = y0 - r; y < y1 + r; y++) {
            int m = ref_map(y, h, b);
            if (m >= 0 && m < mlo) mlo = m;
            if (m >= 0 && m > mhi) mhi = m;
        }
        if (lo > mlo || hi < mhi + 1) { good = 0; snprintf(why, sizeof why, ": rows [%d, %d) miss [%d, %d]", lo, hi, mlo, mhi); break; }
        if (lo != mlo || hi != mhi + 1) tight = 0;
        timg_make(&src, w, h, c, f, 0, 0);
        timg_random(&src);
        cpu_result(cpu, &src.im, &p, &want);
        rb = rowbytes_of(&src.im);
        n = (size_t)(hi - lo) * rb;
        rows = (unsigned char *)malloc(n);
        out = (unsigned char *)malloc((size_t)(y1 - y0) * rb);
        memcpy(rows, (unsigned char *)src.im.data + (size_t)lo * rb, n);
        mgpu__blur_plan_make("test", &p, &pl);
        mgpu__blur_fill(&a, &pl, &src.im, rows, rb, lo, out, rb, y0, y1);
        if (mgpu__stream(cpu, &cs, "test") != MGPU_SUCCESS || mgpu__blur_run("test", f, &a, cs) != MGPU_SUCCESS ||
            memcmp(out, (unsigned char *)want.im.data + (size_t)y0 * rb, (size_t)(y1 - y0) * rb)) {
            good = 0;
            snprintf(why, sizeof why, ": %dx%dx%d r=%d %s rows [%d, %d) from [%d, %d) differ", w, h, c, r, border_name(b), y0, y1, lo, hi);
        }
        free(rows); free(out);
        timg_free(&src); timg_free(&want);
    }
    report(good && tight, "bands from exactly their rows [lo, hi) (halo rows, border only at the real edges) == the "
           "whole image's rows: 600 random bands%s%s", why, tight ? "" : " (row range not tight)");
}

/* A mixed batch: sizes, formats, channels, memory kinds of the devices given. */
static void test_batch(mgpu_stream cpu, const mgpu_device *devs, int ndevs, const char *label, int gpu_memory)
{
    enum { N = 13 };
    timg src[N], dst[N], want[N];
    mgpu_image s[N], d[N];
    void *devmem[2 * N];
    mgpu_blur_params p = params_of(2.5f, 3, MGPU_BORDER_REFLECT_101, 0);
    int i, good = 1, ndm = 0;
    char why[2048] = "";
    mgpu_result r;
    memset(devmem, 0, sizeof devmem);
    for (i = 0; i < N; i++) {
        const mgpu_pixel_format f = i % 3 == 2 ? MGPU_PIXEL_F32 : MGPU_PIXEL_U8;
        const int w = 1 + (int)(rnd() % 300), h = 1 + (int)(rnd() % 120), c = 1 + i % 4;
        timg_make(&src[i], w, h, c, f, i % 2 ? 0 : 12, 0);
        timg_make(&dst[i], w, h, c, f, i % 4 == 1 ? 8 : 0, 0);
        timg_random(&src[i]);
        cpu_result(cpu, &src[i].im, &p, &want[i]);
        s[i] = src[i].im;
        d[i] = dst[i].im;
    }
    /* some images in device memory: src, dst or both (copied in; read back after) */
    if (gpu_memory) {
        for (i = 0; i < N; i++) {
            const int kind = i % 4;     /* 0: host, 1: src on a device, 2: dst on a device, 3: both */
            const mgpu_device dev = devs[(i / 4) % ndevs];
            if (kind == 0) continue;
            mgpu_set_device(dev);
            if (kind & 1) {
                mgpu_malloc(&devmem[ndm], span_of(&s[i]));
                mgpu_memcpy(devmem[ndm], s[i].data, span_of(&s[i]));
                s[i].data = devmem[ndm++];
            }
            if (kind & 2) {
                mgpu_malloc(&devmem[ndm], span_of(&d[i]));
                mgpu_memcpy(devmem[ndm], d[i].data, span_of(&d[i]));   /* keeps the canary in the padding */
                d[i].data = devmem[ndm++];
            }
        }
        mgpu_set_device(0);
    }
    r = mgpu_blur_batch(s, d, N, &p, devs, ndevs);
    if (r != MGPU_SUCCESS) { good = 0; snprintf(why, sizeof why, ": %s", mgpu_last_error()); }
    for (i = 0; i < N && good; i++) {
        char w2[256];
        if (d[i].data != dst[i].im.data) mgpu_memcpy(dst[i].im.data, d[i].data, span_of(&d[i]));
        if (compare(&dst[i].im, &want[i].im, 0, w2, sizeof w2) || !canary_ok(&dst[i])) {
            good = 0;
            snprintf(why, sizeof why, ": image %d (%dx%dx%d): %s", i, s[i].width, s[i].height, s[i].channels, w2);
        }
    }
    for (i = 0; i < ndm; i++) mgpu_free(devmem[i]);
    for (i = 0; i < N; i++) { timg_free(&src[i]); timg_free(&dst[i]); timg_free(&want[i]); }
    report(good, "batch of %d mixed images over %s == one CPU device, image by image%s", N, label, why);
}

/* ---- CUDA */
/* One GPU case: upload, blur on the device, download, compare with the CPU device. */
static int gpu_case(mgpu_device dev, mgpu_stream cpu, int w, int h, int c, mgpu_pixel_format f, int r, mgpu_border b,
                    size_t sextra, size_t soff, size_t dextra, size_t doff, long *exact, char *why, size_t cap)
{
    timg src, dst, want;
    /* (large radii: a sigma that keeps the far taps' weights well above 0) */
    mgpu_blur_params p = params_of(r % 2 ? 1.1f * r : r > 16 ? 0.4f * r : 2.0f, r, b, f == MGPU_PIXEL_U8 ? 31.0f : 0.75f);
    void *ds = NULL, *dd = NULL;
    mgpu_image gs, gd;
    int good = 1;
    char w2[256];
    mgpu_stream s;
    timg_make(&src, w, h, c, f, sextra, 0);
    timg_make(&dst, w, h, c, f, dextra, 0);
    timg_random(&src);
    cpu_result(cpu, &src.im, &p, &want);
    mgpu_set_device(dev);
    mgpu_default_stream(dev, &s);
    gs = src.im;
    gd = dst.im;
    if (mgpu_malloc(&ds, span_of(&gs) + soff) != MGPU_SUCCESS || mgpu_malloc(&dd, span_of(&gd) + doff) != MGPU_SUCCESS) {
        snprintf(why, cap, "mgpu_malloc: %s", mgpu_last_error());
        good = 0;
    } else {
        gs.data = (unsigned char *)ds + soff;
        gd.data = (unsigned char *)dd + doff;
        mgpu_memcpy(gs.data, src.im.data, span_of(&gs));
        mgpu_memcpy(gd.data, dst.im.data, span_of(&gd));          /* the canary in the padding */
        if (mgpu_blur(&gs, &gd, &p, s) != MGPU_SUCCESS) {
            snprintf(why, cap, "%dx%dx%d r=%d: %s", w, h, c, r, mgpu_last_error());
            good = 0;
        } else {
            long n;
            mgpu_memcpy(dst.im.data, gd.data, span_of(&gd));
            n = compare(&dst.im, &want.im, f == MGPU_PIXEL_U8 ? 0 : 1e-5, w2, sizeof w2);
            if (n || !canary_ok(&dst)) {
                good = 0;
                snprintf(why, cap, "GPU %d %dx%dx%d %s r=%d %s pitch+%zu/%zu off %zu/%zu: %ld wrong, %s", dev, w, h, c,
                         f == MGPU_PIXEL_U8 ? "u8" : "f32", r, border_name(b), sextra, dextra, soff, doff, n,
                         n ? w2 : "row padding written");
            } else if (f == MGPU_PIXEL_F32) {
                *exact += compare(&dst.im, &want.im, 0, w2, sizeof w2) == 0;
            }
        }
    }
    mgpu_free(ds);
    mgpu_free(dd);
    mgpu_set_device(0);
    timg_free(&src); timg_free(&dst); timg_free(&want);
    return good;
}

/* An 8-bit image of w x h x c for the GPU-resident cases: src random, dst, want = the CPU
   device's result, and src's bytes in GPU 0's memory (ds; dd for a result) and in pinned
   host memory (ps; pd), n bytes each. Leaves GPU 0 the current device. */
typedef struct resident { timg src, dst, want; void *ds, *dd, *ps, *pd; size_t n; } resident;
static void resident_make(resident *m, mgpu_stream cpu, int w, int h, int c, const mgpu_blur_params *p)
{
    m->ds = m->dd = m->ps = m->pd = NULL;
    timg_make(&m->src, w, h, c, MGPU_PIXEL_U8, 0, 0);
    timg_make(&m->dst, w, h, c, MGPU_PIXEL_U8, 0, 0);
    timg_random(&m->src);
    cpu_result(cpu, &m->src.im, p, &m->want);
    m->n = span_of(&m->src.im);
    mgpu_set_device(0);
    mgpu_malloc(&m->ds, m->n); mgpu_malloc(&m->dd, m->n); mgpu_malloc_host(&m->ps, m->n); mgpu_malloc_host(&m->pd, m->n);
    mgpu_memcpy(m->ds, m->src.im.data, m->n);
    memcpy(m->ps, m->src.im.data, m->n);
}
static void resident_free(resident *m)
{
    mgpu_free(m->ds); mgpu_free(m->dd); mgpu_free_host(m->ps); mgpu_free_host(m->pd);
    timg_free(&m->src); timg_free(&m->dst); timg_free(&m->want);
}

static void test_cuda(mgpu_stream cpu)
{
    static const int gsizes[][2] = { { 1, 1 }, { 7, 3 }, { 3, 7 }, { 2, 40 }, { 129, 33 }, { 250, 37 }, { 1000, 9 }, { 517, 301 },
                                     { 256, 45 } };   /* (256: 16-byte rows for every channel count: the ring kernels) */
    const mgpu_border borders[3] = { MGPU_BORDER_REPLICATE, MGPU_BORDER_REFLECT_101, MGPU_BORDER_CONSTANT };
    const char *msg = "";
    int ngpu, dev;
    if (mgpu_cuda_status(&msg) != MGPU_SUCCESS) {
        skip("CUDA cases (GPU == CPU device, split and batch over GPUs): %s", msg);
        return;
    }
    ngpu = mgpu_device_count();
    for (dev = 0; dev < ngpu && dev < 2; dev++) {
        int fi;
        for (fi = 0; fi < 2; fi++) {
            const mgpu_pixel_format f = fi ? MGPU_PIXEL_F32 : MGPU_PIXEL_U8;
            const size_t m = fi ? 4 : 1;
            long cases = 0, bad = 0, exact = 0;
            char why[2048] = "";
            size_t si;
            int c, r, bi;
            for (si = 0; si < sizeof gsizes / sizeof gsizes[0]; si++)
                for (c = 1; c <= 4; c++)
                    for (bi = 0; bi < 3; bi++)
                        for (r = 0; r <= 33; r++) {
                            const int rr = r == 33 ? 64 : r;
                            /* quick: a ninth (radius > 16: an 18th; still 6 cases each); quick 2 (compute-
                               sanitizer's racecheck, slow per launch): every radius and channel count
                               once on an odd size and once on 16-byte rows (the ring kernels), one border */
                            if (quick == 1 && (si * 7 + (size_t)c * 3 + (size_t)bi + (size_t)r) % (rr > 16 ? 18 : 9) != 0) continue;
                            if (quick == 2 && ((si != 4 && si != 8) || bi != (c + r) % 3)) continue;
                            const int layout = (int)((si + (size_t)c + (size_t)bi + (size_t)r) % 3);
                            /* 0: packed; 1: 16-byte padded pitch at an aligned start; 2: unaligned pitch and start */
                            const size_t sx = layout == 0 ? 0 : layout == 1 ? 32 : 1 * m, so = layout == 2 ? 4 : 0;
                            const size_t dx = layout == 0 ? 0 : layout == 1 ? 16 : 3 * m, dof = layout == 2 ? 1 * m : 0;
                            cases++;
                            if (!gpu_case(dev, cpu, gsizes[si][0], gsizes[si][1], c, f, rr, borders[bi], sx, so, dx, dof,
                                          &exact, why, sizeof why)) bad++;
                        }
            report(bad == 0, "GPU %d %s == CPU device (%s): %ld cases (9 sizes x channels 1..4 x 3 borders x radius 0..32,64, "
                   "packed/padded/unaligned pitches%s), %ld wrong%s%s", dev, fi ? "f32" : "u8",
                   fi ? "within 1e-5" : "bit for bit", cases, quick == 1 ? "; TEST_BLUR_QUICK: a ninth of them, an 18th above radius 16"
                   : quick ? "; TEST_BLUR_QUICK=2: 2 sizes, one border per radius" : "", bad,
                   why[0] ? ": " : "", why);
            if (fi) printf("     (f32: %ld of %ld cases bit-identical)\n", exact, cases);
        }
        if (quick) skip("GPU %d large images: TEST_BLUR_QUICK", dev);
        else {   /* full-size images: 1921x1081 every format, 7680x4320 RGBA and gray */
            long bad = 0, cases = 0, exact = 0;
            char why[2048] = "";
            int c, bi, fi2;
            for (fi2 = 0; fi2 < 2; fi2++)
                for (c = 1; c <= 4; c++)
                    for (bi = 0; bi < 3; bi++) {
                        const int r = bi == 0 ? 2 : bi == 1 ? 1 : 5;
                        cases++;
                        if (!gpu_case(dev, cpu, 1921, 1081, c, fi2 ? MGPU_PIXEL_F32 : MGPU_PIXEL_U8, r, borders[bi],
                                      (size_t)(c * 4), 0, 0, 0, &exact, why, sizeof why)) bad++;
                    }
            cases += 4;      /* the wide kernels on a large image too */
            if (!gpu_case(dev, cpu, 1921, 1081, 4, MGPU_PIXEL_U8, 64, MGPU_BORDER_REFLECT_101, 16, 0, 3, 1, &exact, why, sizeof why)) bad++;
            if (!gpu_case(dev, cpu, 1921, 1081, 1, MGPU_PIXEL_F32, 33, MGPU_BORDER_CONSTANT, 0, 0, 0, 0, &exact, why, sizeof why)) bad++;
            if (!gpu_case(dev, cpu, 7680, 4320, 4, MGPU_PIXEL_U8, 2, MGPU_BORDER_REPLICATE, 0, 0, 0, 0, &exact, why, sizeof why)) bad++;
            if (!gpu_case(dev, cpu, 7680, 4320, 1, MGPU_PIXEL_U8, 2, MGPU_BORDER_REFLECT_101, 0, 0, 0, 0, &exact, why, sizeof why)) bad++;
            report(bad == 0, "GPU %d large images (1921x1081 all formats and borders, and at radius 64 and 33; 7680x4320 "
                   "RGBA and gray) == CPU device: %ld cases, %ld wrong%s%s", dev, cases, bad, why[0] ? ": " : "", why);
        }
    }
    {   /* split and batch over GPUs (repeating devices when there are fewer than 4) */
        mgpu_device g[4];
        int nd, i, good = 1, cases = 0;
        char why[2048] = "";
        for (i = 0; i < 4; i++) g[i] = i % ngpu;
        for (nd = 1; nd <= 4; nd *= 2) {
            static const int hs[] = { 1, 3, 70, 1081 };
            if (quick && nd == 2) continue;
            if (quick == 2 && nd == 4) continue;
            size_t hi;
            int bi;
            for (hi = 0; hi < sizeof hs / sizeof hs[0]; hi++)
                for (bi = 0; bi < 3 && !(quick == 2 && hs[hi] > 100); bi++) {
                    cases += 2;
                    if (!split_case(cpu, g, nd, hs[hi] > 100 ? 1921 : 77, hs[hi], 4, MGPU_PIXEL_U8, bi == 2 ? 8 : 2, borders[bi], why, sizeof why)) good = 0;
                    if (!split_case(cpu, g, nd, 131, hs[hi], 1, MGPU_PIXEL_F32, bi == 1 ? 4 : 1, borders[bi], why, sizeof why)) good = 0;
                }
        }
        report(good, "split over 1, 2, 4 GPU workers (%d GPUs) from host memory == CPU device: %d cases %s", ngpu, cases, why);
        {   /* split with the image in GPU 0's memory, and in pinned memory */
            resident m;
            mgpu_blur_params p = params_of(2, 2, MGPU_BORDER_REFLECT_101, 0);
            mgpu_image a, b;
            char w2[256];
            good = 1;
            resident_make(&m, cpu, 1500, 999, 4, &p);
            a = m.src.im; b = m.dst.im;
            a.data = m.ds; b.data = m.dd;
            if (mgpu_blur_split(&a, &b, &p, g, 4) != MGPU_SUCCESS) { good = 0; snprintf(why, sizeof why, "%s", mgpu_last_error()); }
            mgpu_memcpy(m.dst.im.data, m.dd, m.n);
            if (good && compare(&m.dst.im, &m.want.im, 0, w2, sizeof w2)) { good = 0; snprintf(why, sizeof why, "device memory: %s", w2); }
            a.data = m.ps; b.data = m.pd;
            if (good && mgpu_blur_split(&a, &b, &p, g, 4) != MGPU_SUCCESS) { good = 0; snprintf(why, sizeof why, "%s", mgpu_last_error()); }
            memcpy(m.dst.im.data, m.pd, m.n);
            if (good && compare(&m.dst.im, &m.want.im, 0, w2, sizeof w2)) { good = 0; snprintf(why, sizeof why, "pinned memory: %s", w2); }
            report(good, "split over 4 GPU workers with the image in GPU 0's memory and in pinned memory == CPU device %s", why);
            resident_free(&m);
        }
        test_batch(cpu, g, ngpu < 4 ? ngpu : 4, "the GPUs (host and device memory)", 1);
        {
            mgpu_device mixed[3];
            mixed[0] = 0; mixed[1] = mgpu_cpu_device(0); mixed[2] = ngpu > 1 ? 1 : 0;
            test_batch(cpu, mixed, 3, "GPUs and a CPU device", 1);
        }
    }
    {   /* images in GPU 0's memory: split over {GPU 0, CPU}; batch over {CPU, last GPU}; pinned
           memory read in place by a kernel; a batch of GPU images with only a CPU device */
        resident m;
        mgpu_blur_params p = params_of(1.5f, 2, MGPU_BORDER_CONSTANT, 100.0f);
        mgpu_image a, b, aa[2], bb[2];
        mgpu_device two[2];
        mgpu_stream s0;
        char w2[256], why[2048] = "";
        int good = 1;
        mgpu_result r;
        resident_make(&m, cpu, 333, 211, 3, &p);
        a = m.src.im; b = m.dst.im; a.data = m.ds; b.data = m.dd;
        two[0] = 0; two[1] = mgpu_cpu_device(0);
        memset(m.dst.im.data, 0, m.n);
        if (mgpu_blur_split(&a, &b, &p, two, 2) != MGPU_SUCCESS) { good = 0; snprintf(why, sizeof why, ": split: %s", mgpu_last_error()); }
        else {
            mgpu_memcpy(m.dst.im.data, m.dd, m.n);
            if (compare(&m.dst.im, &m.want.im, 0, w2, sizeof w2)) { good = 0; snprintf(why, sizeof why, ": split GPU+CPU: %s", w2); }
        }
        two[0] = mgpu_cpu_device(0); two[1] = ngpu - 1;      /* GPU 0 not among them when ngpu > 1 */
        mgpu_memset(m.dd, 0, m.n);
        if (good && mgpu_blur_batch(&a, &b, 1, &p, two, 2) != MGPU_SUCCESS) { good = 0; snprintf(why, sizeof why, ": batch: %s", mgpu_last_error()); }
        else if (good) {
            mgpu_memcpy(m.dst.im.data, m.dd, m.n);
            if (compare(&m.dst.im, &m.want.im, 0, w2, sizeof w2)) { good = 0; snprintf(why, sizeof why, ": batch on GPU %d: %s", ngpu - 1, w2); }
        }
        aa[0] = m.src.im; aa[0].data = m.ps; bb[0] = m.dst.im; bb[0].data = m.pd;   /* pinned, read in place on GPU 0 */
        mgpu_default_stream(0, &s0);
        if (good && mgpu_blur(&aa[0], &bb[0], &p, s0) != MGPU_SUCCESS) { good = 0; snprintf(why, sizeof why, ": pinned: %s", mgpu_last_error()); }
        else if (good && memcmp(m.pd, m.want.im.data, m.n)) { good = 0; snprintf(why, sizeof why, ": pinned memory on GPU 0 differs"); }
        two[0] = mgpu_cpu_device(0);
        aa[1] = a; bb[1] = b;
        r = mgpu_blur_batch(&aa[1], &bb[1], 1, &p, two, 1);
        if (good && (r != MGPU_ERROR_WRONG_DEVICE || !strstr(mgpu_last_error(), "no CUDA device"))) {
            good = 0;
            snprintf(why, sizeof why, ": GPU image with only a CPU device gave %s", mgpu_result_string(r));
        }
        report(good, "GPU-resident image: split over GPU 0 + CPU, batch on a GPU that does not hold it, pinned read in "
               "place, WRONG_DEVICE with only CPU devices%s", why);
        resident_free(&m);
    }
}

int main(int argc, char **argv)
{
    mgpu_desc desc;
    mgpu_stream cpu = NULL;
    const char *seed = getenv("TEST_BLUR_SEED");
    mgpu_device cpus[4];
    int i;
    verbose = argc > 1 && !strcmp(argv[1], "-v");
    {
        const char *q = getenv("TEST_BLUR_QUICK");   /* fewer GPU cases (slow emulators; 2: compute-sanitizer) */
        quick = q && *q ? (atoi(q) == 2 ? 2 : 1) : 0;
    }
    rng_state = seed && *seed ? strtoull(seed, NULL, 10) * 0x9E3779B97F4A7C15ull + 1 : 0x9E3779B97F4A7C15ull;
    memset(&desc, 0, sizeof desc);
    desc.cpu_devices = 4;
    if (mgpu_init(&desc) != MGPU_SUCCESS) { printf("FAIL mgpu_init: %s\n", mgpu_last_error()); return 1; }
    for (i = 0; i < 4; i++) cpus[i] = mgpu_cpu_device(i);
    mgpu_default_stream(cpus[0], &cpu);
    printf("test_blur: %d device(s), default backend %s, seed %s\n", mgpu_device_count(),
           mgpu_default_backend() == MGPU_BACKEND_CUDA ? "cuda" : "cpu", seed && *seed ? seed : "default");
    test_weights();
    test_cpu_reference(cpu);
    test_pitch(cpu);
    test_bad_inputs(cpu);
    test_band_rows(cpu);
    test_split_cpu(cpu);
    test_batch(cpu, cpus, 4, "4 CPU devices", 1);
    test_batch(cpu, NULL, 0, "the default devices", 0);
    {
        mgpu_device twice[2];
        twice[0] = twice[1] = cpus[1];
        test_batch(cpu, twice, 2, "one CPU device twice", 0);
    }
    test_cuda(cpu);
    mgpu_shutdown();
    return summary();
}
