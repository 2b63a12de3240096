/* bench_reduce - f32 sum: mgpu_reduce_async against CUB and a read-only bandwidth ceiling,
   then mgpu's multi-GPU reductions against one GPU and against the host-to-device links.

   One GPU (--device, default 0), every size n of --n (default 2^20, 2^24, 2^28 floats):
     mgpu    mgpu_reduce_async(src, n, MGPU_F32, MGPU_OP_SUM, result in device memory, s)
     pinned  the same with the result in pinned host memory (mgpu_malloc_host)
     CUB     cub::DeviceReduce::Sum(temp, bytes, src, result in device memory, n, s); its
             temporary storage is allocated once, outside the timed region
     read    a read-only kernel: 16-byte loads of every element, XOR-folded into a word
             stored only on an impossible match (bench/peers/cub_reduce.cu); the fastest of
             its launch configurations (a short trial before the warm-up) is the ceiling
   s is one mgpu stream (mgpu_stream_create); CUB and the read kernel run on the same
   CUstream (mgpu_native_stream) through the CUDA runtime, on the same primary context.
   Timing: CUDA events on s (mgpu events for mgpu, runtime events for CUB/read). One
   repetition = [blocker] event start, `inner` back-to-back calls, event stop. The blocker is
   a one-thread kernel spinning on %globaltimer, calibrated in the warm-up to outlast the
   host's enqueueing of the batch (1.5x + 20 us), so the GPU time excludes launch latency
   for every method alike; --no-blocker times the batch as it is enqueued. The methods run
   round-robin in each repetition (rotating order). Median of --reps repetitions.
   Cache state: n * 4 <= 16 MiB is measured warm (the same buffer every call: it stays in
   the 50-60 MB L2). Larger n are cold: call i of a batch reads slot (first + i) % nslots of
   one 1 GiB (at least) device buffer, nslots = buffer / (n * 4) (16 for 2^24), so every call
   reads data last touched >= 960 MiB of reads earlier; CUB and the read kernel rotate the
   same way. 2^28 is the whole 1 GiB buffer.
   Data: fresh random floats in [-0.5, 1.5) (24 random bits each, generated on the host
   every run); every result of every batch is checked against a float64 host sum (error
   <= 1e-6 * sum |x|, else exit 1). Accuracy: |mgpu - sum| / |sum| at the largest n
   (target <= 1e-6). Determinism: every mgpu result for the same data must be the same bits
   across all repetitions (and device/pinned results alike).

   Multi-GPU (>= 2 GPUs; --ndev, default all; --no-multi skips), wall-clock times of the
   synchronous calls, median of --reps, both variants alternating:
     resident  mgpu_reduce_resident over N shards of --shard-bytes (1 GiB) of fresh floats,
               one per GPU, against mgpu_reduce_resident of one shard on GPU 0:
               scaling = N * t_one / t_all (target >= 0.95 N: 3.8x on 4 GPUs)
     host      mgpu_reduce_multi of --host-bytes (4 GiB) of pinned host floats
               (mgpu_malloc_host) over the N GPUs, against the aggregate pinned H2D
               bandwidth: every GPU copies its even slice with a raw cuMemcpyHtoDAsync on its
               own stream, all at once (start to the last stream's completion):
               ratio = t_h2d / t_multi (target >= 0.90)
   GB/s = 1e9 bytes per second of f32 data read. Exit: 0 targets met, 3 a target missed, 77
   no GPU, 1 an error or a wrong result, 2 bad arguments. */
#include "bench_util.h"
#include "peers/peers.h"
#include <math.h>
#include <stdarg.h>

enum { M_MGPU, M_PINNED, M_CUB, M_READ, M_COUNT };
static const char *const method_name[M_COUNT] = { "mgpu", "pinned", "CUB", "read" };

#define MAX_SIZES 16
#define MAX_REPS 1000
#define MAX_SLOTS 64
#define MAX_INNER 256
#define WARM_BYTES ((size_t)16 << 20)    /* at most this is measured warm in L2 */
#define MIN_BUF_BYTES ((size_t)1 << 30)  /* the rotation buffer for cold sizes */

static struct {
    int device;
    size_t n[MAX_SIZES];
    int nsizes;
    int reps, warmup, inner, blocker, multi, ndev;
    size_t shard_bytes, host_bytes;
} opt;

typedef struct {
    float ms;                            /* batch GPU time */
    float blocker_ms;
    double enqueue_us;
} timing;

typedef struct {
    size_t n, stride;
    int cold, nslots, inner;
    double ref[MAX_SLOTS], abs_ref[MAX_SLOTS];       /* float64 host sums per slot */
    double us[M_COUNT], gbs[M_COUNT];                /* per call */
    double blocker_us[M_COUNT];
    int host_bound[M_COUNT], bad[M_COUNT], nondet[M_COUNT], checked[M_COUNT];
    uint32_t bits[M_COUNT][MAX_SLOTS];
    int have_bits[M_COUNT][MAX_SLOTS];
    double max_rel[M_COUNT];             /* largest |got - ref| / |ref| */
    int read_cfg;
} size_row;

