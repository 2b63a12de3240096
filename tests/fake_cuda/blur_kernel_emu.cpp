/* blur_kernel_emu.cpp - runs the Gaussian blur kernels of mgpu_kernels.cu on the host and
   compares them with mgpu's CPU device, bit for bit (u8 and f32 alike: the emulator does
   the same IEEE operations in the same order). A test aid for machines without a GPU
   (`make test-blur-emu`): it checks the kernels' indexing (segments, halo lanes, strips,
   ring slots, bands, edges, border rules, vector and scalar paths), their cp.async use
   and the host's launch shape, not timing, memory ordering or code generation.

   The kernels run under tests/fake_cuda/emu.h (through emu_blur.h), the emulator the fake
   libcuda uses too: each CUDA thread of a block is a coroutine; __syncthreads is a block
   barrier; warp shuffles exchange through a per-warp buffer between two warp barriers (so
   every lane of a warp must reach every shuffle: a divergent shuffle is reported as a
   deadlock); blocks run one at a time in a random order; cp.async copies land only when
   the kernel waits for them (a case with copies left pending at the end fails); __ldg,
   cp.async and 16-byte stores check their alignment. Source images are malloc'ed to their
   exact span, so with -fsanitize=address any read outside the image (or outside a band's
   rows) is reported.

   Build and run from the repository root:
     make test-blur-emu      (or: make build/blur_kernel_emu; ./build/blur_kernel_emu [cases] [seed])
   EMU_FOCUS=pipe runs only shapes that take the pipelined 8-bit kernels (..._r2p), each
   also through one of bench_blur's tuning variants (bench/blur_variants.cu); EMU_FOCUS=any
   only radii 3..16, which take the generic kernels (..._any; f32 at 9..16: the tiled
   ones), wide images more often (a few tiles of every block size mgpu.h picks for them);
   EMU_FOCUS=wide only radii 17..64 (the wide kernels, ..._wide), images often narrower or
   shorter than the radius; EMU_FOCUS=ring only shapes for the ring kernels (..._r4, _r8:
   8-bit radius 3..8 with 1, 3 or 4 channels; ..._ring1 .. _ring16: f32 with 1 or 4);
   EMU_FOCUS=mma only shapes for the tensor-core 8-bit kernels (..._m8, ..._m16), at every
   radius 0..16 they serve; EMU_FOCUS=tile only f32 at radius 9..16 (the tiled kernels,
   ..._t9 .. _t16, on every layout). Other cases pick the kernel as a GPU of compute
   capability 7.5 or 9.0 would (at random). Before the cases, the emulated tensor-core product (emu.h's
   mma_u8) is checked against a plain matrix product on random fragments. */
#define MGPU_IMPLEMENTATION
#include "mgpu.h"

#include <signal.h>
#include <unistd.h>

#include "tests/fake_cuda/emu.h"
#include "tests/fake_cuda/emu_blur.h"

static std::mt19937_64 &rng = emu_rng;    /* the cases and the block order: one seed */

/* The emulated m16n8k32 u8 product against the plain one: random A (16 x 32), B (32 x 8), C
   (16 x 8) handed to the lanes by the PTX ISA's fragment layouts; returns the wrong values. */
static long mma_check(int rounds)
{
    long bad = 0;
    for (int n = 0; n < rounds; n++) {
        unsigned A[16][32], B[32][8], Cm[16][8], D[16][8];
        for (int i = 0; i < 16; i++) for (int k = 0; k < 32; k++) A[i][k] = (unsigned)(rng() % 256);
        for (int k = 0; k < 32; k++) for (int j = 0; j < 8; j++) B[k][j] = n % 2 ? 255u : (unsigned)(rng() % 256);
        for (int i = 0; i < 16; i++) for (int j = 0; j < 8; j++) Cm[i][j] = (unsigned)rng();
        emu_launch(1, 32, true, [&]() {
            const unsigned lane = threadIdx.x, g = lane / 4, t = lane % 4;
            unsigned a[4] = {0}, b[2] = {0}, c[4], d[4];
            for (unsigned q = 0; q < 4; q++)
                for (unsigned j = 0; j < 4; j++) a[q] |= A[g + 8 * (q & 1)][4 * t + 16 * (q >> 1) + j] << (8 * j);
            for (unsigned q = 0; q < 2; q++)
                for (unsigned j = 0; j < 4; j++) b[q] |= B[4 * t + 16 * q + j][g] << (8 * j);
            for (unsigned q = 0; q < 4; q++) c[q] = Cm[g + 8 * (q >> 1)][2 * t + (q & 1)];
            mma_u8(d, a, b, c);
            for (unsigned q = 0; q < 4; q++) D[g + 8 * (q >> 1)][2 * t + (q & 1)] = d[q];
        });
        for (int i = 0; i < 16; i++)
            for (int j = 0; j < 8; j++) {
                unsigned want = Cm[i][j];
                for (int k = 0; k < 32; k++) want += A[i][k] * B[k][j];
                bad += D[i][j] != want;
            }
    }
    return bad;
}

