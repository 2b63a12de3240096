/* bench_p2p - GPU-to-GPU copy bandwidth: mgpu_copy_peer_async against the raw driver.

   For each ordered pair a -> b and each size, five methods are timed in the same run, on
   the same buffers (allocated with mgpu_malloc) and the same primary contexts:
     raw     cuMemcpyPeerAsync on a raw non-blocking stream of b, peer access enabled both ways
     direct  mgpu_copy_peer_async(dst, src, n, 0, s), s = mgpu_stream_create on b
     staged  the same with MGPU_COPY_FORCE_STAGED (through pinned host memory)
     H2D     raw cuMemcpyHtoDAsync from pinned host memory into b    } the ceiling of any
     D2H     raw cuMemcpyDtoHAsync from a into pinned host memory    } host-staged copy
   Timing: CUDA events on the stream that carries the copy (mgpu events for mgpu, raw events
   for raw). One repetition = [blocker] start event, `inner` back-to-back copies, end event.
   The blocker is a device memset enqueued just before the start event on the same stream,
   long enough (calibrated in the warm-up) that every copy of the batch is queued before the
   start event fires, so the GPU time excludes the host's enqueue latency for both sides;
   --no-blocker times the batch as it is enqueued. Methods run round-robin inside each
   repetition (rotating order) so drift hits all of them alike. Warm-up first (the first
   warm-up of each method checks the copied bytes against the fresh random source), then
   --reps timed repetitions; the median is reported. GB/s = 1e9 bytes per second. */
#include "bench_util.h"

enum { M_RAW, M_DIRECT, M_STAGED, M_H2D, M_D2H, M_COUNT };
static const char *const method_name[M_COUNT] = { "raw", "direct", "staged", "H2D", "D2H" };

#define MAX_SIZES 32
#define MAX_REPS 1000
#define MIN_BLOCKER ((size_t)16 << 20)

static struct {
    size_t sizes[MAX_SIZES];
    int nsizes;
    int pairs_all, npairs;               /* npairs > 0: an explicit list */
    int pa[MGPU_MAX_DEVICES * MGPU_MAX_DEVICES], pb[MGPU_MAX_DEVICES * MGPU_MAX_DEVICES];
    int reps, warmup, inner, blocker;
    size_t blocker_max;
} opt;

typedef struct {
    double gbs;                          /* bytes * inner / median batch time */
    double us_per_copy;                  /* GPU time per copy */
    double enq_us_per_copy;              /* host time to enqueue one copy */
    int host_bound;                      /* repetitions whose GPU time may include host time */
    int ok;                              /* bytes verified */
} result;

typedef struct {
    int a, b;
    size_t bytes;
    int inner;
    mgpu_peer_path path;
    result r[M_COUNT];
} row;

/* Per device: raw stream and events (in the primary context), and mgpu buffers. */
static int ndev;
static CUcontext ctx[MGPU_MAX_DEVICES];
static CUdevice cudev[MGPU_MAX_DEVICES];
static CUstream rstream[MGPU_MAX_DEVICES];
static CUevent rev[MGPU_MAX_DEVICES][3];
static void *src[MGPU_MAX_DEVICES], *dst[MGPU_MAX_DEVICES], *scratch[MGPU_MAX_DEVICES];
static void *h_rand, *h_check;           /* raw pinned host memory (portable) */

/* Per pair: the mgpu stream and events on the destination device. */
typedef struct {
    int a, b;
    mgpu_stream ms;
    mgpu_event mev[3];
    size_t blocker[M_COUNT];
} pair_ctx;

static int is_mgpu(int m) { return m == M_DIRECT || m == M_STAGED; }
static int dev_of(const pair_ctx *p, int m) { return m == M_D2H ? p->a : p->b; }

static void use_context(const pair_ctx *p, int m)
{
    if (is_mgpu(m)) MK(mgpu_set_device(p->b));     /* what a user of mgpu would do */
    else CK(CU(cuCtxSetCurrent)(ctx[dev_of(p, m)]));
}

static void record(const pair_ctx *p, int m, int which)
{
    if (is_mgpu(m)) MK(mgpu_event_record(p->mev[which], p->ms));
    else CK(CU(cuEventRecord)(rev[dev_of(p, m)][which], rstream[dev_of(p, m)]));
}