static struct {
    mgpu_device dev;
    mgpu_stream ms;
    void *cs;                            /* its CUstream */
    mgpu_event ev[3];
    float *src;                          /* the buffer (buf_elems floats) */
    size_t buf_elems;
    float *d_res, *h_res;                /* MAX_INNER results: device, pinned */
    float *h_check;
    void *cub_temp;
    size_t cub_temp_bytes;
    unsigned *sink;
    int have_cub;
    char cub_why[256];
} g;

static float *hbuf;                      /* pinned host staging / the host array */
static size_t hbuf_bytes;
static char err[1024];

#define PK(call) do { if ((call) != 0) { fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #call, err); \
    exit(1); } } while (0)

/* ------------------------------------------------------------------ data */
/* Fresh random floats in [-0.5, 1.5): exact (24 random bits, scaled by a power of two). */
static void fill_random_f32(float *p, size_t n, double *sum, double *abs_sum)
{
    uint64_t s = bench_splitmix(&bench_seed_state);
    double a0 = 0, a1 = 0, b0 = 0, b1 = 0;
    const float scale = 2.0f / 16777216.0f;
    size_t i = 0;
    for (; i + 2 <= n; i += 2) {
        uint64_t x = bench_splitmix(&s);
        float f0 = (float)(uint32_t)(x & 0xFFFFFFu) * scale - 0.5f;
        float f1 = (float)(uint32_t)((x >> 32) & 0xFFFFFFu) * scale - 0.5f;
        p[i] = f0;
        p[i + 1] = f1;
        a0 += f0; a1 += f1;
        b0 += fabs(f0); b1 += fabs(f1);
    }
    if (i < n) {
        float f = (float)(uint32_t)(bench_splitmix(&s) & 0xFFFFFFu) * scale - 0.5f;
        p[i] = f;
        a0 += f; b0 += fabs(f);
    }
    if (sum) *sum = a0 + a1;
    if (abs_sum) *abs_sum = b0 + b1;
}

static void sum_f32(const float *p, size_t n, double *sum, double *abs_sum)
{
    double a[4] = { 0, 0, 0, 0 }, b[4] = { 0, 0, 0, 0 };
    size_t i = 0;
    for (; i + 4 <= n; i += 4) {
        a[0] += p[i]; a[1] += p[i + 1]; a[2] += p[i + 2]; a[3] += p[i + 3];
        b[0] += fabs(p[i]); b[1] += fabs(p[i + 1]); b[2] += fabs(p[i + 2]); b[3] += fabs(p[i + 3]);
    }
    for (; i < n; i++) { a[0] += p[i]; b[0] += fabs(p[i]); }
    *sum = (a[0] + a[1]) + (a[2] + a[3]);
    *abs_sum = (b[0] + b[1]) + (b[2] + b[3]);
}

static uint32_t f32_bits(float f) { uint32_t u; memcpy(&u, &f, sizeof u); return u; }

/* The f32 result agrees with the float64 sum up to 1e-6 of sum |x|: loose enough for a
   float accumulation (CUB's), tight enough to see a few missing or doubled elements at
   2^20 (and any missing 256-element block at 2^28). */
static int result_ok(float got, double ref, double abs_ref)
{
    return isfinite(got) && fabs((double)got - ref) <= 1e-6 * abs_ref + 1e-30;
}

/* ------------------------------------------------------------------ one timed batch */
static const float *slot_src(const size_row *w, int first, int i)
{
    return g.src + (size_t)((first + i) % w->nslots) * w->stride;
}

static void run_batch(size_row *w, int m, int first, double blocker_us, timing *t)
{
    int i;
    memset(t, 0, sizeof *t);
    /* Results start as NaN, so a call that wrote nothing fails the check. */
    if (m == M_PINNED) memset(g.h_res, 0xFF, (size_t)w->inner * sizeof(float));
    else MK(mgpu_memset_async(g.d_res, 0xFF, (size_t)w->inner * sizeof(float), g.ms));
    if (m == M_CUB || m == M_READ) {
        cubpeer_batch b;
        cubpeer_timing ct;
        memset(&b, 0, sizeof b);
        b.what = m == M_CUB ? CUBPEER_SUM : CUBPEER_READ;
        b.src = g.src;
        b.n = w->n;
        b.stride = w->stride;
        b.nslots = w->nslots;
        b.first = first;
        b.inner = w->inner;
        b.outs = g.d_res;
        b.temp = g.cub_temp;
        b.temp_bytes = g.cub_temp_bytes;
        b.read_cfg = w->read_cfg;
        b.sink = g.sink;
        b.key = 0x9E3779B9u ^ (unsigned)first;
        b.blocker_us = blocker_us;
        PK(cubpeer_time(&b, g.cs, &ct, err, sizeof err));
        t->ms = ct.ms;
        t->blocker_ms = ct.blocker_ms;
        t->enqueue_us = ct.enqueue_us;
        return;
    }
    {
        double t0, t1;
        if (blocker_us > 0) {
            MK(mgpu_event_record(g.ev[0], g.ms));
            PK(cubpeer_spin(g.cs, blocker_us, err, sizeof err));
        }
        MK(mgpu_event_record(g.ev[1], g.ms));
        t0 = bench_now_ns();
        for (i = 0; i < w->inner; i++) {
            float *out = m == M_PINNED ? g.h_res + i : g.d_res + i;
            MK(mgpu_reduce_async(slot_src(w, first, i), w->n, MGPU_F32, MGPU_OP_SUM, out, g.ms));
        }
        t1 = bench_now_ns();
        MK(mgpu_event_record(g.ev[2], g.ms));
        MK(mgpu_event_synchronize(g.ev[2]));
        MK(mgpu_event_elapsed_ms(g.ev[1], g.ev[2], &t->ms));
        if (blocker_us > 0) MK(mgpu_event_elapsed_ms(g.ev[0], g.ev[1], &t->blocker_ms));
        t->enqueue_us = (t1 - t0) * 1e-3;
    }
}

