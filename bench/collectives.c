/* bench_collectives - mgpu's multi-GPU collectives against NCCL, on every GPU (--ndev).

   Operations (sizes are per GPU for all-reduce and broadcast, in total for scatter/gather):
     all-reduce  f32 sum, in place, --sizes (256 MiB, 1 GiB):
                   mgpu_allreduce_async(bufs, n, MGPU_F32, MGPU_OP_SUM, NULL, N, streams)
                   ncclAllReduce(buf, buf, n, ncclFloat, ncclSum, comm_i, stream_i), grouped
     broadcast   --bcast-bytes (1 GiB) from GPU --root (0), in place:
                   mgpu_broadcast_async / ncclBroadcast(ncclInt8), grouped
     scatter     --sg-bytes (1 GiB) of f32 from the root GPU's memory to every GPU, even
                 slices (mgpu_split EVEN, 256-byte aligned): mgpu_scatter_async
     gather      the reverse into one buffer on the root GPU: mgpu_gather_async
     scatter/gather from/to pinned host memory (mgpu_malloc_host): the same, for reference
   NCCL: one communicator per GPU in this process (ncclCommInitAll), all ranks driven from
   this thread inside ncclGroupStart/End, on its own non-blocking runtime streams
   (bench/peers/nccl_peer.cu). mgpu: one mgpu_stream_create(NON_BLOCKING) stream per GPU.
   Timing, both alike: an event on every GPU's stream, the operation, an event on every
   GPU's stream, wait; the time of a repetition is the largest stop - start over the GPUs;
   median of --reps repetitions after --warmup, the libraries alternating (which goes first
   changes every repetition). Before every repetition, outside the timed region, all-reduce
   buffers are restored from a pristine copy (device-to-device) and the destinations of the
   other operations are cleared, so every repetition does the full work on fresh data.
   algbw = bytes / time (bytes per GPU for all-reduce and broadcast, the total for
   scatter/gather); busbw = algbw * 2(N-1)/N for all-reduce and algbw for the others (the
   nccl-tests conventions). GB/s = 1e9 B/s.
   Data: fresh random f32 per GPU, generated on the host every run. Checked after the first
   warm-up and after the last repetition of each library: all-reduce against the float64
   sum over GPUs (within N^2 * 2^-22), plus for mgpu the documented bit-identity across GPUs
   and (reported only) the documented order of its additions; broadcast, scatter and gather
   byte for byte. Targets: all-reduce busbw >= 95% of NCCL's at 256 MiB and 1 GiB; broadcast
   >= NCCL; device scatter and gather >= 390 GB/s. Exit: 0 targets met, 3 a target missed (or
   not measurable: no NCCL), 77 fewer than 2 GPUs or no GPU, 1 an error or wrong data, 2 bad
   arguments. NCCL_NVLS_ENABLE=0 is set unless the environment says otherwise. */
#include "bench_util.h"
#include "peers/peers.h"
#include <math.h>

#define MAX_SIZES 8
#define MAX_REPS 1000
enum { L_MGPU, L_NCCL };
static const char *const lib_name[2] = { "mgpu", "NCCL" };
enum { T_ALLREDUCE, T_BROADCAST, T_SCATTER, T_GATHER, T_SCATTER_HOST, T_GATHER_HOST };
static const char *const test_name[] = { "all-reduce", "broadcast", "scatter", "gather", "scatter host", "gather host" };

static struct {
    size_t sizes[MAX_SIZES];
    int nsizes;
    size_t bcast_bytes, sg_bytes;
    int reps, warmup, ndev, root, nccl, host_sg;
} opt;

static int N;                            /* GPUs used: devices 0..N-1 */
static mgpu_stream st[MGPU_MAX_DEVICES];
static mgpu_event ev0[MGPU_MAX_DEVICES], ev1[MGPU_MAX_DEVICES];
static float *buf[MGPU_MAX_DEVICES];     /* the operands (max_bytes each) */
static float *orig[MGPU_MAX_DEVICES];    /* pristine copies of the inputs */
static float *gdst;                      /* gather destination on the root */
static float *hin[MGPU_MAX_DEVICES];     /* host copies of the inputs */
static float *ref;                       /* all-reduce: float64 sum over GPUs, rounded */
static float *hchk, *hchk0, *hsg;        /* pinned: check buffers, host scatter source */
static size_t max_bytes;
static int have_nccl;
static char err[1024];