static void blocker(const pair_ctx *p, int m, int value)
{
    int d = dev_of(p, m);
    if (is_mgpu(m)) MK(mgpu_memset_async(scratch[d], value, p->blocker[m], p->ms));
    else CK(CU(cuMemsetD8Async)(bench_dptr(scratch[d]), (unsigned char)value, p->blocker[m], rstream[d]));
}

static double elapsed_ms(const pair_ctx *p, int m, int from, int to)
{
    float ms = 0;
    if (is_mgpu(m)) MK(mgpu_event_elapsed_ms(p->mev[from], p->mev[to], &ms));
    else CK(CU(cuEventElapsedTime)(&ms, rev[dev_of(p, m)][from], rev[dev_of(p, m)][to]));
    return ms;
}

static void wait_end(const pair_ctx *p, int m)
{
    if (is_mgpu(m)) MK(mgpu_event_synchronize(p->mev[2]));
    else CK(CU(cuEventSynchronize)(rev[dev_of(p, m)][2]));
}

/* One repetition of method m: [blocker] start, inner copies, end. Times in ms. */
static void run_once(const pair_ctx *p, int m, size_t n, int inner, int rep,
                     double *gpu_ms, double *blk_ms, double *enq_ms)
{
    int a = p->a, b = p->b, i;
    double t0, t1;
    use_context(p, m);
    if (opt.blocker) { record(p, m, 0); blocker(p, m, rep & 0xff); }
    record(p, m, 1);
    t0 = bench_now_ns();
    switch (m) {
    case M_RAW:
        for (i = 0; i < inner; i++)
            CK(CU(cuMemcpyPeerAsync)(bench_dptr(dst[b]), ctx[b], bench_dptr(src[a]), ctx[a], n, rstream[b]));
        break;
    case M_DIRECT:
        for (i = 0; i < inner; i++) MK(mgpu_copy_peer_async(dst[b], src[a], n, 0, p->ms));
        break;
    case M_STAGED:
        for (i = 0; i < inner; i++) MK(mgpu_copy_peer_async(dst[b], src[a], n, MGPU_COPY_FORCE_STAGED, p->ms));
        break;
    case M_H2D:
        for (i = 0; i < inner; i++) CK(CU(cuMemcpyHtoDAsync)(bench_dptr(dst[b]), h_rand, n, rstream[b]));
        break;
    default:
        for (i = 0; i < inner; i++) CK(CU(cuMemcpyDtoHAsync)(h_check, bench_dptr(src[a]), n, rstream[a]));
        break;
    }
    record(p, m, 2);
    t1 = bench_now_ns();
    wait_end(p, m);
    *gpu_ms = elapsed_ms(p, m, 1, 2);
    *blk_ms = opt.blocker ? elapsed_ms(p, m, 0, 1) : 0.0;
    *enq_ms = (t1 - t0) / 1e6;
}

/* Poisons the destination, copies once, compares with the random source. */
static int verify(const pair_ctx *p, int m, size_t n)
{
    double g, bl, e;
    if (m == M_D2H) {
        memset(h_check, 0xA5, n);
    } else {
        CK(CU(cuCtxSetCurrent)(ctx[p->b]));
        CK(CU(cuMemsetD8)(bench_dptr(dst[p->b]), 0xA5, n));
        CK(CU(cuCtxSynchronize)());      /* cuMemsetD8 is asynchronous for device memory */
    }
    run_once(p, m, n, 1, 0, &g, &bl, &e);
    if (m != M_D2H) {
        CK(CU(cuCtxSetCurrent)(ctx[p->b]));
        CK(CU(cuMemcpyDtoH)(h_check, bench_dptr(dst[p->b]), n));
    }
    return memcmp(h_check, h_rand, n) == 0;
}

static int default_inner(size_t n)
{
    size_t k;
    if (n >= ((size_t)16 << 20)) return 1;
    k = ((size_t)16 << 20) / n;
    return k > 64 ? 64 : (int)k;
}

static size_t round_up_mib(double bytes)
{
    size_t mib = (size_t)(bytes / (1 << 20)) + 1;
    return mib << 20;
}