/* Checks the batch's results: value against the host sum, bits against earlier batches. */
static void check_batch(size_row *w, int m, int first)
{
    int i;
    const float *res;
    if (m == M_READ) return;
    if (m == M_PINNED) res = g.h_res;
    else {
        MK(mgpu_memcpy(g.h_check, g.d_res, (size_t)w->inner * sizeof(float)));
        res = g.h_check;
    }
    for (i = 0; i < w->inner; i++) {
        int slot = (first + i) % w->nslots;
        float got = res[i];
        uint32_t bits = f32_bits(got);
        double rel = fabs((double)got - w->ref[slot]) / fabs(w->ref[slot]);
        w->checked[m]++;
        if (!result_ok(got, w->ref[slot], w->abs_ref[slot])) {
            if (!w->bad[m])
                fprintf(stderr, "bench_reduce: %s n=%zu slot %d: got %.9g, float64 host sum %.17g\n", method_name[m],
                        w->n, slot, (double)got, w->ref[slot]);
            w->bad[m]++;
        }
        if (!(rel <= w->max_rel[m])) w->max_rel[m] = rel;      /* NaN propagates */
        if (!w->have_bits[m][slot]) { w->have_bits[m][slot] = 1; w->bits[m][slot] = bits; }
        else if (w->bits[m][slot] != bits) w->nondet[m]++;
    }
}

static int method_on(int m) { return (m != M_CUB && m != M_READ) || g.have_cub; }

static void measure(size_row *w)
{
    static double gpu[M_COUNT][MAX_REPS];
    int m, r, i, k;
    double enq_last[M_COUNT];

    memset(enq_last, 0, sizeof enq_last);
    for (m = 0; m < M_COUNT; m++) { w->blocker_us[m] = 0; w->max_rel[m] = 0; }

    /* The read kernel: the fastest configuration in a short trial. */
    if (g.have_cub) {
        double best = 1e30;
        int best_cfg = 0;
        for (k = 0; k < cubpeer_read_configs(); k++) {
            double v[5];
            timing t;
            w->read_cfg = k;
            run_batch(w, M_READ, 0, 0, &t);
            for (i = 0; i < 5; i++) { run_batch(w, M_READ, i, 0, &t); v[i] = t.ms; }
            if (bench_median(v, 5) < best) { best = bench_median(v, 5); best_cfg = k; }
        }
        w->read_cfg = best_cfg;
    }

    /* Warm-up (checked too); the last one calibrates the blocker. */
    for (i = 0; i < opt.warmup; i++)
        for (m = 0; m < M_COUNT; m++) {
            timing t;
            if (!method_on(m)) continue;
            run_batch(w, m, i, 0, &t);
            check_batch(w, m, i);
            enq_last[m] = t.enqueue_us;
        }
    if (opt.blocker && g.have_cub)
        for (m = 0; m < M_COUNT; m++) {
            double b = 1.5 * enq_last[m] + 20.0;
            w->blocker_us[m] = b > 20000.0 ? 20000.0 : b;
        }

    for (r = 0; r < opt.reps; r++)
        for (i = 0; i < M_COUNT; i++) {
            timing t;
            m = (r + i) % M_COUNT;
            if (!method_on(m)) continue;
            run_batch(w, m, r, w->blocker_us[m], &t);
            check_batch(w, m, r);
            gpu[m][r] = t.ms;
            /* The host was still enqueueing when the blocker ended: GPU time may include it. */
            if (w->blocker_us[m] > 0 && t.enqueue_us >= 1e3 * t.blocker_ms) w->host_bound[m]++;
        }
    for (m = 0; m < M_COUNT; m++) {
        double med;
        if (!method_on(m)) continue;
        med = bench_median(gpu[m], opt.reps);
        w->us[m] = med * 1e3 / w->inner;
        w->gbs[m] = w->us[m] > 0 ? (double)w->n * sizeof(float) / (w->us[m] * 1e3) : 0;
    }
}

/* ------------------------------------------------------------------ multi-GPU */
typedef struct {
    int ndev;
    size_t shard_n, host_n;
    double t_all_us, t_one_us, scaling;
    double t_multi_us, t_h2d_us, h2d_gbs, multi_gbs, host_ratio;
    int bad, nondet;
    int ran;
} multi_result;