#define PK(call) do { if ((call) != 0) { fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #call, err); \
    exit(1); } } while (0)

/* Fresh random floats in [-0.5, 1.5) (24 random bits each, exact). */
static void fill_random_f32(float *p, size_t n)
{
    uint64_t s = bench_splitmix(&bench_seed_state);
    const float scale = 2.0f / 16777216.0f;
    size_t i = 0;
    for (; i + 2 <= n; i += 2) {
        uint64_t x = bench_splitmix(&s);
        p[i] = (float)(uint32_t)(x & 0xFFFFFFu) * scale - 0.5f;
        p[i + 1] = (float)(uint32_t)((x >> 32) & 0xFFFFFFu) * scale - 0.5f;
    }
    if (i < n) p[i] = (float)(uint32_t)(bench_splitmix(&s) & 0xFFFFFFu) * scale - 0.5f;
}

static void sync_all(void)
{
    int d;
    for (d = 0; d < N; d++) MK(mgpu_stream_synchronize(st[d]));
}

/* ------------------------------------------------------------------ one test */
typedef struct {
    int kind;
    size_t bytes;                        /* per GPU (all-reduce, broadcast) or total */
    mgpu_range rg[MGPU_MAX_DEVICES];     /* scatter/gather slices */
    double ms[2][MAX_REPS];
    double med_ms[2], algbw[2], busbw[2];
    int ran[2], bad[2], checks[2];
    int not_identical, order_exact, order_checked;
} test;

/* Clears what the operation writes (outside the timed region), or restores its inputs. */
static void prepare(test *t, int lib, int verify)
{
    int d;
    (void)lib;
    switch (t->kind) {
    case T_ALLREDUCE:
        for (d = 0; d < N; d++) MK(mgpu_memcpy_async(buf[d], orig[d], t->bytes, st[d]));
        break;
    case T_BROADCAST:
        for (d = 0; d < N; d++)
            if (d == opt.root) MK(mgpu_memcpy_async(buf[d], orig[d], t->bytes, st[d]));
            else MK(mgpu_memset_async(buf[d], 0, t->bytes, st[d]));
        break;
    case T_SCATTER: case T_SCATTER_HOST:
        for (d = 0; d < N; d++)
            if (t->rg[d].count) MK(mgpu_memset_async(buf[d], 0, t->rg[d].count * sizeof(float), st[d]));
        break;
    case T_GATHER:
        MK(mgpu_memset_async(gdst, 0, t->bytes, st[opt.root]));
        break;
    case T_GATHER_HOST:
        if (verify) memset(hchk, 0, t->bytes);
        break;
    }
    sync_all();
}

/* One timed operation; returns the largest per-GPU event time in ms. */
static double run_op(test *t, int lib)
{
    int d;
    float worst = 0;
    size_t n = t->bytes / sizeof(float);
    if (lib == L_NCCL) {
        float ms = 0;
        if (t->kind == T_ALLREDUCE) PK(ncclpeer_allreduce_f32((void *const *)buf, n, &ms, NULL, err, sizeof err));
        else PK(ncclpeer_broadcast((void *const *)buf, t->bytes, opt.root, &ms, NULL, err, sizeof err));
        return ms;
    }
    for (d = 0; d < N; d++) MK(mgpu_event_record(ev0[d], st[d]));
    switch (t->kind) {
    case T_ALLREDUCE:
        MK(mgpu_allreduce_async((void *const *)buf, n, MGPU_F32, MGPU_OP_SUM, NULL, N, st));
        break;
    case T_BROADCAST:
        MK(mgpu_broadcast_async((void *const *)buf, t->bytes, opt.root, NULL, N, st));
        break;
    case T_SCATTER:
        MK(mgpu_scatter_async(orig[opt.root], sizeof(float), t->rg, N, (void *const *)buf, st));
        break;
    case T_SCATTER_HOST:
        MK(mgpu_scatter_async(hsg, sizeof(float), t->rg, N, (void *const *)buf, st));
        break;
    case T_GATHER:
        MK(mgpu_gather_async(gdst, sizeof(float), t->rg, N, (const void *const *)buf, st));
        break;
    case T_GATHER_HOST:
        MK(mgpu_gather_async(hchk, sizeof(float), t->rg, N, (const void *const *)buf, st));
        break;
    }
    for (d = 0; d < N; d++) MK(mgpu_event_record(ev1[d], st[d]));
    for (d = 0; d < N; d++) {
        float ms = 0;
        MK(mgpu_event_synchronize(ev1[d]));
        MK(mgpu_event_elapsed_ms(ev0[d], ev1[d], &ms));
        if (ms > worst) worst = ms;
    }
    return worst;
}

