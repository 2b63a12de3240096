/* bench_launch - host cost of one kernel launch: mgpu against the raw driver.

   The host-side time (CLOCK_MONOTONIC) of back-to-back launches, divided by their number:
     mgpu_noop through mgpu_launch (module from build/mgpu_kernels.fatbin, else the embedded
       fatbin of kernels_fatbin.h) against cuLaunchKernel of the same image loaded with
       cuModuleLoadData + cuModuleGetFunction;
     the built-in mgpu_axpy_f32 with n = 1 against cuLaunchKernel of mgpu_axpy_f32 with the
       launch shape mgpu uses (1 block of 256 threads for n = 1).
   mgpu launches go to a stream from mgpu_stream_create; the raw ones to a raw stream created
   CU_STREAM_NON_BLOCKING (the comparison the targets use) and, for reference, to a raw
   stream created with flags 0, plus mgpu's default stream against the context's legacy
   stream. One batch = --launches launches in chunks of --chunk; each chunk is timed on
   the host and the stream is synchronized after it, outside the timed region, so the
   GPU's queue never fills and throttles the host. Warm-up first; the variants run
   round-robin (rotating order) inside every batch; the median of --batches batches is
   reported. Target: mgpu within 1 us (1000 ns) of raw per launch. */
#define MGPU_STATIC              /* the implementation here too, beside mgpu.o: its decoder of */
#define MGPU_IMPLEMENTATION      /* kernels_fatbin.h for the embedded image */
#include "bench_util.h"
#include <math.h>

enum {
    V_NOOP_MGPU, V_NOOP_RAW_NB, V_NOOP_RAW_BLK, V_NOOP_MGPU_DEF, V_NOOP_RAW_LEGACY,
    V_AXPY_MGPU, V_AXPY_RAW_NB, V_AXPY_RAW_BLK, V_COUNT
};
static const char *const vname[V_COUNT] = {
    "mgpu_launch(mgpu_noop)        mgpu_stream_create stream",
    "cuLaunchKernel(mgpu_noop)     raw CU_STREAM_NON_BLOCKING stream",
    "cuLaunchKernel(mgpu_noop)     raw flags-0 (blocking) stream",
    "mgpu_launch(mgpu_noop)        mgpu default stream (NULL)",
    "cuLaunchKernel(mgpu_noop)     legacy stream 0 of the same context",
    "mgpu_axpy_f32(n=1)            mgpu_stream_create stream",
    "cuLaunchKernel(mgpu_axpy_f32) raw CU_STREAM_NON_BLOCKING stream",
    "cuLaunchKernel(mgpu_axpy_f32) raw flags-0 (blocking) stream",
};

#define MAX_BATCHES 1000

static struct {
    int device, launches, chunk, batches, warmup;
    const char *fatbin;
} opt;

static struct {
    mgpu_stream ms;
    mgpu_kernel k_noop;
    CUstream nb, blk;
    CUfunction f_noop, f_axpy;
    float *x, *y;
    float a;
} g;

/* Queues k launches of variant v; returns non-zero if any failed. */
static int launch_chunk(int v, int k)
{
    int i, bad = 0;
    mgpu_launch_dims dims;
    memset(&dims, 0, sizeof dims);
    dims.grid[0] = dims.grid[1] = dims.grid[2] = 1;
    dims.block[0] = dims.block[1] = dims.block[2] = 1;
    switch (v) {
    case V_NOOP_MGPU:
        for (i = 0; i < k; i++) bad |= mgpu_launch(g.k_noop, &dims, NULL, g.ms);
        break;
    case V_NOOP_MGPU_DEF:
        for (i = 0; i < k; i++) bad |= mgpu_launch(g.k_noop, &dims, NULL, NULL);
        break;
    case V_NOOP_RAW_NB:
        for (i = 0; i < k; i++) bad |= CU(cuLaunchKernel)(g.f_noop, 1, 1, 1, 1, 1, 1, 0, g.nb, NULL, NULL);
        break;
    case V_NOOP_RAW_BLK:
        for (i = 0; i < k; i++) bad |= CU(cuLaunchKernel)(g.f_noop, 1, 1, 1, 1, 1, 1, 0, g.blk, NULL, NULL);
        break;
    case V_NOOP_RAW_LEGACY:
        for (i = 0; i < k; i++) bad |= CU(cuLaunchKernel)(g.f_noop, 1, 1, 1, 1, 1, 1, 0, (CUstream)0, NULL, NULL);
        break;
    case V_AXPY_MGPU:
        for (i = 0; i < k; i++) bad |= mgpu_axpy_f32(1, g.a, g.x, g.y, g.ms);
        break;
    default: {
        CUstream s = v == V_AXPY_RAW_NB ? g.nb : g.blk;
        for (i = 0; i < k; i++) {
            /* Built per launch, as mgpu_axpy_f32 does. */
            unsigned long long n = 1;
            void *args[4];
            args[0] = &n; args[1] = &g.a; args[2] = &g.x; args[3] = &g.y;
            bad |= CU(cuLaunchKernel)(g.f_axpy, 1, 1, 1, 256, 1, 1, 0, s, args, NULL);
        }
        break;
    }
    }
    return bad;
}