static multi_result run_multi(void)
{
    multi_result mr;
    int N = opt.ndev ? opt.ndev : mgpu_device_count(), d, r, i;
    float *shard[MGPU_MAX_DEVICES], *h2d_dst[MGPU_MAX_DEVICES];
    size_t counts[MGPU_MAX_DEVICES];
    mgpu_stream streams[MGPU_MAX_DEVICES];
    mgpu_range rg[MGPU_MAX_DEVICES];
    CUcontext ctx[MGPU_MAX_DEVICES];
    CUdevice cud[MGPU_MAX_DEVICES];
    CUstream rs[MGPU_MAX_DEVICES];
    double ref_d[MGPU_MAX_DEVICES], abs_d[MGPU_MAX_DEVICES], ref_all = 0, abs_all = 0, ref_h, abs_h;
    static double t_all[MAX_REPS], t_one[MAX_REPS], t_multi[MAX_REPS], t_h2d[MAX_REPS];
    uint32_t bits_all = 0, bits_one = 0, bits_multi = 0;
    char sz[32], sz2[32];

    memset(&mr, 0, sizeof mr);
    mr.ndev = N;
    mr.shard_n = opt.shard_bytes / sizeof(float);
    mr.host_n = opt.host_bytes / sizeof(float);
    printf("\nmulti-GPU: %d GPUs; resident shards of %s per GPU; host array of %s (pinned)\n", N,
           bench_size_str(mr.shard_n * sizeof(float), sz, sizeof sz), bench_size_str(mr.host_n * sizeof(float), sz2, sizeof sz2));
    fflush(stdout);

    /* Resident shards: fresh data per GPU, through the pinned staging buffer. */
    for (d = 0; d < N; d++) {
        MK(mgpu_set_device(d));
        MK(mgpu_stream_create(&streams[d]));
        MK(mgpu_malloc((void **)&shard[d], mr.shard_n * sizeof(float)));
        fill_random_f32(hbuf, mr.shard_n, &ref_d[d], &abs_d[d]);
        MK(mgpu_memcpy(shard[d], hbuf, mr.shard_n * sizeof(float)));
        counts[d] = mr.shard_n;
        ref_all += ref_d[d];
        abs_all += abs_d[d];
    }
    for (i = 0; i < opt.warmup + opt.reps; i++)
        for (r = 0; r < 2; r++) {
            int one = (i + r) % 2 == 1;
            mgpu_device d0 = 0;
            float res = NAN;
            double t0 = bench_now_ns(), t;
            MK(mgpu_reduce_resident((const void *const *)shard, counts, MGPU_F32, MGPU_OP_SUM, &res, one ? &d0 : NULL,
                                    one ? 1 : N, streams));
            t = (bench_now_ns() - t0) * 1e-3;
            if (!result_ok(res, one ? ref_d[0] : ref_all, one ? abs_d[0] : abs_all)) {
                if (!mr.bad) fprintf(stderr, "bench_reduce: mgpu_reduce_resident (%d GPUs) = %.9g, float64 host sum %.17g\n",
                                     one ? 1 : N, (double)res, one ? ref_d[0] : ref_all);
                mr.bad++;
            }
            if (i == 0) { if (one) bits_one = f32_bits(res); else bits_all = f32_bits(res); }
            else if (f32_bits(res) != (one ? bits_one : bits_all)) mr.nondet++;
            if (i >= opt.warmup) { if (one) t_one[i - opt.warmup] = t; else t_all[i - opt.warmup] = t; }
        }
    mr.t_all_us = bench_median(t_all, opt.reps);
    mr.t_one_us = bench_median(t_one, opt.reps);
    mr.scaling = mr.t_all_us > 0 ? N * mr.t_one_us / mr.t_all_us : 0;
    printf("resident: %d x %s in %.1f us (%.1f GB/s); one GPU, one shard: %.1f us (%.1f GB/s); scaling %.2fx\n", N, sz,
           mr.t_all_us, (double)N * mr.shard_n * 4 / (mr.t_all_us * 1e3), mr.t_one_us,
           (double)mr.shard_n * 4 / (mr.t_one_us * 1e3), mr.scaling);
    fflush(stdout);
    for (d = 0; d < N; d++) MK(mgpu_free(shard[d]));

    /* Host array: pinned, fresh; the aggregate H2D ceiling over the same even slices. */
    fill_random_f32(hbuf, mr.host_n, &ref_h, &abs_h);
    MK(mgpu_split(mr.host_n, NULL, N, MGPU_SPLIT_EVEN, NULL, 0, 64, rg));
    for (d = 0; d < N; d++) {
        ctx[d] = bench_primary_ctx(d, &cud[d]);
        CK(CU(cuCtxSetCurrent)(ctx[d]));
        CK(CU(cuStreamCreate)(&rs[d], CU_STREAM_NON_BLOCKING));
        MK(mgpu_set_device(d));
        MK(mgpu_malloc((void **)&h2d_dst[d], rg[d].count ? rg[d].count * sizeof(float) : 4));
    }
    for (i = 0; i < opt.warmup + opt.reps; i++)
        for (r = 0; r < 2; r++) {
            int h2d = (i + r) % 2 == 1;
            double t0 = bench_now_ns(), t;
            if (h2d) {
                for (d = 0; d < N; d++) {
                    if (!rg[d].count) continue;
                    CK(CU(cuCtxSetCurrent)(ctx[d]));
                    CK(CU(cuMemcpyHtoDAsync)(bench_dptr(h2d_dst[d]), hbuf + rg[d].offset, rg[d].count * sizeof(float), rs[d]));
                }
                for (d = 0; d < N; d++) {
                    CK(CU(cuCtxSetCurrent)(ctx[d]));
                    CK(CU(cuStreamSynchronize)(rs[d]));
                }
                t = (bench_now_ns() - t0) * 1e-3;
                if (i == 0) {            /* the copies arrived: their sums add up */
                    double s = 0;
                    for (d = 0; d < N; d++) {
                        float part = 0;
                        if (!rg[d].count) continue;
                        MK(mgpu_set_device(d));
                        MK(mgpu_reduce(h2d_dst[d], rg[d].count, MGPU_F32, MGPU_OP_SUM, &part, NULL));
                        s += part;
                    }
                    if (!result_ok((float)s, ref_h, abs_h)) {
                        fprintf(stderr, "bench_reduce: the H2D slices sum to %.9g, host %.17g\n", s, ref_h);
                        mr.bad++;
                    }
                }
            } else {
                float res = NAN;
                MK(mgpu_reduce_multi(hbuf, mr.host_n, MGPU_F32, MGPU_OP_SUM, &res, NULL, N, NULL));
                t = (bench_now_ns() - t0) * 1e-3;
                if (!result_ok(res, ref_h, abs_h)) {
                    if (!mr.bad) fprintf(stderr, "bench_reduce: mgpu_reduce_multi = %.9g, float64 host sum %.17g\n",
                                         (double)res, ref_h);
                    mr.bad++;
                }
                if (i == 0) bits_multi = f32_bits(res);
                else if (f32_bits(res) != bits_multi) mr.nondet++;
            }
            if (i >= opt.warmup) { if (h2d) t_h2d[i - opt.warmup] = t; else t_multi[i - opt.warmup] = t; }
        }
    mr.t_multi_us = bench_median(t_multi, opt.reps);
    mr.t_h2d_us = bench_median(t_h2d, opt.reps);
    mr.multi_gbs = (double)mr.host_n * 4 / (mr.t_multi_us * 1e3);
    mr.h2d_gbs = (double)mr.host_n * 4 / (mr.t_h2d_us * 1e3);
    mr.host_ratio = mr.t_multi_us > 0 ? mr.t_h2d_us / mr.t_multi_us : 0;
    printf("host: mgpu_reduce_multi of %s pinned in %.1f us (%.1f GB/s); aggregate pinned H2D %.1f us (%.1f GB/s); "
           "ratio %.3f\n", sz2, mr.t_multi_us, mr.multi_gbs, mr.t_h2d_us, mr.h2d_gbs, mr.host_ratio);
    for (d = 0; d < N; d++) {
        MK(mgpu_free(h2d_dst[d]));
        MK(mgpu_stream_destroy(streams[d]));
        CK(CU(cuCtxSetCurrent)(ctx[d]));
        CK(CU(cuStreamDestroy)(rs[d]));
        CK(CU(cuDevicePrimaryCtxRelease)(cud[d]));
    }
    MK(mgpu_set_device(g.dev));
    mr.ran = 1;
    return mr;
}