/* Checks the result; returns the number of wrong elements (or bytes), reports the first. */
static size_t check(test *t, int lib)
{
    size_t bad = 0, n = t->bytes / sizeof(float), e;
    int d;
    sync_all();
    switch (t->kind) {
    case T_ALLREDUCE: {
        const float tol = (float)N * (float)N * (1.0f / 4194304.0f);     /* N^2 * 2^-22 */
        mgpu_range sl[MGPU_MAX_DEVICES];
        for (d = 0; d < N; d++) {
            float *h = d == 0 ? hchk0 : hchk;
            MK(mgpu_memcpy(h, buf[d], t->bytes));
            for (e = 0; e < n; e++)
                if (!(fabsf(h[e] - ref[e]) <= tol)) {
                    if (!bad) fprintf(stderr, "bench_collectives: %s all-reduce %zu B: GPU %d element %zu = %.9g, expected %.9g\n",
                                      lib_name[lib], t->bytes, d, e, (double)h[e], (double)ref[e]);
                    bad++;
                }
            if (d > 0 && lib == L_MGPU && memcmp(h, hchk0, t->bytes) != 0) t->not_identical++;
        }
        /* mgpu documents the order: slice r (mgpu_split EVEN, 256-byte aligned) is
           b_r + b_{r+1} + ... + b_{r+N-1} (mod N), left to right, in float. */
        if (lib == L_MGPU && !t->order_checked) {
            int r, k;
            t->order_checked = 1;
            t->order_exact = 1;
            MK(mgpu_split(n, NULL, N, MGPU_SPLIT_EVEN, NULL, 0, 256 / sizeof(float), sl));
            for (r = 0; r < N && t->order_exact; r++)
                for (e = sl[r].offset; e < sl[r].offset + sl[r].count; e++) {
                    float acc = hin[r][e];
                    for (k = 1; k < N; k++) acc += hin[(r + k) % N][e];
                    if (memcmp(&acc, &hchk0[e], sizeof acc) != 0) { t->order_exact = 0; break; }
                }
        }
        break;
    }
    case T_BROADCAST:
        for (d = 0; d < N; d++) {
            if (d == opt.root) continue;
            MK(mgpu_memcpy(hchk, buf[d], t->bytes));
            if (memcmp(hchk, hin[opt.root], t->bytes) != 0) {
                if (!bad) fprintf(stderr, "bench_collectives: %s broadcast: GPU %d differs from the root's data\n",
                                  lib_name[lib], d);
                bad++;
            }
        }
        break;
    case T_SCATTER: case T_SCATTER_HOST:
        for (d = 0; d < N; d++) {
            size_t b = t->rg[d].count * sizeof(float);
            if (!b) continue;
            MK(mgpu_memcpy(hchk, buf[d], b));
            if (memcmp(hchk, hin[opt.root] + t->rg[d].offset, b) != 0) {
                if (!bad) fprintf(stderr, "bench_collectives: %s: GPU %d's slice differs\n", test_name[t->kind], d);
                bad++;
            }
        }
        break;
    case T_GATHER:
        MK(mgpu_memcpy(hchk, gdst, t->bytes));
        /* fall through */
    case T_GATHER_HOST:
        if (memcmp(hchk, hin[opt.root], t->bytes) != 0) {
            fprintf(stderr, "bench_collectives: %s: the gathered data differs\n", test_name[t->kind]);
            bad++;
        }
        break;
    }
    t->checks[lib]++;
    return bad;
}