static void measure(pair_ctx *p, row *out)
{
    static double gpu[M_COUNT][MAX_REPS], enq[M_COUNT][MAX_REPS];
    double blk_last[M_COUNT], enq_last[M_COUNT];
    size_t n = out->bytes;
    int inner = out->inner, m, r, i, hb[M_COUNT];

    /* Fresh random source for this pair and size. */
    bench_fill_random(h_rand, n);
    CK(CU(cuCtxSetCurrent)(ctx[p->a]));
    CK(CU(cuMemcpyHtoD)(bench_dptr(src[p->a]), h_rand, n));
    CK(CU(cuCtxSynchronize)());

    for (m = 0; m < M_COUNT; m++) {
        p->blocker[m] = opt.blocker_max < ((size_t)64 << 20) ? opt.blocker_max : ((size_t)64 << 20);
        out->r[m].ok = verify(p, m, n);            /* also the first warm-up */
        hb[m] = 0;
    }
    for (i = 0; i < opt.warmup; i++)
        for (m = 0; m < M_COUNT; m++) {
            double g;
            run_once(p, m, n, inner, i, &g, &blk_last[m], &enq_last[m]);
        }
    if (opt.blocker)                     /* blocker time >= 1.5 x the enqueue time */
        for (m = 0; m < M_COUNT; m++) {
            double rate = blk_last[m] > 0 ? (double)p->blocker[m] / blk_last[m] : 0;   /* bytes per ms */
            double want = 1.5 * enq_last[m] * rate;
            size_t bytes = rate > 0 ? round_up_mib(want) : opt.blocker_max;
            if (bytes < MIN_BLOCKER) bytes = MIN_BLOCKER;
            if (bytes > opt.blocker_max) bytes = opt.blocker_max;
            p->blocker[m] = bytes;
        }
    for (r = 0; r < opt.reps; r++)
        for (i = 0; i < M_COUNT; i++) {
            double g, bl, e;
            m = (r + i) % M_COUNT;
            run_once(p, m, n, inner, r, &g, &bl, &e);
            gpu[m][r] = g;
            enq[m][r] = e;
            /* The GPU finished about when the host finished enqueueing: host-limited. */
            if (bl + g <= 1.1 * e) hb[m]++;
        }
    for (m = 0; m < M_COUNT; m++) {
        double med = bench_median(gpu[m], opt.reps), emed = bench_median(enq[m], opt.reps);
        result *res = &out->r[m];
        res->gbs = med > 0 ? (double)n * inner / (med * 1e6) : 0;
        res->us_per_copy = med * 1e3 / inner;
        res->enq_us_per_copy = emed * 1e3 / inner;
        res->host_bound = hb[m];
    }
}

static void print_row_detail(const row *w)
{
    char sz[32];
    int m;
    printf("%d->%d %8s x%-3d", w->a, w->b, bench_size_str(w->bytes, sz, sizeof sz), w->inner);
    for (m = 0; m < M_COUNT; m++) {
        const result *r = &w->r[m];
        printf("  %s %7.2f GB/s %8.2f us (enq %.2f us)%s%s", method_name[m], r->gbs, r->us_per_copy,
               r->enq_us_per_copy, r->ok ? "" : " BAD DATA", r->host_bound ? " host-bound" : "");
        if (r->host_bound) printf(" %d/%d", r->host_bound, opt.reps);
    }
    printf("\n");
    fflush(stdout);
}

static int cmp_rows(const void *x, const void *y)
{
    const row *a = (const row *)x, *b = (const row *)y;
    if (a->bytes != b->bytes) return a->bytes < b->bytes ? -1 : 1;
    if (a->a != b->a) return a->a - b->a;
    return a->b - b->b;
}

static void usage(void)
{
    printf("usage: bench_p2p [--sizes 4K,64K,1M,16M,256M,1G] [--pairs all|A-B[,C-D...]] [--reps N>=9]\n"
           "                 [--warmup N] [--inner N (0: auto)] [--no-blocker] [--blocker-max SIZE]\n"
           "  default pairs: every ordered pair at sizes >= 256 MiB, pair 0->1 at smaller sizes\n");
}