static void sync_variant(int v)
{
    switch (v) {
    case V_NOOP_MGPU: case V_AXPY_MGPU: MK(mgpu_stream_synchronize(g.ms)); break;
    case V_NOOP_MGPU_DEF: MK(mgpu_stream_synchronize(NULL)); break;
    case V_NOOP_RAW_NB: case V_AXPY_RAW_NB: CK(CU(cuStreamSynchronize)(g.nb)); break;
    case V_NOOP_RAW_BLK: case V_AXPY_RAW_BLK: CK(CU(cuStreamSynchronize)(g.blk)); break;
    default: CK(CU(cuStreamSynchronize)((CUstream)0)); break;
    }
}

/* Host ns per launch over `total` launches, timed chunk by chunk. */
static double run_batch(int v, int total)
{
    double ns = 0;
    int done = 0;
    while (done < total) {
        int k = total - done < opt.chunk ? total - done : opt.chunk, bad;
        double t0 = bench_now_ns(), t1;
        bad = launch_chunk(v, k);
        t1 = bench_now_ns();
        if (bad) {
            fprintf(stderr, "bench_launch: a launch failed (%s): %s\n", vname[v],
                    v == V_NOOP_MGPU || v == V_NOOP_MGPU_DEF || v == V_AXPY_MGPU ? mgpu_last_error() : "cuLaunchKernel error");
            exit(1);
        }
        ns += t1 - t0;
        sync_variant(v);                 /* untimed: keeps the GPU queue short */
        done += k;
    }
    return ns / total;
}

/* The image: build/mgpu_kernels.fatbin if present, else the embedded bytes. Always a fresh
   malloc copy (aligned for the driver). */
static void *load_image(size_t *bytes, const char **from)
{
    FILE *f = fopen(opt.fatbin, "rb");
    void *img = NULL;
    if (f) {
        long n;
        if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) > 0 && fseek(f, 0, SEEK_SET) == 0) {
            img = malloc((size_t)n);
            if (img && fread(img, 1, (size_t)n, f) == (size_t)n) { *bytes = (size_t)n; *from = opt.fatbin; }
            else { free(img); img = NULL; }
        }
        fclose(f);
    }
    if (!img) {
        int damaged = 0;
        *bytes = (size_t)MGPU_KERNELS_FATBIN_SIZE;
        img = mgpu__kernels_decode(&damaged);
        if (!img) { fprintf(stderr, "bench_launch: %s\n", damaged ? "kernels_fatbin.h is damaged" : "out of memory"); exit(1); }
        *from = "kernels_fatbin.h (embedded)";
    }
    return img;
}