static void run_test(test *t)
{
    int i, k, total = opt.warmup + opt.reps;
    double f = t->kind == T_ALLREDUCE ? 2.0 * (N - 1) / N : 1.0;
    char sz[32];
    t->ran[L_MGPU] = 1;
    t->ran[L_NCCL] = have_nccl && (t->kind == T_ALLREDUCE || t->kind == T_BROADCAST);
    if (t->kind == T_SCATTER || t->kind == T_GATHER || t->kind == T_SCATTER_HOST || t->kind == T_GATHER_HOST)
        MK(mgpu_split(t->bytes / sizeof(float), NULL, N, MGPU_SPLIT_EVEN, NULL, 0, 256 / sizeof(float), t->rg));
    for (i = 0; i < total; i++)
        for (k = 0; k < 2; k++) {
            int lib = (i + k) % 2, verify = i == 0 || i == total - 1;
            double ms;
            if (!t->ran[lib]) continue;
            prepare(t, lib, verify);
            ms = run_op(t, lib);
            if (verify && check(t, lib)) t->bad[lib]++;
            if (i >= opt.warmup) t->ms[lib][i - opt.warmup] = ms;
        }
    printf("%-12s %8s", test_name[t->kind], bench_size_str(t->bytes, sz, sizeof sz));
    for (k = 0; k < 2; k++) {
        if (!t->ran[k]) continue;
        t->med_ms[k] = bench_median(t->ms[k], opt.reps);
        t->algbw[k] = t->med_ms[k] > 0 ? (double)t->bytes / (t->med_ms[k] * 1e6) : 0;
        t->busbw[k] = t->algbw[k] * f;
        printf("  %s %.3f ms algbw %.1f busbw %.1f GB/s%s", lib_name[k], t->med_ms[k], t->algbw[k], t->busbw[k],
               t->bad[k] ? " WRONG DATA" : "");
    }
    if (t->kind == T_ALLREDUCE)
        printf("  [mgpu: %s across GPUs; order %s]", t->not_identical ? "NOT identical" : "identical",
               t->order_exact ? "as documented" : "differs from the documentation");
    printf("\n");
    fflush(stdout);
}

/* ------------------------------------------------------------------ arguments */
static void usage(void)
{
    printf("usage: bench_collectives [--sizes 256M,1G] [--bcast-bytes 1G] [--sg-bytes 1G] [--root 0] [--ndev N]\n"
           "                         [--reps N>=9] [--warmup N] [--no-nccl] [--no-host]\n"
           "  --sizes: all-reduce bytes per GPU (multiples of 4); --sg-bytes: scatter/gather total\n");
}