static int parse_args(int argc, char **argv)
{
    int i;
    static const size_t defaults[] = { 4u << 10, 64u << 10, 1u << 20, 16u << 20, 256u << 20, (size_t)1 << 30 };
    opt.nsizes = 6;
    memcpy(opt.sizes, defaults, sizeof defaults);
    opt.reps = 11;
    opt.warmup = 3;
    opt.blocker = 1;
    opt.blocker_max = (size_t)1 << 30;
    for (i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) { usage(); exit(0); }
        else if (!strcmp(a, "--no-blocker")) opt.blocker = 0;
        else if (!v) { fprintf(stderr, "bench_p2p: %s needs a value\n", a); return -1; }
        else if (!strcmp(a, "--sizes")) {
            if ((opt.nsizes = bench_parse_list("bench_p2p", "size", v, opt.sizes, MAX_SIZES, 0, 0, 1, 0)) < 0) return -1;
            i++;
        } else if (!strcmp(a, "--pairs")) {
            if (!strcmp(v, "all")) opt.pairs_all = 1;
            else {
                char buf[1024], *tok, *save = NULL;
                snprintf(buf, sizeof buf, "%s", v);
                for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
                    int x, y;
                    char c;
                    if (sscanf(tok, "%d-%d%c", &x, &y, &c) != 2 || x == y || x < 0 || y < 0 ||
                        opt.npairs == MGPU_MAX_DEVICES * MGPU_MAX_DEVICES) {
                        fprintf(stderr, "bench_p2p: bad pair '%s' (use A-B with A != B)\n", tok);
                        return -1;
                    }
                    opt.pa[opt.npairs] = x;
                    opt.pb[opt.npairs++] = y;
                }
            }
            i++;
        } else if (!strcmp(a, "--reps")) { opt.reps = atoi(v); i++; }
        else if (!strcmp(a, "--warmup")) { opt.warmup = atoi(v); i++; }
        else if (!strcmp(a, "--inner")) { opt.inner = atoi(v); i++; }
        else if (!strcmp(a, "--blocker-max")) { opt.blocker_max = bench_parse_size(v); i++; }
        else { fprintf(stderr, "bench_p2p: unknown option %s\n", a); usage(); return -1; }
    }
    if (opt.reps < 9 || opt.reps > MAX_REPS) { fprintf(stderr, "bench_p2p: --reps must be 9..%d\n", MAX_REPS); return -1; }
    if (opt.warmup < 1) { fprintf(stderr, "bench_p2p: --warmup must be >= 1\n"); return -1; }
    if (opt.inner < 0 || opt.inner > 100000) { fprintf(stderr, "bench_p2p: bad --inner\n"); return -1; }
    if (opt.blocker_max < MIN_BLOCKER) { fprintf(stderr, "bench_p2p: --blocker-max must be >= 16M\n"); return -1; }
    return 0;
}

/* Does pair a->b run at size n? */
static int pair_selected(int a, int b, size_t n)
{
    int i;
    if (opt.npairs) {
        for (i = 0; i < opt.npairs; i++) if (opt.pa[i] == a && opt.pb[i] == b) return 1;
        return 0;
    }
    if (opt.pairs_all || n >= ((size_t)256 << 20)) return 1;
    return a == 0 && b == 1;
}