/* ---- cases */
static unsigned char *xmalloc(size_t n) { unsigned char *p = (unsigned char *)malloc(n ? n : 1); if (!p) abort(); return p; }
/* 16-byte aligned block of n bytes plus `off`; *raw is what to free */
static unsigned char *aligned_block(size_t n, size_t off, void **raw)
{
    unsigned char *p = xmalloc(n + off + 16);
    *raw = p;
    p = (unsigned char *)(((uintptr_t)p + 15) & ~(uintptr_t)15);
    return p + off;
}

int main(int argc, char **argv)
{
    const long ncases = argc > 1 ? atol(argv[1]) : 400;
    const unsigned long long seed = argc > 2 ? strtoull(argv[2], NULL, 10) : 1;
    /* EMU_FOCUS=pipe: only cases for the pipelined 8-bit kernels (aligned rows, width * C a
       multiple of 16, radius <= 2, 1/3/4 channels) */
    const char *focus = getenv("EMU_FOCUS");
    const int focus_pipe = focus && !strcmp(focus, "pipe");
    const int focus_any = focus && !strcmp(focus, "any");
    const int focus_ring = focus && !strcmp(focus, "ring");   /* the ring kernels (8-bit radius 3..8, f32 1..16) */
    const int focus_wide = focus && !strcmp(focus, "wide");   /* radii 17..64: the wide kernels */
    const int focus_mma = focus && !strcmp(focus, "mma");     /* the tensor-core kernels, radius 0..16 */
    const int focus_tile = focus && !strcmp(focus, "tile");   /* f32 at radius 9..16: the tiled kernels */
    const int focus_vec8 = focus_pipe || focus_mma;           /* 8-bit, 1/3/4 channels, 16-byte rows */
    mgpu_desc desc;
    mgpu_stream cpu = NULL;
    long fails = 0, vec_cases = 0, kernel_hits[MGPU__BK_COUNT] = {0}, band_cases = 0, strip_over = 0, variant_runs = 0;
    long any_blocks[3] = {0};              /* generic kernels' cases by block: 256, 128, 64 threads */
    long f32_ring_cases = 0;               /* EMU_FOCUS=ring: f32 cases so far */
    rng.seed(seed);
    memset(&desc, 0, sizeof desc);
    desc.backend = MGPU_BACKEND_CPU;
    if (mgpu_init(&desc) != MGPU_SUCCESS) { printf("mgpu_init: %s\n", mgpu_last_error()); return 1; }
    mgpu_default_stream(mgpu_cpu_device(0), &cpu);
    signal(SIGALRM, SIG_DFL);
    {
        const long bad = mma_check(20);
        printf("emulated mma_u8 against the plain product: 20 x 128 values, %ld wrong\n", bad);
        if (bad) fails++;
    }
    for (long n = 0; n < ncases; n++) {
        alarm(120);
        /* shape: mostly small, sometimes wide enough for several segments / tiles */
        const int c0 = focus_vec8 ? "\1\3\4"[rng() % 3] : 1 + (int)(rng() % 4);
        const mgpu_pixel_format f = focus_tile || (!focus_vec8 && rng() % 2) ? MGPU_PIXEL_F32 : MGPU_PIXEL_U8;
        /* EMU_FOCUS=ring: only the channel counts that have ring kernels (8-bit 1, 3, 4; f32 1, 4),
           and the f32 cases take every (radius, channels) in turn: each of the 32 kernels runs */
        const long fk = focus_ring && f == MGPU_PIXEL_F32 ? f32_ring_cases++ : 0;
        const int c = !focus_ring ? c0 : f == MGPU_PIXEL_F32 ? (fk / 16 % 2 ? 4 : 1) : c0 == 2 ? 4 : c0;
        const size_t es = f == MGPU_PIXEL_U8 ? 1 : 4;
        const int wide = rng() % (focus_any ? 2 : 3) == 0;
        int w = 1 + (int)(rng() % (wide ? 700 : 60));
        const int h = 1 + (int)(rng() % (wide ? 40 : 90));
        const int rsel = (int)(rng() % 10);
        const int r = focus_ring ? (f == MGPU_PIXEL_F32 ? 1 + (int)(fk % 16) : 3 + (int)(rng() % 6)) : focus_any ? 3 + (int)(rng() % 14) : focus_mma ? (int)(rng() % 17)
                    : focus_wide ? 17 + (int)(rng() % 48) : focus_tile ? 9 + (int)(rng() % 8)
                    : rsel < 7 || focus_pipe ? rsel % 3 : rsel < 9 ? (int)(rng() % 17) : (int)(rng() % 65);
        const int border = (int)(rng() % 3);
        /* layout: aligned (vector path) or not */
        const int aligned = focus_vec8 || focus_ring || rng() % 2;
        /* aligned 8-bit rows whose length is a multiple of 16 take the pipelined kernels: often */
        if (aligned && f == MGPU_PIXEL_U8 && (focus_vec8 || focus_ring || rng() % 3)) while ((w * c) % 16) w++;
        if (focus_ring && f == MGPU_PIXEL_F32) while ((w * c) % 4) w++;
        const size_t rb = (size_t)w * c * es;
        const size_t spitch = aligned ? ((rb + 15) & ~(size_t)15) + 16 * (rng() % 3) : rb + es * (rng() % 3);
        const size_t dpitch = aligned ? ((rb + 15) & ~(size_t)15) + 16 * (rng() % 2) : rb + es * (rng() % 5);
        const size_t soff = aligned ? 0 : es * (rng() % 4);
        const size_t doff = aligned && (focus_vec8 || focus_ring || rng() % 4) ? 0 : es * (rng() % 4);
        mgpu_blur_params p;
        memset(&p, 0, sizeof p);
        p.sigma = 0.5f + (float)(rng() % 100) / 20.0f;
        if (r > 16) p.sigma *= (float)r / 4.0f;     /* 2 .. 87 at radius 64: the far taps weigh */
        p.radius = r ? r : MGPU_BLUR_RADIUS_ZERO;
        p.border = (mgpu_border)border;
        p.border_value = f == MGPU_PIXEL_U8 ? (float)(rng() % 256) : -1.5f;
        /* band: the whole image, or [y0, y1) from its rows [lo, hi) only */
        const int band = rng() % 3 == 0;
        int y0 = 0, y1 = h;
        if (band) { y0 = (int)(rng() % (unsigned)h); y1 = y0 + 1 + (int)(rng() % (unsigned)(h - y0)); }
        int lo = 0, hi = h;
        if (band) mgpu__blur_rows(y0, y1, h, r, &lo, &hi);
        /* source: exactly the span of rows [lo, hi) */
        const size_t sspan = (size_t)(hi - lo - 1) * spitch + rb;
        void *sraw, *draw;
        unsigned char *sbase = aligned_block(sspan, soff, &sraw);
        /* fill the source rows; also a full packed copy for the reference */
        mgpu_image full;
        memset(&full, 0, sizeof full);
        full.width = w; full.height = h; full.channels = c; full.format = f; full.pitch = rb;
        std::vector<unsigned char> fullmem((size_t)h * rb + 16);
        full.data = fullmem.data();
        for (int y = 0; y < h; y++)
            for (size_t x = 0; x < rb / es; x++) {
                if (f == MGPU_PIXEL_U8) fullmem[(size_t)y * rb + x] = (unsigned char)rng();
                else { float v = (float)(rng() % 100000) / 1000.0f - 20.0f; memcpy(&fullmem[(size_t)y * rb + 4 * x], &v, 4); }
            }
        for (int y = lo; y < hi; y++) memcpy(sbase + (size_t)(y - lo) * spitch, &fullmem[(size_t)y * rb], rb);
        /* reference: the CPU device on the full image, packed */
        std::vector<unsigned char> want((size_t)h * rb + 16);
        mgpu_image wimg = full;
        wimg.data = want.data();
        if (mgpu_blur(&full, &wimg, &p, cpu) != MGPU_SUCCESS) { printf("cpu: %s\n", mgpu_last_error()); return 1; }
        /* destination rows [y0, y1) with a canary */
        const size_t dspan = (size_t)(y1 - y0 - 1) * dpitch + rb;
        unsigned char *dbase = aligned_block(dspan + 64, doff, &draw);
        memset(dbase, 0xA5, dspan + 64);
        /* the launch as mgpu.h makes it */
        mgpu__blur_plan pl;
        mgpu__blur_args a;
        mgpu_launch_dims dims;
        mgpu__blur_plan_make("emu", &p, &pl);
        mgpu__blur_fill(&a, &pl, &full, sbase, spitch, lo, dbase, dpitch, y0, y1);
        const int mps = 1 + (int)(rng() % 200);
        const int which = focus_mma ? mgpu__blur_mma_shape(mps, &a, &dims) : mgpu__blur_shape(mps, rng() % 2 ? 9 : 7, f, &a, &dims);
        if (rng() % 2) {                       /* other strip heights: recompute the grid independently */
            const int rows = y1 - y0;
            a.strip = 1 + (int)(rng() % 20);
            const long long strips = (rows + a.strip - 1) / a.strip;
            if (which >= MGPU__BK_TILE && which < MGPU__BK_F32RING) {     /* a (tile, strip) item per block */
                const long long tx = mgpu__blur_tile_values(c);
                dims.grid[0] = (unsigned)((((long long)rb / (long long)es + tx - 1) / tx) * strips);
            } else if (which >= MGPU__BK_MMA && which < MGPU__BK_TILE) {  /* a (segment, strip) item per block */
                dims.grid[0] = (unsigned)((((long long)rb + mgpu__blur_mma_segment(which) - 1) / mgpu__blur_mma_segment(which)) * strips);
            } else if (mgpu__blur_kernel_rc[which]) {
                const bool piped = which == MGPU__BK_U8C1P || which == MGPU__BK_U8C3P || which == MGPU__BK_U8C4P;
                const int V = (int)(16 / es), H = mgpu__blur_kernel_rc[which] * c, HL = (H + V - 1) / V;
                const int segw = which >= MGPU__BK_RING ? 32 * mgpu__blur_ring_lane_values(which)
                               : piped ? 32 * V : (32 - 2 * HL) * V;   /* pipelined: 32 output lanes */
                const long long segs = ((long long)rb / (long long)es + segw - 1) / segw;
                dims.grid[0] = (unsigned)((segs * strips + 3) / 4);
            } else {
                long long tile;
                size_t sh;
                if (which == MGPU__BK_U8_WIDE || which == MGPU__BK_F32_WIDE) mgpu__blur_wide_block(f, r, c, &tile, &sh);
                else mgpu__blur_any_block(f, r, c, &tile, &sh);
                dims.grid[0] = (unsigned)((((long long)rb / (long long)es + tile - 1) / tile) * strips);
            }
            /* and sometimes extra blocks past the work: they must do nothing */
            if (rng() % 3 == 0) dims.grid[0] += 1 + (unsigned)(rng() % 3);
            strip_over++;
        }
        vec_cases += a.vec_src;
        band_cases += band;
        kernel_hits[which]++;
        if (which == MGPU__BK_U8_ANY || which == MGPU__BK_F32_ANY) any_blocks[dims.block[0] == 256 ? 0 : dims.block[0] == 128 ? 1 : 2]++;
        /* the library's kernel, then (pipelined shapes) one of bench_blur's tuning variants
           with the same channel count, with its own block size */
        int vsel = -1;
        if (which == MGPU__BK_U8C1P || which == MGPU__BK_U8C3P || which == MGPU__BK_U8C4P) {
            std::vector<int> cand;
            for (int k = 0; k < emu_blur_nkernels; k++) if (emu_blur_kernels[k].warps && emu_blur_kernels[k].c == c) cand.push_back(k);
            if (!cand.empty()) vsel = cand[rng() % cand.size()];
        }
        for (int pass = 0; pass < (vsel >= 0 ? 2 : 1); pass++) {
        const char *kname = mgpu__blur_kernel_names[which];
        if (pass == 1) {
            const emu_blur_kernel &v = emu_blur_kernels[vsel];
            const long long segs = ((long long)rb + 511) / 512, strips = (y1 - y0 + a.strip - 1) / a.strip;
            kname = v.name;
            dims.block[0] = (unsigned)(32 * v.warps);
            dims.grid[0] = (unsigned)((segs * strips + v.warps - 1) / v.warps) + (rng() % 3 == 0 ? 1 + (unsigned)(rng() % 2) : 0);
            memset(dbase, 0xA5, dspan + 64);
            variant_runs++;
        }
        emu_pending_fail = 0;
        const emu_blur_kernel *k = pass == 0 ? emu_blur_find(kname) : &emu_blur_kernels[vsel];
        if (!k) { printf("FAIL case %ld: %s is not in tests/fake_cuda/emu_blur.h's list\n", n, kname); fails++; break; }
        emu_blur_launch(k->fn, dims.grid[0], dims.block[0], dims.shared_bytes, a);
        if (emu_pending_fail) { printf("FAIL case %ld (%s): cp.async copies left pending at exit\n", n, kname); fails++; }
        /* compare rows [y0, y1) and the canary */
        long bad = 0;
        char why[256] = "";
        for (int y = y0; y < y1; y++) {
            const unsigned char *got = dbase + (size_t)(y - y0) * dpitch, *exp = &want[(size_t)y * rb];
            for (size_t x = 0; x < rb; x++)
                if (got[x] != exp[x] && !bad++)
                    snprintf(why, sizeof why, "row %d byte %zu (value %zu): got %u want %u", y, x, x / es, got[x], exp[x]);
            if (y + 1 < y1)
                for (size_t x = rb; x < dpitch; x++)
                    if (got[x] != 0xA5 && !bad++) snprintf(why, sizeof why, "row %d padding byte %zu written", y, x);
        }
        for (size_t x = dspan; x < dspan + 64; x++)
            if (dbase[x] != 0xA5 && !bad++) snprintf(why, sizeof why, "past the image: byte %zu written", x - dspan);
        if (bad) {
            fails++;
            printf("FAIL case %ld: %s %dx%dx%d %s r=%d sigma=%g %s rows [%d,%d) from [%d,%d) pitch %zu/%zu off %zu/%zu "
                   "vec %d/%d strip %d grid %u: %ld wrong bytes, first %s\n", n, kname, w, h, c,
                   f == MGPU_PIXEL_U8 ? "u8" : "f32", r, (double)p.sigma, border == 0 ? "replicate" : border == 1 ? "reflect101" : "constant",
                   y0, y1, lo, hi, spitch, dpitch, soff, doff, a.vec_src, a.vec_dst, a.strip, dims.grid[0], bad, why);
        }
        }
        free(sraw);
        free(draw);
    }
    alarm(0);
    printf("%ld cases (%ld vector-aligned, %ld bands, %ld with other strips/extra blocks); kernels:", ncases, vec_cases,
           band_cases, strip_over);
    for (int k = 0; k < MGPU__BK_COUNT; k++) printf(" %s %ld", mgpu__blur_kernel_names[k] + 10, kernel_hits[k]);
    printf("; bench_blur variants %ld; generic blocks of 256/128/64 threads %ld/%ld/%ld", variant_runs, any_blocks[0],
           any_blocks[1], any_blocks[2]);
    printf("\nblur_kernel_emu: %ld passed, %ld failed\n", ncases - fails < 0 ? 0 : ncases - fails, fails);
    mgpu_shutdown();
    return fails ? 1 : 0;
}