static int parse_args(int argc, char **argv)
{
    int i;
    opt.sizes[0] = (size_t)256 << 20;
    opt.sizes[1] = (size_t)1 << 30;
    opt.nsizes = 2;
    opt.bcast_bytes = (size_t)1 << 30;
    opt.sg_bytes = (size_t)1 << 30;
    opt.reps = 21;
    opt.warmup = 3;
    opt.nccl = 1;
    opt.host_sg = 1;
    for (i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) { usage(); exit(0); }
        else if (!strcmp(a, "--no-nccl")) opt.nccl = 0;
        else if (!strcmp(a, "--no-host")) opt.host_sg = 0;
        else if (!v) { fprintf(stderr, "bench_collectives: %s needs a value\n", a); return -1; }
        else if (!strcmp(a, "--sizes")) {
            if ((opt.nsizes = bench_parse_list("bench_collectives", "size", v, opt.sizes, MAX_SIZES, 0, 0, 4, 0)) < 0) return -1;
            i++;
        } else if (!strcmp(a, "--bcast-bytes")) { opt.bcast_bytes = bench_parse_size(v); i++; }
        else if (!strcmp(a, "--sg-bytes")) { opt.sg_bytes = bench_parse_size(v); i++; }
        else if (!strcmp(a, "--root")) { opt.root = atoi(v); i++; }
        else if (!strcmp(a, "--ndev")) { opt.ndev = atoi(v); i++; }
        else if (!strcmp(a, "--reps")) { opt.reps = atoi(v); i++; }
        else if (!strcmp(a, "--warmup")) { opt.warmup = atoi(v); i++; }
        else { fprintf(stderr, "bench_collectives: unknown option %s\n", a); usage(); return -1; }
    }
    if (opt.reps < 9 || opt.reps > MAX_REPS) { fprintf(stderr, "bench_collectives: --reps must be 9..%d\n", MAX_REPS); return -1; }
    if (opt.warmup < 1) { fprintf(stderr, "bench_collectives: --warmup must be >= 1\n"); return -1; }
    if (!opt.bcast_bytes || !opt.sg_bytes || opt.sg_bytes % 4) {
        fprintf(stderr, "bench_collectives: bad --bcast-bytes / --sg-bytes (> 0; scatter/gather a multiple of 4)\n");
        return -1;
    }
    if (opt.ndev < 0 || opt.ndev == 1 || opt.ndev > MGPU_MAX_DEVICES) { fprintf(stderr, "bench_collectives: --ndev must be >= 2\n"); return -1; }
    if (opt.root < 0) { fprintf(stderr, "bench_collectives: bad --root\n"); return -1; }
    return 0;
}