int main(int argc, char **argv)
{
    int rc, a, b, m, i, s, nrows = 0, bad = 0, missed = 0, used[MGPU_MAX_DEVICES];
    int *matrix;
    size_t maxbytes = 0;
    row *rows;
    double worst_ratio = 1e9, worst_staged = 1e9;
    char sz[32];

    if (parse_args(argc, argv)) return 2;
    if ((rc = bench_start("bench_p2p", 2)) != 0) return rc;
    bench_seed();
    ndev = mgpu_device_count();
    for (i = 0; i < opt.npairs; i++)
        if (opt.pa[i] >= ndev || opt.pb[i] >= ndev) {
            fprintf(stderr, "bench_p2p: pair %d-%d: there are %d GPUs\n", opt.pa[i], opt.pb[i], ndev);
            return 2;
        }

    printf("bench_p2p: GPU-to-GPU copies, mgpu against the raw CUDA driver\n");
    bench_print_devices();
    matrix = (int *)calloc((size_t)ndev * ndev, sizeof *matrix);
    if (!matrix) return 1;
    MK(mgpu_peer_matrix(matrix, ndev));
    printf("peer matrix (mgpu_peer_matrix; 1: the row device reads/writes the column device directly):\n     ");
    for (b = 0; b < ndev; b++) printf("%3d", b);
    printf("\n");
    for (a = 0; a < ndev; a++) {
        printf("  %2d ", a);
        for (b = 0; b < ndev; b++) printf("%3s", a == b ? "-" : (matrix[a * ndev + b] ? "1" : "0"));
        printf("\n");
    }

    /* Which devices take part, and the largest size. */
    rows = (row *)calloc((size_t)ndev * ndev * opt.nsizes, sizeof *rows);
    if (!rows) return 1;
    memset(used, 0, sizeof used);
    for (s = 0; s < opt.nsizes; s++) {
        if (opt.sizes[s] > maxbytes) maxbytes = opt.sizes[s];
        for (a = 0; a < ndev; a++)
            for (b = 0; b < ndev; b++)
                if (a != b && pair_selected(a, b, opt.sizes[s])) used[a] = used[b] = 1;
    }

    for (a = 0; a < ndev; a++) {
        if (!used[a]) continue;
        ctx[a] = bench_primary_ctx(a, &cudev[a]);
        CK(CU(cuCtxSetCurrent)(ctx[a]));
        CK(CU(cuStreamCreate)(&rstream[a], CU_STREAM_NON_BLOCKING));
        for (i = 0; i < 3; i++) CK(CU(cuEventCreate)(&rev[a][i], CU_EVENT_DEFAULT));
        MK(mgpu_set_device(a));
        MK(mgpu_malloc(&src[a], maxbytes));
        MK(mgpu_malloc(&dst[a], maxbytes));
        MK(mgpu_malloc(&scratch[a], opt.blocker_max));
        if (!h_rand) {
            CK(CU(cuMemHostAlloc)(&h_rand, maxbytes, CU_MEMHOSTALLOC_PORTABLE));
            CK(CU(cuMemHostAlloc)(&h_check, maxbytes, CU_MEMHOSTALLOC_PORTABLE));
        }
    }
    printf("method: raw = cuMemcpyPeerAsync (raw non-blocking stream on the destination), direct/staged = "
           "mgpu_copy_peer_async (mgpu_stream_create on the destination), H2D/D2H = raw pinned cuMemcpyAsync\n"
           "        median of %d reps after %d warm-ups; x<inner> copies per timed batch; %s; GB/s = 1e9 B/s\n",
           opt.reps, opt.warmup, opt.blocker ? "GPU time behind a calibrated memset blocker" : "no blocker");

    for (a = 0; a < ndev; a++)
        for (b = 0; b < ndev; b++) {
            pair_ctx p;
            int any = 0, can_ab = 0, can_ba = 0;
            if (a == b) continue;
            for (s = 0; s < opt.nsizes; s++) any |= pair_selected(a, b, opt.sizes[s]);
            if (!any) continue;
            memset(&p, 0, sizeof p);
            p.a = a;
            p.b = b;
            /* Raw peer access, both ways, on the same primary contexts mgpu uses. */
            CK(CU(cuDeviceCanAccessPeer)(&can_ab, cudev[a], cudev[b]));
            CK(CU(cuDeviceCanAccessPeer)(&can_ba, cudev[b], cudev[a]));
            if (can_ab) {
                CUresult e;
                CK(CU(cuCtxSetCurrent)(ctx[a]));
                e = CU(cuCtxEnablePeerAccess)(ctx[b], 0);
                if (e != CUDA_SUCCESS && e != CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED) CK(e);
            }
            if (can_ba) {
                CUresult e;
                CK(CU(cuCtxSetCurrent)(ctx[b]));
                e = CU(cuCtxEnablePeerAccess)(ctx[a], 0);
                if (e != CUDA_SUCCESS && e != CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED) CK(e);
            }
            if (!can_ab || !can_ba) printf("note: %d<->%d has no peer access: raw falls back inside the driver\n", a, b);
            MK(mgpu_set_device(b));
            MK(mgpu_stream_create(&p.ms));
            for (i = 0; i < 3; i++) MK(mgpu_event_create(&p.mev[i]));
            for (s = 0; s < opt.nsizes; s++) {
                row *w;
                if (!pair_selected(a, b, opt.sizes[s])) continue;
                w = &rows[nrows++];
                w->a = a;
                w->b = b;
                w->bytes = opt.sizes[s];
                w->inner = opt.inner ? opt.inner : default_inner(w->bytes);
                MK(mgpu_peer_path_get(a, b, &w->path));
                measure(&p, w);
                print_row_detail(w);
                for (m = 0; m < M_COUNT; m++) bad |= !w->r[m].ok;
            }
            for (i = 0; i < 3; i++) MK(mgpu_event_destroy(p.mev[i]));
            MK(mgpu_stream_destroy(p.ms));
        }

    /* The compact table. */
    qsort(rows, (size_t)nrows, sizeof *rows, cmp_rows);
    printf("\n%-6s %-8s %-6s %10s %10s %7s %11s %9s %9s  %s\n", "pair", "size", "path", "raw GB/s", "mgpu GB/s",
           "ratio", "staged GB/s", "H2D GB/s", "D2H GB/s", "targets: direct >= 97% of raw at 256 MiB and 1 GiB; "
           "staged >= 50 GB/s at 1 GiB");
    for (i = 0; i < nrows; i++) {
        const row *w = &rows[i];
        double raw = w->r[M_RAW].gbs, dir = w->r[M_DIRECT].gbs, ratio = raw > 0 ? dir / raw : 0;
        char pair[16], target[96] = "";
        const char *path = w->path == MGPU_PEER_DIRECT ? "direct" : w->path == MGPU_PEER_STAGED ? "staged" : "other";
        snprintf(pair, sizeof pair, "%d->%d", w->a, w->b);
        if (w->bytes == ((size_t)256 << 20) || w->bytes == ((size_t)1 << 30)) {
            int ok = ratio >= 0.97;
            if (ratio < worst_ratio) worst_ratio = ratio;
            missed |= !ok;
            snprintf(target, sizeof target, "direct %s", ok ? "PASS" : "FAIL");
        }
        if (w->bytes == ((size_t)1 << 30)) {
            int ok = w->r[M_STAGED].gbs >= 50.0;
            size_t len = strlen(target);
            if (w->r[M_STAGED].gbs < worst_staged) worst_staged = w->r[M_STAGED].gbs;
            missed |= !ok;
            snprintf(target + len, sizeof target - len, ", staged %s", ok ? "PASS" : "FAIL");
        }
        for (m = 0; m < M_COUNT; m++)
            if (!w->r[m].ok) { size_t len = strlen(target); snprintf(target + len, sizeof target - len, " %s:BAD-DATA", method_name[m]); }
        printf("%-6s %-8s %-6s %10.2f %10.2f %7.3f %11.2f %9.2f %9.2f  %s\n", pair,
               bench_size_str(w->bytes, sz, sizeof sz), path, raw, dir, ratio, w->r[M_STAGED].gbs, w->r[M_H2D].gbs,
               w->r[M_D2H].gbs, target);
    }
    printf("\nbench_p2p summary: %d measurement(s), data %s; ", nrows, bad ? "MISMATCH (see BAD DATA)" : "verified");
    if (worst_ratio < 1e9) printf("worst direct/raw at >= 256 MiB %.3f (target >= 0.97: %s); ", worst_ratio,
                                  worst_ratio >= 0.97 ? "PASS" : "FAIL");
    else printf("no 256 MiB/1 GiB rows (direct target not evaluated); ");
    if (worst_staged < 1e9) printf("worst staged at 1 GiB %.1f GB/s (target >= 50: %s)\n", worst_staged,
                                   worst_staged >= 50.0 ? "PASS" : "FAIL");
    else printf("no 1 GiB rows (staged target not evaluated)\n");

    for (a = 0; a < ndev; a++) {
        if (!used[a]) continue;
        CK(CU(cuCtxSetCurrent)(ctx[a]));
        for (i = 0; i < 3; i++) CK(CU(cuEventDestroy)(rev[a][i]));
        CK(CU(cuStreamDestroy)(rstream[a]));
        MK(mgpu_free(src[a]));
        MK(mgpu_free(dst[a]));
        MK(mgpu_free(scratch[a]));
    }
    CK(CU(cuMemFreeHost)(h_rand));
    CK(CU(cuMemFreeHost)(h_check));
    MK(mgpu_shutdown());
    for (a = 0; a < ndev; a++)
        if (used[a]) CK(CU(cuDevicePrimaryCtxRelease)(cudev[a]));
    free(rows);
    free(matrix);
    return bad ? 1 : (missed ? 3 : 0);
}