static int parse_args(int argc, char **argv)
{
    int i;
    opt.device = 0;
    opt.launches = 100000;
    opt.chunk = 1000;
    opt.batches = 9;
    opt.warmup = 1000;
    opt.fatbin = "build/mgpu_kernels.fatbin";
    for (i = 1; i < argc; i += 2) {   /* every option takes a value */
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            printf("usage: bench_launch [--device N] [--launches N] [--chunk N] [--batches N>=9] [--warmup N] "
                   "[--fatbin PATH]\n");
            exit(0);
        }
        if (!v) { fprintf(stderr, "bench_launch: %s needs a value\n", a); return -1; }
        if (!strcmp(a, "--device")) opt.device = atoi(v);
        else if (!strcmp(a, "--launches")) opt.launches = atoi(v);
        else if (!strcmp(a, "--chunk")) opt.chunk = atoi(v);
        else if (!strcmp(a, "--batches")) opt.batches = atoi(v);
        else if (!strcmp(a, "--warmup")) opt.warmup = atoi(v);
        else if (!strcmp(a, "--fatbin")) opt.fatbin = v;
        else { fprintf(stderr, "bench_launch: unknown option %s\n", a); return -1; }
    }
    if (opt.launches < 1 || opt.chunk < 1 || opt.warmup < 1 || opt.batches < 9 || opt.batches > MAX_BATCHES) {
        fprintf(stderr, "bench_launch: need --launches, --chunk, --warmup >= 1 and --batches 9..%d\n", MAX_BATCHES);
        return -1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    static double ns[V_COUNT][MAX_BATCHES];
    double med[V_COUNT], lo[V_COUNT], hi[V_COUNT];
    float hx[256], hy[256], hy2[256], expect;
    int rc, v, b, i, missed = 0;
    size_t img_bytes = 0;
    const char *img_from = "";
    void *img, *embedded;
    int damaged = 0;
    CUcontext ctx;
    CUdevice cudev;
    CUmodule rmod;
    mgpu_module mod = NULL;

    if (parse_args(argc, argv)) return 2;
    if ((rc = bench_start("bench_launch", 1)) != 0) return rc;
    bench_seed();
    if (opt.device < 0 || opt.device >= mgpu_device_count()) {
        fprintf(stderr, "bench_launch: --device %d: there are %d GPUs\n", opt.device, mgpu_device_count());
        return 2;
    }
    printf("bench_launch: host time of one kernel launch, mgpu against the raw CUDA driver\n");
    bench_print_devices();

    /* mgpu side. */
    MK(mgpu_set_device(opt.device));
    MK(mgpu_stream_create(&g.ms));
    img = load_image(&img_bytes, &img_from);
    embedded = mgpu__kernels_decode(&damaged);
    printf("module image: %s, %zu bytes%s\n", img_from, img_bytes,
           embedded && img_bytes == (size_t)MGPU_KERNELS_FATBIN_SIZE && !memcmp(img, embedded, img_bytes)
               ? " (identical to the embedded fatbin)" : " (differs from the embedded fatbin)");
    free(embedded);
    MK(mgpu_module_create(img, img_bytes, &mod));
    MK(mgpu_module_load(mod, opt.device));
    MK(mgpu_module_kernel(mod, "mgpu_noop", &g.k_noop));
    MK(mgpu_malloc((void **)&g.x, sizeof hx));
    MK(mgpu_malloc((void **)&g.y, sizeof hy));

    /* Raw side: the same primary context, the same image. */
    ctx = bench_primary_ctx(opt.device, &cudev);
    CK(CU(cuCtxSetCurrent)(ctx));
    CK(CU(cuStreamCreate)(&g.nb, CU_STREAM_NON_BLOCKING));
    CK(CU(cuStreamCreate)(&g.blk, CU_STREAM_DEFAULT));
    CK(CU(cuModuleLoadData)(&rmod, img));
    CK(CU(cuModuleGetFunction)(&g.f_noop, rmod, "mgpu_noop"));
    CK(CU(cuModuleGetFunction)(&g.f_axpy, rmod, "mgpu_axpy_f32"));

    /* Fresh random operands; check that both axpy paths compute y += a * x for n = 1 only. */
    for (i = 0; i < 256; i++) {
        uint64_t r = bench_splitmix(&bench_seed_state);
        hx[i] = 0.5f + (float)(r & 0xFFFFFF) / 16777216.0f;
        hy[i] = 0.5f + (float)((r >> 24) & 0xFFFFFF) / 16777216.0f;
    }
    g.a = 0.25f + (float)(bench_splitmix(&bench_seed_state) & 0xFFFF) / 65536.0f;
    MK(mgpu_memcpy(g.x, hx, sizeof hx));
    MK(mgpu_memcpy(g.y, hy, sizeof hy));
    MK(mgpu_axpy_f32(1, g.a, g.x, g.y, g.ms));
    MK(mgpu_stream_synchronize(g.ms));
    if (launch_chunk(V_AXPY_RAW_NB, 1) || launch_chunk(V_NOOP_RAW_NB, 1)) { fprintf(stderr, "bench_launch: raw launch failed\n"); return 1; }
    CK(CU(cuStreamSynchronize)(g.nb));
    if (launch_chunk(V_NOOP_MGPU, 1)) { fprintf(stderr, "bench_launch: %s\n", mgpu_last_error()); return 1; }
    MK(mgpu_stream_synchronize(g.ms));
    MK(mgpu_memcpy(hy2, g.y, sizeof hy2));
    expect = fmaf(g.a, hx[0], fmaf(g.a, hx[0], hy[0]));
    if (hy2[0] != expect || memcmp(hy2 + 1, hy + 1, sizeof hy - sizeof hy[0])) {
        printf("bench_launch: axpy check FAILED: y[0] = %.9g, expected %.9g (or y[1..] changed)\n", hy2[0], expect);
        return 1;
    }
    printf("check: mgpu_axpy_f32 and the raw launch each computed y[0] += a*x[0] (a = %g), y[1..255] untouched\n", g.a);

    /* Warm-up, then batches, variants round-robin. */
    for (v = 0; v < V_COUNT; v++) {
        CK(CU(cuCtxSetCurrent)(ctx));
        run_batch(v, opt.warmup);
    }
    printf("timing: %d batches x %d launches (%d per synchronize, untimed), after %d warm-up launches each\n",
           opt.batches, opt.launches, opt.chunk, opt.warmup);
    fflush(stdout);
    for (b = 0; b < opt.batches; b++)
        for (i = 0; i < V_COUNT; i++) {
            v = (b + i) % V_COUNT;
            CK(CU(cuCtxSetCurrent)(ctx)); /* the bound device's context, as after mgpu_set_device */
            ns[v][b] = run_batch(v, opt.launches);
        }

    printf("\n%-66s %9s %9s %9s\n", "ns per launch (host)", "median", "min", "max");
    for (v = 0; v < V_COUNT; v++) {
        med[v] = bench_median(ns[v], opt.batches);      /* sorts: min and max are the ends */
        lo[v] = ns[v][0];
        hi[v] = ns[v][opt.batches - 1];
        printf("%-66s %9.1f %9.1f %9.1f\n", vname[v], med[v], lo[v], hi[v]);
    }
    {
        double d_noop = med[V_NOOP_MGPU] - med[V_NOOP_RAW_NB], d_axpy = med[V_AXPY_MGPU] - med[V_AXPY_RAW_NB];
        double d_noop_blk = med[V_NOOP_MGPU] - med[V_NOOP_RAW_BLK], d_axpy_blk = med[V_AXPY_MGPU] - med[V_AXPY_RAW_BLK];
        double d_def = med[V_NOOP_MGPU_DEF] - med[V_NOOP_RAW_LEGACY];
        int ok_noop = d_noop <= 1000.0, ok_axpy = d_axpy <= 1000.0;
        missed = !ok_noop || !ok_axpy;
        printf("\n%-44s %10s %10s %10s  %s\n", "comparison (median ns per launch)", "mgpu", "raw", "mgpu-raw",
               "target: mgpu - raw <= 1000 ns");
        printf("%-44s %10.1f %10.1f %+10.1f  %s\n", "mgpu_noop: vs raw non-blocking stream", med[V_NOOP_MGPU],
               med[V_NOOP_RAW_NB], d_noop, ok_noop ? "PASS" : "FAIL");
        printf("%-44s %10.1f %10.1f %+10.1f  %s\n", "mgpu_axpy_f32 n=1: vs raw non-blocking", med[V_AXPY_MGPU],
               med[V_AXPY_RAW_NB], d_axpy, ok_axpy ? "PASS" : "FAIL");
        printf("%-44s %10.1f %10.1f %+10.1f  (reference)\n", "mgpu_noop: vs raw flags-0 stream", med[V_NOOP_MGPU],
               med[V_NOOP_RAW_BLK], d_noop_blk);
        printf("%-44s %10.1f %10.1f %+10.1f  (reference)\n", "mgpu_axpy_f32 n=1: vs raw flags-0", med[V_AXPY_MGPU],
               med[V_AXPY_RAW_BLK], d_axpy_blk);
        printf("%-44s %10.1f %10.1f %+10.1f  (reference)\n", "mgpu_noop default stream: vs raw legacy 0",
               med[V_NOOP_MGPU_DEF], med[V_NOOP_RAW_LEGACY], d_def);
        printf("\nbench_launch summary: noop mgpu %.0f ns vs raw %.0f ns (%+.0f ns); axpy n=1 mgpu %.0f ns vs raw %.0f ns "
               "(%+.0f ns); target mgpu within 1000 ns of raw: %s\n", med[V_NOOP_MGPU], med[V_NOOP_RAW_NB], d_noop,
               med[V_AXPY_MGPU], med[V_AXPY_RAW_NB], d_axpy, missed ? "FAIL" : "PASS");
    }

    CK(CU(cuCtxSetCurrent)(ctx));
    CK(CU(cuStreamSynchronize)(g.nb));
    CK(CU(cuStreamSynchronize)(g.blk));
    CK(CU(cuModuleUnload)(rmod));
    CK(CU(cuStreamDestroy)(g.nb));
    CK(CU(cuStreamDestroy)(g.blk));
    MK(mgpu_stream_destroy(g.ms));
    MK(mgpu_free(g.x));
    MK(mgpu_free(g.y));
    MK(mgpu_module_destroy(mod));
    MK(mgpu_shutdown());
    CK(CU(cuDevicePrimaryCtxRelease)(cudev));
    free(img);
    return missed ? 3 : 0;
}