int main(int argc, char **argv)
{
    int rc, d, s, e2, bad = 0, missed = 0, nccl_missing = 0, ntests = 0, i;
    int ordinals[MGPU_MAX_DEVICES];
    size_t e, max_ar = 0;
    test *tests;
    char why[512], line[2048], sz[32];
    size_t len = 0;

    if (parse_args(argc, argv)) return 2;
    if (!getenv("NCCL_NVLS_ENABLE")) setenv("NCCL_NVLS_ENABLE", "0", 0);     /* no NVLink multicast */
    if ((rc = bench_start("bench_collectives", 2)) != 0) return rc;
    N = opt.ndev ? opt.ndev : mgpu_device_count();
    if (N > mgpu_device_count() || opt.root >= N) {
        fprintf(stderr, "bench_collectives: --ndev %d / --root %d: there are %d GPUs\n", N, opt.root, mgpu_device_count());
        return 2;
    }
    bench_seed();
    printf("bench_collectives: mgpu collectives against NCCL on %d GPUs\n", N);
    bench_print_devices();

    for (s = 0; s < opt.nsizes; s++) if (opt.sizes[s] > max_ar) max_ar = opt.sizes[s];
    max_bytes = max_ar;
    if (opt.bcast_bytes > max_bytes) max_bytes = opt.bcast_bytes;
    if (opt.sg_bytes > max_bytes) max_bytes = opt.sg_bytes;

    /* Peer access for mgpu, as an application would enable it (NCCL sets up its own). */
    for (d = 0; d < N; d++)
        for (e2 = 0; e2 < N; e2++) {
            int yes = 0;
            if (d == e2) continue;
            MK(mgpu_can_access_peer(d, e2, &yes));
            if (yes) MK(mgpu_enable_peer_access(d, e2));
            else printf("note: GPU %d cannot access GPU %d directly (mgpu stages through host memory)\n", d, e2);
        }

    /* Buffers and fresh data. */
    for (d = 0; d < N; d++) {
        mgpu_device_info info;
        MK(mgpu_device_info_get(d, &info));
        ordinals[d] = info.ordinal;
        MK(mgpu_set_device(d));
        MK(mgpu_stream_create_flags(&st[d], MGPU_STREAM_NON_BLOCKING));
        MK(mgpu_event_create(&ev0[d]));
        MK(mgpu_event_create(&ev1[d]));
        MK(mgpu_malloc((void **)&buf[d], max_bytes));
        MK(mgpu_malloc((void **)&orig[d], max_bytes));
        hin[d] = (float *)malloc(max_bytes);
        if (!hin[d]) { fprintf(stderr, "bench_collectives: out of host memory\n"); return 1; }
        fill_random_f32(hin[d], max_bytes / sizeof(float));
        MK(mgpu_memcpy(orig[d], hin[d], max_bytes));
    }
    MK(mgpu_set_device(opt.root));
    MK(mgpu_malloc((void **)&gdst, opt.sg_bytes));
    MK(mgpu_malloc_host((void **)&hchk, max_bytes));
    MK(mgpu_malloc_host((void **)&hchk0, max_bytes));
    if (opt.host_sg) {
        MK(mgpu_malloc_host((void **)&hsg, opt.sg_bytes));
        memcpy(hsg, hin[opt.root], opt.sg_bytes);
    }
    ref = (float *)malloc(max_ar ? max_ar : 4);
    if (!ref) { fprintf(stderr, "bench_collectives: out of host memory\n"); return 1; }
    for (e = 0; e < max_ar / sizeof(float); e++) {
        double acc = 0;
        for (d = 0; d < N; d++) acc += hin[d][e];
        ref[e] = (float)acc;
    }

    have_nccl = 0;
    if (!opt.nccl) printf("NCCL: skipped (--no-nccl)\n");
    else if (!ncclpeer_available(why, sizeof why)) printf("NCCL: %s; measuring mgpu only\n", why);
    else {
        PK(ncclpeer_init(N, ordinals, err, sizeof err));
        have_nccl = 1;
        printf("NCCL: %s, ncclCommInitAll over %d GPUs, NCCL_NVLS_ENABLE=%s\n", ncclpeer_version(), N,
               getenv("NCCL_NVLS_ENABLE"));
    }
    nccl_missing = !have_nccl;
    printf("method: events on every GPU's stream around one operation, max over GPUs; median of %d reps after %d "
           "warm-ups; libraries alternate; inputs restored / outputs cleared before each rep (untimed)\n",
           opt.reps, opt.warmup);
    fflush(stdout);

    tests = (test *)calloc((size_t)opt.nsizes + 5, sizeof *tests);
    if (!tests) return 1;
    for (s = 0; s < opt.nsizes; s++) { tests[ntests].kind = T_ALLREDUCE; tests[ntests++].bytes = opt.sizes[s]; }
    tests[ntests].kind = T_BROADCAST; tests[ntests++].bytes = opt.bcast_bytes;
    tests[ntests].kind = T_SCATTER; tests[ntests++].bytes = opt.sg_bytes;
    tests[ntests].kind = T_GATHER; tests[ntests++].bytes = opt.sg_bytes;     /* reads what scatter wrote */
    if (opt.host_sg) {
        tests[ntests].kind = T_SCATTER_HOST; tests[ntests++].bytes = opt.sg_bytes;
        tests[ntests].kind = T_GATHER_HOST; tests[ntests++].bytes = opt.sg_bytes;
    }
    for (i = 0; i < ntests; i++) run_test(&tests[i]);

    /* ---- the compact table */
    printf("\n%-12s %8s %9s %10s %10s %9s %10s %9s  %s\n", "op", "size", "mgpu ms", "mgpu algbw", "mgpu busbw", "NCCL ms",
           "NCCL busbw", "mgpu/NCCL", "targets (GB/s = 1e9 B/s)");
    for (i = 0; i < ntests; i++) {
        test *t = &tests[i];
        double ratio = t->ran[L_NCCL] && t->busbw[L_NCCL] > 0 ? t->busbw[L_MGPU] / t->busbw[L_NCCL] : 0;
        char tg[160] = "", nms[16] = "-", nbw[16] = "-", rt[16] = "-";
        size_t tl = 0;
        int k;
        for (k = 0; k < 2; k++) bad |= t->bad[k] != 0;
        bad |= t->not_identical != 0;
        if (t->ran[L_NCCL]) {
            snprintf(nms, sizeof nms, "%.3f", t->med_ms[L_NCCL]);
            snprintf(nbw, sizeof nbw, "%.1f", t->busbw[L_NCCL]);
            snprintf(rt, sizeof rt, "%.3f", ratio);
        }
        if (t->kind == T_ALLREDUCE && (t->bytes == ((size_t)256 << 20) || t->bytes == ((size_t)1 << 30))) {
            int ok = t->ran[L_NCCL] && ratio >= 0.95;
            missed |= !ok;
            bench_append(tg, sizeof tg, &tl, "busbw >= 95%% NCCL %s", !t->ran[L_NCCL] ? "NOT MEASURED" : ok ? "PASS" : "FAIL");
        } else if (t->kind == T_BROADCAST) {
            int ok = t->ran[L_NCCL] && ratio >= 1.0;
            missed |= !ok;
            bench_append(tg, sizeof tg, &tl, ">= NCCL %s", !t->ran[L_NCCL] ? "NOT MEASURED" : ok ? "PASS" : "FAIL");
        } else if (t->kind == T_SCATTER || t->kind == T_GATHER) {
            int ok = t->algbw[L_MGPU] >= 390.0;
            missed |= !ok;
            bench_append(tg, sizeof tg, &tl, ">= 390 GB/s %s", ok ? "PASS" : "FAIL");
        } else if (t->kind != T_ALLREDUCE) bench_append(tg, sizeof tg, &tl, "(reference)");
        for (k = 0; k < 2; k++) if (t->bad[k]) bench_append(tg, sizeof tg, &tl, " %s:WRONG-DATA", lib_name[k]);
        if (t->not_identical) bench_append(tg, sizeof tg, &tl, " mgpu:GPUs-differ");
        printf("%-12s %8s %9.3f %10.1f %10.1f %9s %10s %9s  %s\n", test_name[t->kind], bench_size_str(t->bytes, sz, sizeof sz),
               t->med_ms[L_MGPU], t->algbw[L_MGPU], t->busbw[L_MGPU], nms, nbw, rt, tg);
    }
    printf("(all-reduce/broadcast size per GPU, scatter/gather total; busbw: all-reduce algbw*2(N-1)/N, others algbw; "
           "mgpu/NCCL = busbw ratio)\n");

    bench_append(line, sizeof line, &len, "bench_collectives summary: %d GPUs, data %s", N, bad ? "WRONG" : "verified");
    for (i = 0; i < ntests; i++) {
        test *t = &tests[i];
        bench_append(line, sizeof line, &len, "; %s %s %.0f GB/s", test_name[t->kind], bench_size_str(t->bytes, sz, sizeof sz),
               t->busbw[L_MGPU]);
        if (t->ran[L_NCCL] && t->busbw[L_NCCL] > 0)
            bench_append(line, sizeof line, &len, " (%.0f%% NCCL)", 100.0 * t->busbw[L_MGPU] / t->busbw[L_NCCL]);
    }
    if (nccl_missing) bench_append(line, sizeof line, &len, "; NCCL not measured (its targets count as missed)");
    bench_append(line, sizeof line, &len, "; targets %s", bad ? "n/a (wrong data)" : missed ? "MISSED" : "met");
    printf("\n%s\n", line);

    if (have_nccl) ncclpeer_shutdown();
    for (d = 0; d < N; d++) {
        MK(mgpu_free(buf[d]));
        MK(mgpu_free(orig[d]));
        MK(mgpu_event_destroy(ev0[d]));
        MK(mgpu_event_destroy(ev1[d]));
        MK(mgpu_stream_destroy(st[d]));
        free(hin[d]);
    }
    MK(mgpu_free(gdst));
    MK(mgpu_free_host(hchk));
    MK(mgpu_free_host(hchk0));
    if (hsg) MK(mgpu_free_host(hsg));
    MK(mgpu_shutdown());
    free(ref);
    free(tests);
    return bad ? 1 : (missed ? 3 : 0);
}