/* ------------------------------------------------------------------ arguments */
static void usage(void)
{
    printf("usage: bench_reduce [--device D] [--n 2^20,2^24,2^28] [--reps N>=9] [--warmup N] [--inner N (0: auto)]\n"
           "                    [--no-blocker] [--no-multi] [--ndev N] [--shard-bytes 1G] [--host-bytes 4G]\n"
           "  --n: element counts (floats), as 2^k, 1048576 or 1M; each a multiple of 4\n");
}

static int parse_args(int argc, char **argv)
{
    int i;
    opt.n[0] = (size_t)1 << 20;
    opt.n[1] = (size_t)1 << 24;
    opt.n[2] = (size_t)1 << 28;
    opt.nsizes = 3;
    opt.reps = 21;
    opt.warmup = 3;
    opt.blocker = 1;
    opt.multi = 1;
    opt.shard_bytes = (size_t)1 << 30;
    opt.host_bytes = (size_t)4 << 30;
    for (i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) { usage(); exit(0); }
        else if (!strcmp(a, "--no-blocker")) opt.blocker = 0;
        else if (!strcmp(a, "--no-multi")) opt.multi = 0;
        else if (!v) { fprintf(stderr, "bench_reduce: %s needs a value\n", a); return -1; }
        else if (!strcmp(a, "--n")) {
            if ((opt.nsizes = bench_parse_list("bench_reduce", "n", v, opt.n, MAX_SIZES, 2, 40, 4, (size_t)1 << 32)) < 0) return -1;
            i++;
        } else if (!strcmp(a, "--device")) { opt.device = atoi(v); i++; }
        else if (!strcmp(a, "--reps")) { opt.reps = atoi(v); i++; }
        else if (!strcmp(a, "--warmup")) { opt.warmup = atoi(v); i++; }
        else if (!strcmp(a, "--inner")) { opt.inner = atoi(v); i++; }
        else if (!strcmp(a, "--ndev")) { opt.ndev = atoi(v); i++; }
        else if (!strcmp(a, "--shard-bytes")) { opt.shard_bytes = bench_parse_size(v); i++; }
        else if (!strcmp(a, "--host-bytes")) { opt.host_bytes = bench_parse_size(v); i++; }
        else { fprintf(stderr, "bench_reduce: unknown option %s\n", a); usage(); return -1; }
    }
    if (opt.reps < 9 || opt.reps > MAX_REPS) { fprintf(stderr, "bench_reduce: --reps must be 9..%d\n", MAX_REPS); return -1; }
    if (opt.warmup < 1) { fprintf(stderr, "bench_reduce: --warmup must be >= 1\n"); return -1; }
    if (opt.inner < 0 || opt.inner > MAX_INNER) { fprintf(stderr, "bench_reduce: --inner must be 0..%d\n", MAX_INNER); return -1; }
    if (opt.ndev < 0 || opt.ndev == 1 || opt.ndev > MGPU_MAX_DEVICES) { fprintf(stderr, "bench_reduce: --ndev must be >= 2\n"); return -1; }
    if (opt.device < 0) { fprintf(stderr, "bench_reduce: bad --device\n"); return -1; }
    if (opt.shard_bytes < 4096 || opt.shard_bytes % 4 || opt.host_bytes < 4096 || opt.host_bytes % 4) {
        fprintf(stderr, "bench_reduce: --shard-bytes / --host-bytes: at least 4K, multiples of 4\n");
        return -1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    int rc, s, m, bad = 0, missed = 0, nondet = 0;
    size_t maxn = 0;
    size_row *rows;
    mgpu_device_info info;
    multi_result mr;
    char nb[32], line[2048];
    size_t len = 0;
    double acc_rel = -1;

    if (parse_args(argc, argv)) return 2;
    if ((rc = bench_start("bench_reduce", 1)) != 0) return rc;
    if (opt.device >= mgpu_device_count()) {
        fprintf(stderr, "bench_reduce: --device %d: there are %d GPUs\n", opt.device, mgpu_device_count());
        return 2;
    }
    if (opt.ndev > mgpu_device_count()) {
        fprintf(stderr, "bench_reduce: --ndev %d: there are %d GPUs\n", opt.ndev, mgpu_device_count());
        return 2;
    }
    bench_seed();
    qsort(opt.n, (size_t)opt.nsizes, sizeof opt.n[0], bench_cmp_size);
    printf("bench_reduce: f32 sum, mgpu_reduce_async against CUB and a read-only kernel; multi-GPU reductions\n");
    bench_print_devices();

    /* ---- one GPU: set-up */
    g.dev = opt.device;
    MK(mgpu_device_info_get(g.dev, &info));
    MK(mgpu_set_device(g.dev));
    MK(mgpu_stream_create(&g.ms));
    MK(mgpu_native_stream(g.ms, &g.cs));
    for (m = 0; m < 3; m++) MK(mgpu_event_create(&g.ev[m]));
    for (s = 0; s < opt.nsizes; s++) if (opt.n[s] > maxn) maxn = opt.n[s];
    g.buf_elems = maxn * sizeof(float) > MIN_BUF_BYTES ? maxn : MIN_BUF_BYTES / sizeof(float);
    MK(mgpu_malloc((void **)&g.src, g.buf_elems * sizeof(float)));
    MK(mgpu_malloc((void **)&g.d_res, MAX_INNER * sizeof(float)));
    MK(mgpu_malloc((void **)&g.sink, 256));
    MK(mgpu_malloc_host((void **)&g.h_res, MAX_INNER * sizeof(float)));
    g.h_check = (float *)malloc(MAX_INNER * sizeof(float));
    hbuf_bytes = g.buf_elems * sizeof(float);
    if (opt.multi && mgpu_device_count() >= 2) {
        if (opt.shard_bytes > hbuf_bytes) hbuf_bytes = opt.shard_bytes;
        if (opt.host_bytes > hbuf_bytes) hbuf_bytes = opt.host_bytes;
    }
    MK(mgpu_malloc_host((void **)&hbuf, hbuf_bytes));
    if (!g.h_check) return 1;

    g.have_cub = cubpeer_available(g.cub_why, sizeof g.cub_why);
    if (g.have_cub) {
        PK(cubpeer_init(info.ordinal, err, sizeof err));
        for (s = 0; s < opt.nsizes; s++) {
            size_t tb;
            PK(cubpeer_sum_temp_bytes(opt.n[s], &tb, err, sizeof err));
            if (tb > g.cub_temp_bytes) g.cub_temp_bytes = tb;
        }
        MK(mgpu_malloc(&g.cub_temp, g.cub_temp_bytes));
        printf("peer: %s; CUB temporary storage %zu bytes (allocated once)\n", cubpeer_version(), g.cub_temp_bytes);
    } else {
        printf("peer: %s: CUB, the read-only ceiling and the blocker are not measured\n", g.cub_why);
    }

    /* Fresh data for the whole buffer; float64 sums per slot of every size. */
    fill_random_f32(hbuf, g.buf_elems, NULL, NULL);
    MK(mgpu_memcpy(g.src, hbuf, g.buf_elems * sizeof(float)));
    rows = (size_row *)calloc((size_t)opt.nsizes, sizeof *rows);
    if (!rows) return 1;
    for (s = 0; s < opt.nsizes; s++) {
        size_row *w = &rows[s];
        int k;
        w->n = opt.n[s];
        w->cold = w->n * sizeof(float) > WARM_BYTES;
        w->nslots = 1;
        if (w->cold) {
            size_t k2 = g.buf_elems / w->n;
            w->nslots = k2 > MAX_SLOTS ? MAX_SLOTS : (int)k2;
        }
        w->stride = w->n;
        if (opt.inner) w->inner = opt.inner;
        else if (w->cold) w->inner = w->nslots;
        else {
            size_t k2 = MIN_BUF_BYTES / (w->n * sizeof(float));
            w->inner = k2 > 64 ? 64 : k2 < 1 ? 1 : (int)k2;
        }
        for (k = 0; k < w->nslots; k++) sum_f32(hbuf + (size_t)k * w->stride, w->n, &w->ref[k], &w->abs_ref[k]);
    }
    printf("method: events on one mgpu stream (mgpu: mgpu events; CUB/read: runtime events on its CUstream); median of %d "
           "reps after %d warm-ups; x<inner> calls per batch; %s; data: fresh random f32 in [-0.5, 1.5)\n",
           opt.reps, opt.warmup, opt.blocker && g.have_cub ? "behind a calibrated spin-kernel blocker" : "no blocker");

    for (s = 0; s < opt.nsizes; s++) {
        size_row *w = &rows[s];
        measure(w);
        printf("n=%-5s %s x%-3d slots %-2d", bench_n_str(w->n, nb, sizeof nb), w->cold ? "cold" : "warm", w->inner, w->nslots);
        for (m = 0; m < M_COUNT; m++) {
            if (!method_on(m)) continue;
            printf("  %s %.2f us %.1f GB/s", method_name[m], w->us[m], w->gbs[m]);
            if (w->host_bound[m]) printf(" host-bound %d/%d", w->host_bound[m], opt.reps);
            if (w->bad[m]) printf(" BAD %d/%d", w->bad[m], w->checked[m]);
        }
        if (g.have_cub) printf("  (read: %s)", cubpeer_read_config_name(w->read_cfg));
        printf("\n");
        fflush(stdout);
    }

    memset(&mr, 0, sizeof mr);
    if (opt.multi && mgpu_device_count() >= 2) mr = run_multi();
    else printf("\nmulti-GPU: %s\n", opt.multi ? "skipped (one GPU)" : "skipped (--no-multi)");

    /* ---- the compact table */
    printf("\n%-6s %-4s %5s %9s %9s %9s %9s %9s %8s %9s %8s  %s\n", "n", "L2", "inner", "mgpu us", "mgpu GB/s", "pinned us",
           "CUB us", "CUB GB/s", "mgpu/CUB", "read GB/s", "mgpu/rd", "targets");
    for (s = 0; s < opt.nsizes; s++) {
        size_row *w = &rows[s];
        double vs_cub = g.have_cub && w->us[M_MGPU] > 0 ? w->us[M_CUB] / w->us[M_MGPU] : 0;   /* speed ratio */
        double vs_read = g.have_cub && w->gbs[M_READ] > 0 ? w->gbs[M_MGPU] / w->gbs[M_READ] : 0;
        char tg[256] = "";
        size_t tl = 0;
        for (m = 0; m < M_COUNT; m++) {
            bad |= w->bad[m] != 0;
            if (m == M_MGPU || m == M_PINNED) nondet |= w->nondet[m] != 0;
        }
        if (w->n == (size_t)1 << 28) {
            int ok1 = g.have_cub && vs_read >= 0.98, ok2 = g.have_cub && vs_cub >= 1.0;
            missed |= !ok1 || !ok2;
            bench_append(tg, sizeof tg, &tl, ">=98%% read %s, >=CUB %s", ok1 ? "PASS" : "FAIL", ok2 ? "PASS" : "FAIL");
        } else if (w->n == (size_t)1 << 24) {
            int ok = g.have_cub && vs_cub >= 1.0;
            missed |= !ok;
            bench_append(tg, sizeof tg, &tl, "cold >=CUB %s", ok ? "PASS" : "FAIL");
        } else if (w->n == (size_t)1 << 20) {
            int ok = g.have_cub && w->us[M_MGPU] <= w->us[M_CUB];
            missed |= !ok;
            bench_append(tg, sizeof tg, &tl, "time <=CUB %s", ok ? "PASS" : "FAIL");
        }
        for (m = 0; m < M_COUNT; m++)
            if (w->bad[m]) bench_append(tg, sizeof tg, &tl, " %s:WRONG", method_name[m]);
        {
            char c1[16] = "-", c2[16] = "-", c3[16] = "-", c4[16] = "-", c5[16] = "-";
            if (g.have_cub) {
                snprintf(c1, sizeof c1, "%.2f", w->us[M_CUB]);
                snprintf(c2, sizeof c2, "%.1f", w->gbs[M_CUB]);
                snprintf(c3, sizeof c3, "%.3f", vs_cub);
                snprintf(c4, sizeof c4, "%.1f", w->gbs[M_READ]);
                snprintf(c5, sizeof c5, "%.3f", vs_read);
            }
            printf("%-6s %-4s %5d %9.2f %9.1f %9.2f %9s %9s %8s %9s %8s  %s\n", bench_n_str(w->n, nb, sizeof nb),
                   w->cold ? "cold" : "warm", w->inner, w->us[M_MGPU], w->gbs[M_MGPU], w->us[M_PINNED], c1, c2, c3, c4,
                   c5, tg);
        }
    }
    printf("(mgpu/CUB = CUB time / mgpu time, > 1: mgpu faster; mgpu/rd = mgpu GB/s / read-only GB/s)\n");

    /* Accuracy at the largest n; determinism everywhere. */
    {
        size_row *w = &rows[opt.nsizes - 1];
        int ok;
        acc_rel = w->max_rel[M_MGPU];
        ok = acc_rel <= 1e-6;
        missed |= !ok;
        printf("accuracy n=%s: mgpu |sum - float64| / |float64| = %.2e (target <= 1e-6: %s); pinned %.2e", bench_n_str(w->n, nb, sizeof nb),
               acc_rel, ok ? "PASS" : "FAIL", w->max_rel[M_PINNED]);
        if (g.have_cub) printf("; CUB %.2e (float accumulation)\n", w->max_rel[M_CUB]);
        else printf("; CUB not run\n");
    }
    {
        int cub_nd = 0, cross = 0, k;
        long total = 0;
        for (s = 0; s < opt.nsizes; s++) {
            size_row *w = &rows[s];
            cub_nd += w->nondet[M_CUB];
            total += w->checked[M_MGPU] + w->checked[M_PINNED];
            for (k = 0; k < w->nslots; k++)
                if (w->have_bits[M_MGPU][k] && w->have_bits[M_PINNED][k] && w->bits[M_MGPU][k] != w->bits[M_PINNED][k]) cross++;
        }
        nondet |= cross != 0;
        missed |= nondet;
        printf("determinism: %ld mgpu results, %s (device vs pinned result: %s); CUB %s\n", total,
               nondet ? "NOT bitwise equal across repetitions: FAIL" : "bitwise equal per slot across repetitions: PASS",
               cross ? "DIFFER" : "same bits", !g.have_cub ? "not run" : cub_nd ? "varies" : "bitwise equal too");
    }
    if (mr.ran) {
        double want = 0.95 * mr.ndev;
        int ok1 = mr.scaling >= want, ok2 = mr.host_ratio >= 0.90;
        missed |= !ok1 || !ok2 || mr.nondet;
        bad |= mr.bad != 0;
        printf("multi-GPU (%d GPUs): resident scaling %.2fx (target >= %.2fx: %s); host pinned %.1f GB/s = %.3f of "
               "aggregate H2D %.1f GB/s (target >= 0.90: %s); results %s, %s\n", mr.ndev, mr.scaling, want,
               ok1 ? "PASS" : "FAIL", mr.multi_gbs, mr.host_ratio, mr.h2d_gbs, ok2 ? "PASS" : "FAIL",
               mr.bad ? "WRONG" : "verified", mr.nondet ? "NOT deterministic" : "deterministic");
    }

    /* The summary line (bench/run_all.sh collects it). */
    bench_append(line, sizeof line, &len, "bench_reduce summary: data %s", bad ? "WRONG" : "verified");
    for (s = 0; s < opt.nsizes; s++) {
        size_row *w = &rows[s];
        bench_append(line, sizeof line, &len, "; %s %.1f GB/s", bench_n_str(w->n, nb, sizeof nb), w->gbs[M_MGPU]);
        if (g.have_cub && w->us[M_MGPU] > 0)
            bench_append(line, sizeof line, &len, " (x%.2f CUB, %.1f%% read)", w->us[M_CUB] / w->us[M_MGPU],
                   w->gbs[M_READ] > 0 ? 100.0 * w->gbs[M_MGPU] / w->gbs[M_READ] : 0.0);
    }
    bench_append(line, sizeof line, &len, "; rel err %.1e; %s", acc_rel, nondet ? "NOT deterministic" : "deterministic");
    if (mr.ran)
        bench_append(line, sizeof line, &len, "; %d GPUs: resident %.2fx, host %.0f%% of H2D", mr.ndev, mr.scaling,
               100.0 * mr.host_ratio);
    if (!g.have_cub) bench_append(line, sizeof line, &len, "; no CUB peer (targets vs CUB not met)");
    bench_append(line, sizeof line, &len, "; targets %s", bad ? "n/a (wrong results)" : missed ? "MISSED" : "met");
    printf("\n%s\n", line);

    MK(mgpu_set_device(g.dev));
    MK(mgpu_free(g.src));
    MK(mgpu_free(g.d_res));
    MK(mgpu_free(g.sink));
    if (g.cub_temp) MK(mgpu_free(g.cub_temp));
    MK(mgpu_free_host(g.h_res));
    MK(mgpu_free_host(hbuf));
    for (m = 0; m < 3; m++) MK(mgpu_event_destroy(g.ev[m]));
    MK(mgpu_stream_destroy(g.ms));
    MK(mgpu_shutdown());
    free(rows);
    free(g.h_check);
    return bad ? 1 : (missed ? 3 : 0);
}
