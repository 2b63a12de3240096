/* bench_msm - BN254 G1 multi-scalar multiplication (mgpu_msm*) on one GPU and split over
   several, beside era-bellman-cuda measured in the same run; with --curve, BN254 G2 and
   BLS12-381 G1 and G2 (mgpu_msm_curve) beside BN254 G1 and a peer per group.

   Inputs: points are random multiples of G (mgpu_bn254_random_points, generated once for
   the largest size; every case uses a prefix), scalars full-range random below r (fresh
   from mgpu_bn254_random_scalars for every size and section). Timing as the peers are
   timed: inputs already in device memory, host wall clock from the call of mgpu_msm (which
   waits for its stream) until the result is on the host; median of --reps (>= 7) after
   --warmup (>= 2) runs. One GPU (--device, default 0), per n of --n (default 2^10, 2^12,
   ..., 2^24 in steps of 2^2):
     dev      scalars and points in device memory, standard form
     mont     the same inputs converted on the GPU to Montgomery form
              (MGPU_MSM_SCALARS_MONTGOMERY | MGPU_MSM_POINTS_MONTGOMERY)
     pinned   scalars and points in pinned host memory (mgpu_malloc_host): the upload is
              part of the call (overlapped with compute by mgpu)
     pre2/4   precompute factor 2 and 4: bases from mgpu_msm_precompute_bases (its time is
              reported separately, median of 3), the MSM over them timed as above
     era      --peer-cmd CMD: for every n, the exact dev inputs (n as a little-endian u64,
              then the n scalars, 32 bytes each, then the n points, x then y, 32 bytes each;
              every number as 8 little-endian 32-bit words, standard form) are written to a
              temporary file and `CMD IN OUT REPS WARMUP` is run (with MGPU_PEER_DEVICE set
              to the GPU's CUDA ordinal; the benchmark is idle meanwhile). OUT must hold
                era n=<n> median_ms=<x> min_ms=<y> reps=<r>
                x=<64 hex digits, big-endian> y=<64 hex digits>   (affine, standard form)
              timed as dev is. The result must equal mgpu's (else a wrong result); a command
              that fails is an error. The era peer (.peers/era_bench, built outside the
              repository from era-bellman-cuda's sources) follows this protocol.
              --peer-file FILE instead: lines "n=<n> median_ms=<x>" from an earlier run (no
              result to check). Without either, era's times quoted from issue 5 (one H200,
              an older run) are printed, labelled as such, and the era target is judged on
              them where they exist.
   Several GPUs (--ndev, default all; skipped with one GPU or --no-multi):
     batch    16 MSMs of 2^20 (--batch-n), separate points: mgpu_msm_batch on one GPU
              against mgpu_msm_multi(count 16) over all GPUs, inputs in GPU D's (--device) memory
              (target: >= 0.95 x GPUs faster, 3.8x on 4) and, for reference, in pinned host
              memory
     split    one MSM of 2^24 and of 2^26 (--split-n; 2^26 when memory allows):
              mgpu_msm_multi(count 1) over all GPUs against mgpu_msm on one GPU, inputs in
              GPU D's memory (targets with >= 4 GPUs: 2^24 <= 13 ms, 2^26 <= 50 ms) and in
              pinned host memory
   Targets on one GPU (issue 13): dev <= era at every size (era as measured by --peer-cmd);
   2^12 dev <= 0.6 ms; pinned <= 1.15 x dev at 2^22 and 2^24. Stretch, reported only:
   2^20 <= 3.3 ms, 2^24 <= 31 ms. "era / mgpu" = era's time / mgpu's dev time (> 1: mgpu
   faster). ICICLE and sppark: quoted from issue 5 (one H200, an older run), not measured.
   Checks: every result at n <= 2^18 (every method, every run) equals the CPU device's;
   larger ones must agree with each other (dev, mont, pinned, pre2, pre4, era; 1 GPU, split,
   batch) and be the same in every run. Wrong results: exit 1.

   Build and run from the repository root:
     make bench   (build/bench_msm)
     ./build/bench_msm [--device D] [--n 2^10,2^12,...] [--reps N>=7] [--warmup N>=2]
                       [--ndev N] [--no-multi] [--batch-n 2^20] [--split-n 2^24,2^26] [--no-precompute]
                       [--peer-cmd CMD | --peer-file FILE] [--curve LIST] [--pair LIST]
   e.g. ./build/bench_msm --no-multi --peer-cmd .peers/era_bench
   --kernels: after dev's timing, opt.reps more dev calls under mgpu's profiler, and per
   kernel the median over calls of its GPU time in one call (where the time goes).
   --c-sweep: dev again at window bits c-2..c+2 (c: mgpu's choice) from 2^16 points on.
   --scalars equal | small: the one-GPU sizes with every scalar the same, or every scalar
   below 2^16 (skewed digits: few buckets hold everything), instead of random ones.
   --curve LIST (bn254_g2, bls12_381_g1, bls12_381_g2, comma-separated, or all): instead of
   the sections above, per n of --n, BN254 G1 and those groups through mgpu_msm_curve: dev
   (device inputs, standard form) and pinned (pinned host inputs), each checked against the
   CPU device up to 2^16 points and against each other above, and a table with the ratios
   (pinned / dev, against BN254 G1, G2 / G1 of the same curve). With --peer-cmd the peer
   runs per group and size on the same inputs: the era protocol above with the environment
   variable MGPU_PEER_GROUP = bn254_g1 | bn254_g2 | bls12_381_g1 | bls12_381_g2, IN = n as
   a little-endian u64, the n scalars (32 bytes each, little-endian, standard form), the n
   affine points (G1: x then y; G2: x.c0, x.c1, y.c0, y.c1; each coordinate S = 32 (BN254)
   or 48 (BLS12-381) bytes, little-endian, standard form); OUT line 1
   `<name> n=<n> median_ms=<x> min_ms=<y> reps=<r>`, line 2 the affine result in standard
   form as big-endian hex of 2 S digits a coordinate, G1 `x=<hex> y=<hex>`, G2
   `x0=<hex> x1=<hex> y0=<hex> y1=<hex>` (c0 then c1), the point at infinity as zeros. The
   peer's result must equal mgpu's. A second --peer-cmd (--curve only) runs a second peer
   beside the first, each with its column (named by the first word of its line 1). (BN254
   G1's sections above set MGPU_PEER_GROUP = bn254_g1 too.) With --curve, unless
   --no-precompute, pre2 and pre4 per group: the MSM over bases from mgpu_msm_curve_precompute_bases (factor 2 and 4, device memory; the
   precomputation's own time, median of 3, reported beside), checked against dev.
   --pair LIST (bn254, bls12_381, comma-separated, or all): instead of the sections above, per
   n of --n and curve, the Groth16 pair: the same n scalars with n G1 and n G2 points (device
   memory, standard form), as two mgpu_msm_curve calls one after the other (sep) against one
   mgpu_msm_pair (pair), each timed as dev (median of --reps after --warmup, the two calls
   timed together), then the same over bases of precompute factor 2 (sep2, pair2) unless
   --no-precompute; every pair result equal to the separate calls', those equal to the CPU
   device's up to 2^16 points. The table gives pair / sep (< 1: the shared digits and sort
   save time).
   --cpu runs the same program on 4 CPU devices (small sizes, e.g. --n 2^10,2^12 --batch-n 2^8
   --split-n 2^12): a check of the benchmark itself; its times mean nothing and no target
   is judged. Exit: 0 targets met, 3 a target missed, 77 no GPU, 1 an error, a wrong result
   or a failed peer command, 2 bad arguments. */
#include "bench_util.h"
#include <sys/wait.h>

#define MAX_SIZES 16
#define MAX_REPS 1000
#define BATCH 16
#define CPU_CHECK_MAX ((size_t)1 << 18)

static struct {
    int device, reps, warmup, ndev, multi, precompute, cpu, kernels, c_sweep, scalars;
    unsigned curves;                     /* --curve: bit g for group g (MGPU_MSM_*) */
    unsigned pairs;                      /* --pair: bit g for the curve of G1 g (0: BN254, 2: BLS12-381) */
    size_t n[MAX_SIZES], split_n[MAX_SIZES], batch_n;
    int nsizes, nsplit;
    const char *peer_cmd, *peer2_cmd, *peer_file;   /* --peer-cmd (the first, the second), --peer-file */
} opt;

/* The peers on one H200, quoted from issue 5 (ms): an older run, not measured here. */
static const struct { int log2n; double era, icicle, sppark; } peers[] = {
    { 16, 1.51, 3.9, 4.4 }, { 18, 2.15, 5.0, 12.3 }, { 20, 4.53, 8.6, 11.9 }, { 22, 14.0, 22.8, 26.4 }, { 24, 46.2, 72.6, 78.7 }
};

static int bad;                          /* wrong results seen */
static mgpu_stream st;                   /* one non-blocking stream on opt.device */
static mgpu_device devs[MGPU_MAX_DEVICES];
static int ngpu;

static int log2_exact(size_t n)
{
    int k;
    for (k = 0; k < 64; k++) if (n == (size_t)1 << k) return k;
    return -1;
}

/* ------------------------------------------------------------------ one timed call */
enum { K_MSM, K_BATCH, K_MULTI };
typedef struct call {
    int kind;
    const mgpu_bn254_scalar *s;
    const mgpu_bn254_affine *p;
    size_t n;
    int count;
    mgpu_msm_config cfg;
    int ndevs;                           /* K_MULTI: devices 0..ndevs-1 */
} call;

static mgpu_result call_run(const call *c, mgpu_bn254_jacobian *res)
{
    switch (c->kind) {
    case K_MSM: return mgpu_msm(c->s, c->p, c->n, &c->cfg, res, st);
    case K_BATCH: return mgpu_msm_batch(c->s, c->p, c->n, c->count, &c->cfg, res, st);
    default: return mgpu_msm_multi(c->s, c->p, c->n, c->count, &c->cfg, res, devs, c->ndevs);
    }
}

/* Median ms of opt.reps calls after opt.warmup; out[0..count) = the affine results of the
   first call. Every call must give the same results (else bad++). */
static double measure(const char *what, const call *c, mgpu_bn254_affine *out)
{
    mgpu_bn254_jacobian res[BATCH];
    mgpu_bn254_affine a;
    double ms[MAX_REPS];
    int i, b, k = 0, count = c->kind == K_MSM ? 1 : c->count, differ = 0;
    for (i = 0; i < opt.warmup + opt.reps; i++) {
        double t0 = bench_now_ns(), t1;
        MK(call_run(c, res));
        t1 = bench_now_ns();
        if (i >= opt.warmup) ms[k++] = (t1 - t0) * 1e-6;
        for (b = 0; b < count; b++) {
            MK(mgpu_bn254_to_affine(&res[b], &a, 0));
            if (i == 0) out[b] = a;
            else if (memcmp(&a, &out[b], sizeof a)) differ++;
        }
    }
    if (differ) {
        printf("WRONG: %s: %d results differ between runs of the same inputs\n", what, differ);
        bad++;
    }
    return bench_median(ms, k);
}

/* --scalars equal: every scalar the first one; small: each below 2^16 (its low 16 bits). */
static void skew_scalars(mgpu_bn254_scalar *sc, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++) {
        if (opt.scalars == 1) sc[i] = sc[0];
        else if (opt.scalars == 2) { sc[i].limb[0] &= 0xffff; sc[i].limb[1] = sc[i].limb[2] = sc[i].limb[3] = 0; }
    }
}

/* --kernels: opt.reps more calls of c under mgpu's profiler; prints the call's median wall
   time and, per kernel name, the median over calls of its summed GPU time in one call. */
#define MAX_KERNEL_NAMES 32
static void kernel_times_of(const char *what, void (*run)(const void *), const void *ctx);
static void run_call(const void *ctx)
{
    mgpu_bn254_jacobian res[BATCH];
    MK(call_run((const call *)ctx, res));
}
static void kernel_times(const char *what, const call *c) { kernel_times_of(what, run_call, c); }
static void kernel_times_of(const char *what, void (*run)(const void *), const void *ctx)
{
    static mgpu_span spans[4096];
    static char names[MAX_KERNEL_NAMES][48];
    static double per[MAX_KERNEL_NAMES][MAX_REPS];
    double wall[MAX_REPS], total = 0;
    int nnames = 0, i, k;
    size_t count, j;
    memset(per, 0, sizeof per);
    for (i = 0; i < opt.reps; i++) {
        double t0 = bench_now_ns();
        MK(mgpu_profile_start());
        run(ctx);
        wall[i] = (bench_now_ns() - t0) * 1e-6;
        MK(mgpu_profile_stop());
        MK(mgpu_profile_spans(spans, sizeof spans / sizeof spans[0], &count));
        for (j = 0; j < count && j < sizeof spans / sizeof spans[0]; j++) {
            if (spans[j].kind != MGPU_SPAN_KERNEL) continue;
            for (k = 0; k < nnames && strcmp(names[k], spans[j].detail); k++) {}
            if (k == nnames) {
                if (nnames == MAX_KERNEL_NAMES) continue;
                snprintf(names[nnames++], sizeof names[0], "%s", spans[j].detail);
            }
            per[k][i] += spans[j].end_ms - spans[j].start_ms;
        }
    }
    printf("%s kernels (median of %d profiled calls, ms; the call %.3f):", what, opt.reps, bench_median(wall, opt.reps));
    for (k = 0; k < nnames; k++) {
        double m = bench_median(per[k], opt.reps);
        total += m;
        printf(" %s %.3f", strncmp(names[k], "mgpu_msm_", 9) ? names[k] : names[k] + 9, m);
    }
    printf(" | sum %.3f\n", total);
}

static void expect_same(const char *what, const mgpu_bn254_affine *got, const mgpu_bn254_affine *want, int count,
                        const char *against)
{
    int b;
    for (b = 0; b < count; b++)
        if (memcmp(&got[b], &want[b], sizeof *got)) {
            printf("WRONG: %s: result %d differs from %s\n", what, b, against);
            bad++;
            return;
        }
}

/* ------------------------------------------------------------------ the era peer */
static int peer_failed;                  /* --peer-cmd runs that gave no time or result */
static struct { size_t n; double ms; } peer_file_rows[4 * MAX_SIZES];
static int peer_file_count;

/* The value after " key=" (or key= at the start of the line), else NULL. */
static const char *peer_key(const char *line, const char *key)
{
    size_t k = strlen(key);
    const char *p;
    for (p = line; (p = strstr(p, key)) != NULL; p++)
        if ((p == line || p[-1] == ' ' || p[-1] == '\t') && p[k] == '=') return p + k + 1;
    return NULL;
}

/* 16 L hex digits, big-endian, into L little-endian 64-bit limbs; -1 if malformed. */
static int peer_hex(const char *s, uint64_t *out, int L)
{
    int i;
    memset(out, 0, (size_t)L * sizeof out[0]);
    if (!s) return -1;
    for (i = 0; i < 16 * L; i++) {
        int c = s[i], d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
                        : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
        if (d < 0) return -1;
        out[L - 1 - i / 16] = out[L - 1 - i / 16] << 4 | (uint64_t)d;
    }
    return s[16 * L] == 0 || s[16 * L] == ' ' || s[16 * L] == '\n' || s[16 * L] == '\r' ? 0 : -1;
}

/* count 64-bit words as 32-bit little-endian words (the peer's input format, any host order). */
static int peer_write_words(FILE *f, const uint64_t *w, size_t count)
{
    unsigned char buf[1 << 16];
    size_t i, k = 0;
    for (i = 0; i < count; i++) {
        int b;
        for (b = 0; b < 8; b++) buf[k++] = (unsigned char)(w[i] >> (8 * b));
        if (k == sizeof buf) {
            if (fwrite(buf, 1, k, f) != k) return -1;
            k = 0;
        }
    }
    return k && fwrite(buf, 1, k, f) != k ? -1 : 0;
}

/* Runs `peer IN OUT REPS WARMUP` on these n inputs of group g (MGPU_MSM_*; env
   MGPU_PEER_GROUP its name): 0 with its median and minimum ms, its affine result (res:
   mgpu_msm_point_bytes(g)), the first word of its line 1 in name (32 bytes) and its third
   line (if any, diagnostics) in note; else -1 with why in note. */
static const char *const group_ids[4] = { "bn254_g1", "bn254_g2", "bls12_381_g1", "bls12_381_g2" };
static int peer_run(const char *peer, int g, size_t n, const mgpu_bn254_scalar *sc, const void *pts, int ordinal,
                    double *med, double *min, uint64_t *res, char *name, char *note, size_t cap)
{
    static const char *const keys[2][4] = { { "x", "y" }, { "x0", "x1", "y0", "y1" } };
    const int L = g < 2 ? 4 : 6, parts = g & 1 ? 4 : 2;
    const size_t pwords = mgpu_msm_point_bytes(g) / 8;
    int k;
    const char *tmp = getenv("TMPDIR");
    char in[512], out[512], cmd[2048], line[1024], ord[16];
    const char *v;
    FILE *f = NULL;
    int fd, st, rc, ok = -1;
    uint64_t n64 = (uint64_t)n;
    unsigned char nb[8];
    size_t i;
    if (!tmp || !*tmp) tmp = "/tmp";
    snprintf(in, sizeof in, "%s/bench_msm_peer_in_XXXXXX", tmp);
    snprintf(out, sizeof out, "%s/bench_msm_peer_out_XXXXXX", tmp);
    snprintf(note, cap, "cannot create temporary files in %s", tmp);
    if ((fd = mkstemp(in)) < 0) return -1;
    if (!(f = fdopen(fd, "wb"))) { close(fd); unlink(in); return -1; }
    if ((fd = mkstemp(out)) < 0) { fclose(f); unlink(in); return -1; }
    close(fd);
    for (i = 0; i < 8; i++) nb[i] = (unsigned char)(n64 >> (8 * i));
    if (fwrite(nb, 1, 8, f) != 8 || peer_write_words(f, (const uint64_t *)sc, 4 * n) ||
        peer_write_words(f, (const uint64_t *)pts, pwords * n)) {
        snprintf(note, cap, "cannot write %s (%.1f GiB)", in, (double)(8 + (32 + 8 * pwords) * n) / (double)(1u << 30));
        goto done;
    }
    rc = fclose(f);
    f = NULL;
    if (rc) { snprintf(note, cap, "cannot write %s", in); goto done; }
    snprintf(ord, sizeof ord, "%d", ordinal);
    setenv("MGPU_PEER_DEVICE", ord, 1);
    setenv("MGPU_PEER_GROUP", group_ids[g], 1);
    snprintf(cmd, sizeof cmd, "%s %s %s %d %d", peer, in, out, opt.reps, opt.warmup);
    fflush(stdout);
    st = system(cmd);
    if (st == -1 || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
        if (st != -1 && WIFEXITED(st)) snprintf(note, cap, "%s: exit status %d", peer, WEXITSTATUS(st));
        else snprintf(note, cap, "%s: did not exit normally (status %d)", peer, st);
        goto done;
    }
    snprintf(note, cap, "%s wrote no valid output (line 1: <name> n=<n> median_ms=<x> min_ms=<y>, line 2: %s)",
             peer, g & 1 ? "x0=<hex> x1=<hex> y0=<hex> y1=<hex>" : "x=<hex> y=<hex>");
    if (!(f = fopen(out, "r")) || !fgets(line, sizeof line, f)) goto done;
    if (!(v = peer_key(line, "n")) || strtoull(v, NULL, 10) != n64) goto done;
    snprintf(name, 32, "%.*s", (int)strcspn(line, " \t\r\n"), line);
    if (!(v = peer_key(line, "median_ms")) || (*med = strtod(v, NULL)) <= 0) goto done;
    if (!(v = peer_key(line, "min_ms")) || (*min = strtod(v, NULL)) <= 0) goto done;
    if (!fgets(line, sizeof line, f)) goto done;
    for (k = 0; k < parts; k++)
        if (peer_hex(peer_key(line, keys[parts / 4][k]), res + (size_t)k * L, L)) goto done;
    note[0] = 0;
    if (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\r\n")] = 0;
        snprintf(note, cap, "%.500s", line);
    }
    ok = 0;
done:
    if (f) fclose(f);
    unlink(in);
    unlink(out);
    return ok;
}

/* --peer-file: lines with n=<n> and median_ms=<x> (e.g. the first lines of the peer's outputs). */
static int peer_file_load(const char *path)
{
    char line[512];
    FILE *f = fopen(path, "r");
    if (!f) { fprintf(stderr, "bench_msm: cannot read --peer-file %s\n", path); return -1; }
    while (fgets(line, sizeof line, f)) {
        const char *vn = peer_key(line, "n"), *vm = peer_key(line, "median_ms");
        if (!vn || !vm) continue;
        if (peer_file_count == (int)(sizeof peer_file_rows / sizeof peer_file_rows[0])) break;
        peer_file_rows[peer_file_count].n = (size_t)strtoull(vn, NULL, 10);
        peer_file_rows[peer_file_count].ms = strtod(vm, NULL);
        if (peer_file_rows[peer_file_count].n && peer_file_rows[peer_file_count].ms > 0) peer_file_count++;
    }
    fclose(f);
    if (!peer_file_count) { fprintf(stderr, "bench_msm: --peer-file %s has no line with n=<n> median_ms=<ms>\n", path); return -1; }
    return 0;
}

/* ------------------------------------------------------------------ --curve: the other groups */
/* For each n of --n, BN254 G1 and each group asked for, through mgpu_msm_curve: dev (inputs
   in device memory, standard form) and pinned (pinned host memory), median of opt.reps after
   opt.warmup, checked against the CPU device up to 2^16 points and between the two (and the
   peer) above; with --peer-cmd the peer on the same inputs. Returns 0, or 1 for a wrong
   result or a failed peer. */
/* One dev call of a group's MSM (--kernels, --c-sweep in --curve). */
typedef struct { const void *s, *p; size_t n; const mgpu_msm_config *cfg; uint64_t *res; } curve_call;
static void run_curve_call(const void *ctx)
{
    const curve_call *c = (const curve_call *)ctx;
    MK(mgpu_msm_curve(c->s, c->p, c->n, 1, c->cfg, c->res, st));
}
static double curve_measure(const curve_call *c)
{
    double ms[MAX_REPS];
    int i, k;
    for (i = k = 0; i < opt.warmup + opt.reps; i++) {
        double a = bench_now_ns();
        run_curve_call(c);
        if (i >= opt.warmup) ms[k++] = (bench_now_ns() - a) * 1e-6;
    }
    return bench_median(ms, k);
}
static int curve_bench(int ordinal)
{
    static const char *const names[4] = { "BN254 G1", "BN254 G2", "BLS12-381 G1", "BLS12-381 G2" };
    double tab[4][MAX_SIZES][6];         /* dev, pinned, peer, pre2, pre4, second peer ms */
    double pre_tab[4][MAX_SIZES][2];     /* the precomputation's ms, factor 2 and 4 */
    static char peer_name[2][32] = { "peer", "peer2" };
    const char *const peer_cmds[2] = { opt.peer_cmd, opt.peer2_cmd };
    static const int peer_col[2] = { 2, 5 };   /* the peers' columns of tab */
    size_t maxn = 0;
    mgpu_stream cpu;
    int g, s, k, wrong = 0;
    const unsigned groups = opt.curves | 1u;
    memset(tab, 0, sizeof tab);
    memset(pre_tab, 0, sizeof pre_tab);
    MK(mgpu_default_stream(mgpu_cpu_device(0), &cpu));
    for (s = 0; s < opt.nsizes; s++) if (opt.n[s] > maxn) maxn = opt.n[s];
    printf("bench_msm --curve: mgpu_msm_curve on device %d, median of %d runs after %d warm-ups, host wall clock per call\n",
           opt.device, opt.reps, opt.warmup);
    for (g = 0; g < 4; g++) {
        const size_t E = mgpu_msm_point_bytes(g);
        mgpu_bn254_scalar *h_sc = NULL, *d_sc = NULL;
        void *h_pts = NULL, *d_pts = NULL, *d_bases = NULL;
        double t0;
        if (!(groups >> g & 1)) continue;
        t0 = bench_now_ns();
        if (mgpu_malloc_host(&h_pts, maxn * E) != MGPU_SUCCESS || mgpu_malloc_host((void **)&h_sc, maxn * 32) != MGPU_SUCCESS) {
            fprintf(stderr, "bench_msm: pinned host memory for %zu %s points: %s\n", maxn, names[g], mgpu_last_error());
            return 1;
        }
        MK(mgpu_curve_random_points(g, h_pts, maxn, 0x5eed0000u + (uint64_t)g));
        MK(mgpu_malloc(&d_pts, maxn * E));
        MK(mgpu_malloc((void **)&d_sc, maxn * 32));
        MK(mgpu_memcpy(d_pts, h_pts, maxn * E));
        if (opt.precompute) MK(mgpu_malloc(&d_bases, 4 * maxn * E));
        printf("%s: %zu random points generated and uploaded in %.1f s\n", names[g], maxn, (bench_now_ns() - t0) * 1e-9);
        for (s = 0; s < opt.nsizes; s++) {
            const size_t n = opt.n[s];
            mgpu_msm_config cfg;
            uint64_t res[36], aff[3][24], cref[24];
            double ms[MAX_REPS];
            int src, i;
            char nb[32];
            bench_n_str(n, nb, sizeof nb);
            MK(mgpu_curve_random_scalars(g, h_sc, n, 0xabcd00u + (uint64_t)s));
            MK(mgpu_memcpy(d_sc, h_sc, n * 32));
            memset(&cfg, 0, sizeof cfg);
            cfg.group = g;
            for (src = 0; src < 2; src++) {
                for (i = k = 0; i < opt.warmup + opt.reps; i++) {
                    double a = bench_now_ns();
                    MK(mgpu_msm_curve(src ? h_sc : d_sc, src ? h_pts : d_pts, n, 1, &cfg, res, st));
                    if (i >= opt.warmup) ms[k++] = (bench_now_ns() - a) * 1e-6;
                    MK(mgpu_curve_to_affine(g, res, i ? cref : aff[src], 0));
                    if (i && memcmp(cref, aff[src], E)) { printf("WRONG: %s n=%s: runs differ\n", names[g], nb); wrong++; }
                }
                tab[g][s][src] = bench_median(ms, k);
            }
            if (memcmp(aff[0], aff[1], E)) { printf("WRONG: %s n=%s: pinned differs from dev\n", names[g], nb); wrong++; }
            for (k = 2; k <= 4 && opt.precompute; k += 2) {      /* precomputed bases, factor k */
                mgpu_msm_config pc = cfg;
                double pt[3];
                int j, m;
                pc.precompute_factor = k;
                for (j = 0; j < 3; j++) {
                    double a = bench_now_ns();
                    MK(mgpu_msm_curve_precompute_bases(d_pts, n, &pc, d_bases, st));
                    MK(mgpu_stream_synchronize(st));
                    pt[j] = (bench_now_ns() - a) * 1e-6;
                }
                pre_tab[g][s][k / 2 - 1] = bench_median(pt, 3);
                for (i = m = 0; i < opt.warmup + opt.reps; i++) {
                    double a = bench_now_ns();
                    MK(mgpu_msm_curve(d_sc, d_bases, n, 1, &pc, res, st));
                    if (i >= opt.warmup) ms[m++] = (bench_now_ns() - a) * 1e-6;
                    MK(mgpu_curve_to_affine(g, res, cref, 0));
                    if (memcmp(cref, aff[0], E)) { printf("WRONG: %s n=%s: precompute %d differs from dev\n", names[g], nb, k); wrong++; }
                }
                tab[g][s][2 + k / 2] = bench_median(ms, m);
            }
            if (opt.kernels || (opt.c_sweep && n >= ((size_t)1 << 16))) {
                curve_call cc;
                char what[96];
                cc.s = d_sc; cc.p = d_pts; cc.n = n; cc.cfg = &cfg; cc.res = res;
                snprintf(what, sizeof what, "%s n=%s dev", names[g], nb);
                if (opt.kernels) kernel_times_of(what, run_curve_call, &cc);
                if (opt.c_sweep && n >= ((size_t)1 << 16)) {   /* mgpu's window size against its neighbours */
                    const int c0 = mgpu_msm_curve_window_bits(g, n, 1);
                    int cb;
                    printf("%s n=%s c sweep (dev ms, mgpu's default %d):", names[g], nb, c0);
                    for (cb = c0 - 2; cb <= c0 + 2; cb++) {
                        if (cb < 1 || cb > MGPU_MSM_MAX_WINDOW_BITS) continue;
                        cfg.window_bits = cb;
                        printf(" c=%d %.3f", cb, curve_measure(&cc));
                        MK(mgpu_curve_to_affine(g, res, cref, 0));
                        if (memcmp(cref, aff[0], E)) { printf(" WRONG"); wrong++; }
                    }
                    printf("\n");
                    cfg.window_bits = 0;
                }
            }
            if (n <= ((size_t)1 << 16)) {
                MK(mgpu_msm_curve(h_sc, h_pts, n, 1, &cfg, res, cpu));
                MK(mgpu_curve_to_affine(g, res, cref, 0));
                if (memcmp(cref, aff[0], E)) { printf("WRONG: %s n=%s: differs from the CPU device\n", names[g], nb); wrong++; }
            }
            for (k = 0; k < 2; k++) {                          /* the peers on the same inputs */
                char note[600];
                double med = 0, mn = 0;
                if (!peer_cmds[k]) continue;
                if (peer_run(peer_cmds[k], g, n, h_sc, h_pts, ordinal, &med, &mn, aff[2], peer_name[k], note, sizeof note)) {
                    printf("peer %s n=%s: %s\n", names[g], nb, note);
                    peer_failed++;
                    continue;
                }
                tab[g][s][peer_col[k]] = med;
                if (memcmp(aff[2], aff[0], E)) {
                    printf("WRONG: %s n=%s: %s's result differs from mgpu's\n", names[g], nb, peer_name[k]);
                    wrong++;
                }
                if (note[0]) printf("%s %s n=%s: %s\n", peer_name[k], names[g], nb, note);
            }
            printf("%-13s n=%-5s dev %9.3f ms  pinned %9.3f ms%s", names[g], nb, tab[g][s][0], tab[g][s][1],
                   n <= ((size_t)1 << 16) ? "  (= the CPU device)" : "");
            for (k = 0; k < 2; k++)
                if (tab[g][s][peer_col[k]] > 0)
                    printf("  %s %9.3f ms (/ mgpu %.2f)", peer_name[k], tab[g][s][peer_col[k]], tab[g][s][peer_col[k]] / tab[g][s][0]);
            if (opt.precompute)
                printf("  pre2 %9.3f ms (bases %.1f ms)  pre4 %9.3f ms (bases %.1f ms)", tab[g][s][3], pre_tab[g][s][0],
                       tab[g][s][4], pre_tab[g][s][1]);
            printf("\n");
            fflush(stdout);
        }
        mgpu_free(d_pts);
        mgpu_free(d_bases);
        mgpu_free(d_sc);
        mgpu_free_host(h_pts);
        mgpu_free_host(h_sc);
    }
    printf("\n| group | n | mgpu dev ms | pinned ms | pinned / dev | vs BN254 G1 | G2 / G1 (same curve) |");
    for (k = 0; k < 2; k++)
        if (peer_cmds[k]) printf(" %s ms | %s / mgpu |", peer_name[k], peer_name[k]);
    printf("%s\n| --- | --- | --- | --- | --- | --- | --- |%s%s%s\n", opt.precompute ? " pre2 ms | pre4 ms | bases 2 / 4 ms |" : "",
           opt.peer_cmd ? " --- | --- |" : "", opt.peer2_cmd ? " --- | --- |" : "", opt.precompute ? " --- | --- | --- |" : "");
    for (g = 0; g < 4; g++) {
        if (!(groups >> g & 1)) continue;
        for (s = 0; s < opt.nsizes; s++) {
            char nb[32], g2[32] = "", b1[32] = "";
            const double *t = tab[g][s];
            bench_n_str(opt.n[s], nb, sizeof nb);
            if ((g & 1) && (groups >> (g - 1) & 1)) snprintf(g2, sizeof g2, "%.2f", t[0] / tab[g - 1][s][0]);
            if (g) snprintf(b1, sizeof b1, "%.2f", t[0] / tab[0][s][0]);
            printf("| %s | %s | %.3f | %.3f | %.2f | %s | %s |", names[g], nb, t[0], t[1], t[1] / t[0], b1, g2);
            for (k = 0; k < 2; k++) {
                if (!peer_cmds[k]) continue;
                if (t[peer_col[k]] > 0) printf(" %.3f | %.2f |", t[peer_col[k]], t[peer_col[k]] / t[0]);
                else printf(" - | - |");
            }
            if (opt.precompute)
                printf(" %.3f | %.3f | %.1f / %.1f |", t[3], t[4], pre_tab[g][s][0], pre_tab[g][s][1]);
            printf("\n");
        }
    }
    return wrong || peer_failed ? 1 : 0;
}

/* ------------------------------------------------------------------ --pair: Groth16's G1 + G2 */
/* For each n of --n and each curve asked for: sep (mgpu_msm_curve in G1, then in G2, timed
   together) against pair (mgpu_msm_pair), inputs in device memory, and the same over bases of
   precompute factor 2. Returns 0, or 1 for a wrong result. */
static int pair_bench(void)
{
    static const char *const curves[4] = { "BN254", "", "BLS12-381", "" };
    double tab[4][MAX_SIZES][4];         /* sep, pair, sep2, pair2 ms */
    size_t maxn = 0;
    mgpu_stream cpu;
    int c, s, wrong = 0;
    memset(tab, 0, sizeof tab);
    MK(mgpu_default_stream(mgpu_cpu_device(0), &cpu));
    for (s = 0; s < opt.nsizes; s++) if (opt.n[s] > maxn) maxn = opt.n[s];
    printf("bench_msm --pair: mgpu_msm_pair against two mgpu_msm_curve calls on device %d, median of %d runs after %d "
           "warm-ups, host wall clock per call (the two separate calls timed together)\n", opt.device, opt.reps, opt.warmup);
    for (c = 0; c < 4; c += 2) {
        const size_t E1 = mgpu_msm_point_bytes(c), E2 = mgpu_msm_point_bytes(c + 1);
        mgpu_bn254_scalar *h_sc = NULL, *d_sc = NULL;
        void *h1 = NULL, *h2 = NULL, *d1 = NULL, *d2 = NULL, *b1 = NULL, *b2 = NULL;
        double t0;
        if (!(opt.pairs >> c & 1)) continue;
        t0 = bench_now_ns();
        h1 = malloc(maxn * E1);
        h2 = malloc(maxn * E2);
        h_sc = (mgpu_bn254_scalar *)malloc(maxn * 32);
        if (!h1 || !h2 || !h_sc) { fprintf(stderr, "bench_msm: out of host memory\n"); return 1; }
        MK(mgpu_curve_random_points(c, h1, maxn, 0x5eed0000u + (uint64_t)c));
        MK(mgpu_curve_random_points(c + 1, h2, maxn, 0x5eed0000u + (uint64_t)c + 1));
        MK(mgpu_malloc(&d1, maxn * E1));
        MK(mgpu_malloc(&d2, maxn * E2));
        MK(mgpu_malloc((void **)&d_sc, maxn * 32));
        MK(mgpu_memcpy(d1, h1, maxn * E1));
        MK(mgpu_memcpy(d2, h2, maxn * E2));
        if (opt.precompute) { MK(mgpu_malloc(&b1, 2 * maxn * E1)); MK(mgpu_malloc(&b2, 2 * maxn * E2)); }
        printf("%s: %zu random G1 and G2 points generated and uploaded in %.1f s\n", curves[c], maxn,
               (bench_now_ns() - t0) * 1e-9);
        for (s = 0; s < opt.nsizes; s++) {
            const size_t n = opt.n[s];
            mgpu_msm_config cfg;
            uint64_t r1[18], r2[36], a1[12], a2[24], w1[12], w2[24];
            double ms[2][MAX_REPS];
            int f, i, k, m;
            char nb[32];
            bench_n_str(n, nb, sizeof nb);
            MK(mgpu_curve_random_scalars(c, h_sc, n, 0xabcd00u + (uint64_t)s));
            MK(mgpu_memcpy(d_sc, h_sc, n * 32));
            for (f = 1; f <= (opt.precompute ? 2 : 1); f++) {
                const void *p1 = f > 1 ? b1 : d1, *p2 = f > 1 ? b2 : d2;
                memset(&cfg, 0, sizeof cfg);
                cfg.group = c;
                cfg.precompute_factor = f;
                if (f > 1) {
                    MK(mgpu_msm_curve_precompute_bases(d1, n, &cfg, b1, st));
                    cfg.group = c + 1;
                    MK(mgpu_msm_curve_precompute_bases(d2, n, &cfg, b2, st));
                    MK(mgpu_stream_synchronize(st));
                }
                for (i = k = m = 0; i < opt.warmup + opt.reps; i++) {
                    double a = bench_now_ns();
                    cfg.group = c;
                    MK(mgpu_msm_curve(d_sc, p1, n, 1, &cfg, r1, st));
                    cfg.group = c + 1;
                    MK(mgpu_msm_curve(d_sc, p2, n, 1, &cfg, r2, st));
                    if (i >= opt.warmup) ms[0][k++] = (bench_now_ns() - a) * 1e-6;
                    MK(mgpu_curve_to_affine(c, r1, w1, 0));
                    MK(mgpu_curve_to_affine(c + 1, r2, w2, 0));
                    a = bench_now_ns();
                    MK(mgpu_msm_pair(d_sc, p1, p2, n, 1, &cfg, r1, r2, st));
                    if (i >= opt.warmup) ms[1][m++] = (bench_now_ns() - a) * 1e-6;
                    MK(mgpu_curve_to_affine(c, r1, a1, 0));
                    MK(mgpu_curve_to_affine(c + 1, r2, a2, 0));
                    if (memcmp(a1, w1, E1) || memcmp(a2, w2, E2)) {
                        printf("WRONG: %s n=%s f=%d: the pair differs from the separate calls\n", curves[c], nb, f);
                        wrong++;
                    }
                }
                tab[c][s][2 * (f - 1)] = bench_median(ms[0], k);
                tab[c][s][2 * (f - 1) + 1] = bench_median(ms[1], m);
            }
            if (n <= ((size_t)1 << 16)) {
                memset(&cfg, 0, sizeof cfg);
                cfg.group = c;
                MK(mgpu_msm_curve(h_sc, h1, n, 1, &cfg, r1, cpu));
                cfg.group = c + 1;
                MK(mgpu_msm_curve(h_sc, h2, n, 1, &cfg, r2, cpu));
                MK(mgpu_curve_to_affine(c, r1, a1, 0));
                MK(mgpu_curve_to_affine(c + 1, r2, a2, 0));
                if (memcmp(a1, w1, E1) || memcmp(a2, w2, E2)) {
                    printf("WRONG: %s n=%s: the GPU differs from the CPU device\n", curves[c], nb);
                    wrong++;
                }
            }
            printf("%-9s n=%-5s sep %9.3f ms  pair %9.3f ms (pair / sep %.3f)", curves[c], nb, tab[c][s][0], tab[c][s][1],
                   tab[c][s][1] / tab[c][s][0]);
            if (opt.precompute)
                printf("  sep2 %9.3f ms  pair2 %9.3f ms (%.3f)", tab[c][s][2], tab[c][s][3], tab[c][s][3] / tab[c][s][2]);
            printf("%s\n", n <= ((size_t)1 << 16) ? "  (= the CPU device)" : "");
            fflush(stdout);
        }
        mgpu_free(d1); mgpu_free(d2); mgpu_free(b1); mgpu_free(b2); mgpu_free(d_sc);
        free(h1); free(h2); free(h_sc);
    }
    printf("\n| curve | n | sep ms (G1 + G2) | pair ms | pair / sep |%s\n| --- | --- | --- | --- | --- |%s\n",
           opt.precompute ? " sep2 ms | pair2 ms | pair2 / sep2 |" : "", opt.precompute ? " --- | --- | --- |" : "");
    for (c = 0; c < 4; c += 2) {
        if (!(opt.pairs >> c & 1)) continue;
        for (s = 0; s < opt.nsizes; s++) {
            const double *t = tab[c][s];
            char nb[32];
            bench_n_str(opt.n[s], nb, sizeof nb);
            printf("| %s | %s | %.3f | %.3f | %.3f |", curves[c], nb, t[0], t[1], t[1] / t[0]);
            if (opt.precompute) printf(" %.3f | %.3f | %.3f |", t[2], t[3], t[3] / t[2]);
            printf("\n");
        }
    }
    return wrong ? 1 : 0;
}

/* ------------------------------------------------------------------ arguments */
static void usage(void)
{
    printf("usage: bench_msm [--device D] [--n 2^10,2^12,...,2^24] [--reps N>=7] [--warmup N>=2]\n"
           "                 [--ndev N] [--no-multi] [--batch-n 2^20 (0: no batch)] [--split-n 2^24,2^26 (0: none)]\n"
           "                 [--no-precompute] [--cpu (a dry run on 4 CPU devices)] [--kernels (per-kernel times of dev)]\n"
           "                 [--c-sweep (dev at window bits c-2..c+2 from 2^16 on)]\n"
           "                 [--scalars random|equal|small (one-GPU sizes: all equal, or below 2^16)]\n"
           "                 [--curve bn254_g2,bls12_381_g1,bls12_381_g2|all (those groups beside BN254 G1)]\n"
           "                 [--pair bn254,bls12_381|all (mgpu_msm_pair against two mgpu_msm_curve calls)]\n"
           "                 [--peer-cmd CMD (run `CMD IN OUT REPS WARMUP` per size, e.g. .peers/era_bench;\n"
           "                  with --curve a second --peer-cmd runs a second peer beside it)\n"
           "                  | --peer-file FILE (lines n=<n> median_ms=<ms> of an earlier era run)]\n"
           "  sizes as 2^k, 1048576 or 1M; at most 2^30\n");
}

/* --n, --split-n: sizes up to 2^30; "0" (allow_zero): none */
static int parse_list(const char *v, size_t *out, int *count, int allow_zero)
{
    *count = allow_zero && !strcmp(v, "0") ? 0 : bench_parse_list("bench_msm", "size", v, out, MAX_SIZES, 0, 30, 1, (size_t)1 << 30);
    return *count < 0 ? -1 : 0;
}

static int parse_args(int argc, char **argv)
{
    int i;
    opt.nsizes = 8;
    for (i = 0; i < 8; i++) opt.n[i] = (size_t)1 << (10 + 2 * i);
    opt.nsplit = 2;
    opt.split_n[0] = (size_t)1 << 24;
    opt.split_n[1] = (size_t)1 << 26;
    opt.batch_n = (size_t)1 << 20;
    opt.reps = 9;
    opt.warmup = 2;
    opt.multi = 1;
    opt.precompute = 1;
    for (i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) { usage(); exit(0); }
        else if (!strcmp(a, "--no-multi")) opt.multi = 0;
        else if (!strcmp(a, "--no-precompute")) opt.precompute = 0;
        else if (!strcmp(a, "--cpu")) opt.cpu = 1;
        else if (!strcmp(a, "--kernels")) opt.kernels = 1;
        else if (!strcmp(a, "--c-sweep")) opt.c_sweep = 1;
        else if (!strcmp(a, "--curve")) {
            char list[256], *t;
            if (!v) { fprintf(stderr, "bench_msm: --curve needs a value\n"); return -1; }
            snprintf(list, sizeof list, "%s", v);
            for (t = strtok(list, ","); t; t = strtok(NULL, ",")) {
                int g;
                if (!strcmp(t, "all")) { opt.curves |= 0xeu; continue; }
                for (g = 0; g < 4 && strcmp(t, group_ids[g]); g++) {}
                if (g == 4) {
                    fprintf(stderr, "bench_msm: --curve %s: use bn254_g2, bls12_381_g1, bls12_381_g2 or all\n", t);
                    return -1;
                }
                opt.curves |= 1u << g;
            }
            i++;
        }
        else if (!strcmp(a, "--pair")) {
            char list[256], *t;
            if (!v) { fprintf(stderr, "bench_msm: --pair needs a value\n"); return -1; }
            snprintf(list, sizeof list, "%s", v);
            for (t = strtok(list, ","); t; t = strtok(NULL, ",")) {
                if (!strcmp(t, "all")) opt.pairs |= 5u;
                else if (!strcmp(t, "bn254")) opt.pairs |= 1u;
                else if (!strcmp(t, "bls12_381")) opt.pairs |= 4u;
                else { fprintf(stderr, "bench_msm: --pair %s: use bn254, bls12_381 or all\n", t); return -1; }
            }
            i++;
        }
        else if (!strcmp(a, "--scalars")) {
            if (!v || (strcmp(v, "random") && strcmp(v, "equal") && strcmp(v, "small"))) {
                fprintf(stderr, "bench_msm: --scalars takes random, equal or small\n");
                return -1;
            }
            opt.scalars = !strcmp(v, "equal") ? 1 : !strcmp(v, "small") ? 2 : 0;
            i++;
        }
        else if (strcmp(a, "--n") && strcmp(a, "--split-n") && strcmp(a, "--batch-n") && strcmp(a, "--device") &&
                 strcmp(a, "--reps") && strcmp(a, "--warmup") && strcmp(a, "--ndev") && strcmp(a, "--peer-cmd") &&
                 strcmp(a, "--peer-file")) {
            fprintf(stderr, "bench_msm: unknown option %s\n", a);
            usage();
            return -1;
        } else if (!v) { fprintf(stderr, "bench_msm: %s needs a value\n", a); return -1; }
        else if (!strcmp(a, "--n")) { if (parse_list(v, opt.n, &opt.nsizes, 0)) return -1; i++; }
        else if (!strcmp(a, "--split-n")) { if (parse_list(v, opt.split_n, &opt.nsplit, 1)) return -1; i++; }
        else if (!strcmp(a, "--batch-n")) {
            opt.batch_n = strcmp(v, "0") ? bench_parse_count(v, 0, 30) : 0;
            if (strcmp(v, "0") && (!opt.batch_n || opt.batch_n > ((size_t)1 << 26))) { fprintf(stderr, "bench_msm: bad --batch-n %s\n", v); return -1; }
            i++;
        }
        else if (!strcmp(a, "--device")) { opt.device = atoi(v); i++; }
        else if (!strcmp(a, "--reps")) { opt.reps = atoi(v); i++; }
        else if (!strcmp(a, "--warmup")) { opt.warmup = atoi(v); i++; }
        else if (!strcmp(a, "--peer-cmd")) {
            if (opt.peer2_cmd) { fprintf(stderr, "bench_msm: at most two --peer-cmd\n"); return -1; }
            *(opt.peer_cmd ? &opt.peer2_cmd : &opt.peer_cmd) = v;
            i++;
        }
        else if (!strcmp(a, "--peer-file")) { opt.peer_file = v; i++; }
        else { opt.ndev = atoi(v); i++; }                  /* --ndev */
    }
    if (opt.reps < 7 || opt.reps > MAX_REPS - 16) { fprintf(stderr, "bench_msm: --reps must be 7..%d\n", MAX_REPS - 16); return -1; }
    if (opt.warmup < 2 || opt.warmup > 16) { fprintf(stderr, "bench_msm: --warmup must be 2..16\n"); return -1; }
    if (opt.ndev < 0 || opt.ndev > MGPU_MAX_DEVICES) { fprintf(stderr, "bench_msm: bad --ndev\n"); return -1; }
    if (opt.device < 0) { fprintf(stderr, "bench_msm: bad --device\n"); return -1; }
    if (opt.peer_cmd && opt.peer_file) { fprintf(stderr, "bench_msm: --peer-cmd or --peer-file, not both\n"); return -1; }
    if ((opt.peer_cmd && !*opt.peer_cmd) || (opt.peer2_cmd && !*opt.peer2_cmd) || (opt.peer_file && !*opt.peer_file)) {
        fprintf(stderr, "bench_msm: empty --peer-cmd or --peer-file\n");
        return -1;
    }
    if (opt.peer2_cmd && !opt.curves) { fprintf(stderr, "bench_msm: a second --peer-cmd needs --curve\n"); return -1; }
    if (opt.peer_file && peer_file_load(opt.peer_file)) return -1;
    qsort(opt.n, (size_t)opt.nsizes, sizeof opt.n[0], bench_cmp_size);
    qsort(opt.split_n, (size_t)opt.nsplit, sizeof opt.split_n[0], bench_cmp_size);
    return 0;
}

/* ------------------------------------------------------------------ main */
typedef struct size_row {
    size_t n;
    double ms[5], pre_ms[2];             /* dev, mont, pinned, pre2, pre4; precompute times */
    int cpu_checked;
    int era_src;                         /* E_*: where era's time comes from */
    double era, era_min;                 /* era's median (and, measured, minimum) ms */
} size_row;
enum { M_DEV, M_MONT, M_PINNED, M_PRE2, M_PRE4 };
enum { E_NONE, E_RUN, E_FILE, E_QUOTED };

/* Fills w->era from --peer-file or the quoted numbers unless the peer ran for it. */
static void era_fill(size_row *w)
{
    int k, lg = log2_exact(w->n);
    if (w->era_src != E_NONE || opt.peer_cmd) return;
    if (opt.peer_file) {
        for (k = 0; k < peer_file_count; k++)
            if (peer_file_rows[k].n == w->n) { w->era = peer_file_rows[k].ms; w->era_src = E_FILE; }
        return;
    }
    for (k = 0; k < (int)(sizeof peers / sizeof peers[0]); k++)
        if (peers[k].log2n == lg) { w->era = peers[k].era; w->era_src = E_QUOTED; }
}

typedef struct split_row { size_t n; double one, dev, pinned; int ran; const char *why; } split_row;

int main(int argc, char **argv)
{
    int rc, s, i, missed = 0, stretch_missed = 0, stretch_checked = 0, era_judged = 0;
    size_t maxn = 0, max_sizes = 0, len = 0;
    mgpu_device_info info;
    mgpu_bn254_affine *h_pts = NULL, *d_pts = NULL, *d_ptsm = NULL, *d_bases = NULL;
    mgpu_bn254_scalar *h_sc = NULL, *d_sc = NULL, *d_scm = NULL;
    size_row rows[MAX_SIZES];
    split_row splits[MAX_SIZES];
    double batch_one = 0, batch_one_pinned = 0, batch_multi = 0, batch_multi_pinned = 0;
    int batch_ran = 0;
    mgpu_stream cpu;
    char nb[32], line[4096];
    uint64_t seed;

    if (parse_args(argc, argv)) return 2;
    if (opt.cpu) {
        mgpu_desc d;
        memset(&d, 0, sizeof d);
        d.backend = MGPU_BACKEND_CPU;
        d.cpu_devices = 4;
        MK(mgpu_init(&d));
        printf("bench_msm --cpu: a dry run on CPU devices; the times mean nothing, no target is judged\n");
    } else if ((rc = bench_start("bench_msm", 1)) != 0) return rc;
    ngpu = mgpu_device_count();
    if (opt.device >= ngpu) { fprintf(stderr, "bench_msm: --device %d: there are %d GPUs\n", opt.device, ngpu); return 2; }
    if (opt.ndev > ngpu) { fprintf(stderr, "bench_msm: --ndev %d: there are %d GPUs\n", opt.ndev, ngpu); return 2; }
    if (!opt.ndev) opt.ndev = ngpu;
    for (i = 0; i < opt.ndev; i++) devs[i] = i;
    if (opt.ndev < 2) opt.multi = 0;
    bench_seed();
    seed = bench_splitmix(&bench_seed_state);
    printf("bench_msm: BN254 G1 MSM, mgpu_msm on one GPU and mgpu_msm_multi over %d; median of %d runs after %d warm-ups, "
           "host wall clock per call\n", opt.ndev, opt.reps, opt.warmup);
    bench_print_devices();
    MK(mgpu_device_info_get(opt.device, &info));
    MK(mgpu_set_device(opt.device));
    MK(mgpu_stream_create_flags(&st, MGPU_STREAM_NON_BLOCKING));
    if (opt.pairs) {                     /* --pair: that section only */
        rc = pair_bench();
        mgpu_stream_destroy(st);
        mgpu_shutdown();
        return rc;
    }
    if (opt.curves) {                    /* --curve: that section only */
        rc = curve_bench(info.ordinal);
        mgpu_stream_destroy(st);
        mgpu_shutdown();
        return rc;
    }
    MK(mgpu_default_stream(mgpu_cpu_device(0), &cpu));

    /* sizes and memory: points for the largest case, generated once */
    for (s = 0; s < opt.nsizes; s++) if (opt.n[s] > max_sizes) max_sizes = opt.n[s];
    maxn = max_sizes;
    if (opt.batch_n && BATCH * opt.batch_n > maxn) maxn = BATCH * opt.batch_n;
    memset(splits, 0, sizeof splits);
    for (s = 0; s < opt.nsplit; s++) {
        /* inputs (96 B a point) on GPU D plus room for the one-GPU MSM's working memory */
        double need = 96.0 * (double)opt.split_n[s] * 3.0;
        splits[s].n = opt.split_n[s];
        if (!opt.multi) { splits[s].why = opt.ndev < 2 ? "one GPU" : "--no-multi"; continue; }
        if (need > (double)info.free_memory) { splits[s].why = "not enough GPU memory"; continue; }
        if (opt.split_n[s] > maxn) maxn = opt.split_n[s];
    }
    printf("generating %zu random points (multiples of G) on the host...\n", maxn);
    fflush(stdout);
    {
        double t0 = bench_now_ns();
        if (mgpu_malloc_host((void **)&h_pts, maxn * sizeof *h_pts) != MGPU_SUCCESS ||
            mgpu_malloc_host((void **)&h_sc, maxn * sizeof *h_sc) != MGPU_SUCCESS) {
            fprintf(stderr, "bench_msm: pinned host memory for %zu points: %s\n", maxn, mgpu_last_error());
            return 1;
        }
        MK(mgpu_bn254_random_points(h_pts, maxn, seed));
        MK(mgpu_malloc((void **)&d_pts, maxn * sizeof *d_pts));
        MK(mgpu_malloc((void **)&d_sc, maxn * sizeof *d_sc));
        MK(mgpu_memcpy(d_pts, h_pts, maxn * sizeof *d_pts));
        MK(mgpu_malloc((void **)&d_ptsm, max_sizes * sizeof *d_ptsm));
        MK(mgpu_malloc((void **)&d_scm, max_sizes * sizeof *d_scm));
        if (opt.precompute) MK(mgpu_malloc((void **)&d_bases, 4 * max_sizes * sizeof *d_bases));
        printf("  done in %.1f s (%.2f GiB of points)\n", (bench_now_ns() - t0) * 1e-9,
               (double)(maxn * sizeof *h_pts) / (double)(1u << 30));
    }

    /* ---- one GPU, per size */
    memset(rows, 0, sizeof rows);
    printf("\none GPU (device %d: %s), inputs in device memory unless said otherwise\n", opt.device, info.name);
    for (s = 0; s < opt.nsizes; s++) {
        size_row *w = &rows[s];
        size_t n = opt.n[s];
        mgpu_bn254_affine ref, got;
        call c;
        int f;
        char what[96];
        w->n = n;
        bench_n_str(n, nb, sizeof nb);
        MK(mgpu_bn254_random_scalars(h_sc, n, seed + 1 + (uint64_t)s));
        skew_scalars(h_sc, n);
        MK(mgpu_memcpy(d_sc, h_sc, n * sizeof *d_sc));
        memset(&c, 0, sizeof c);
        c.kind = K_MSM;
        c.s = d_sc;
        c.p = d_pts;
        c.n = n;
        snprintf(what, sizeof what, "n=%s dev", nb);
        w->ms[M_DEV] = measure(what, &c, &ref);
        if (opt.kernels) kernel_times(what, &c);
        if (opt.c_sweep && n >= ((size_t)1 << 16)) {    /* the window size mgpu chooses against its neighbours */
            const int c0 = mgpu_msm_window_bits(n, 1);
            int cb;
            printf("n=%s c sweep (dev ms, mgpu chooses %d):", nb, c0);
            for (cb = c0 - 2; cb <= c0 + 2; cb++) {
                mgpu_bn254_affine got;
                if (cb < 1 || cb > MGPU_MSM_MAX_WINDOW_BITS) continue;
                c.cfg.window_bits = cb;
                snprintf(what, sizeof what, "n=%s dev c=%d", nb, cb);
                printf(" c=%d %.3f", cb, measure(what, &c, &got));
                expect_same(what, &got, &ref, 1, "dev");
            }
            printf("\n");
            c.cfg.window_bits = 0;
        }
        if (n <= CPU_CHECK_MAX) {
            mgpu_bn254_jacobian j;
            mgpu_bn254_affine cref;
            MK(mgpu_msm(h_sc, h_pts, n, NULL, &j, cpu));
            MK(mgpu_bn254_to_affine(&j, &cref, 0));
            expect_same(what, &ref, &cref, 1, "the CPU device");
            ref = cref;
            w->cpu_checked = 1;
        }
        /* Montgomery inputs, converted on the GPU */
        MK(mgpu_memcpy_async(d_scm, d_sc, n * sizeof *d_sc, st));
        MK(mgpu_memcpy_async(d_ptsm, d_pts, n * sizeof *d_pts, st));
        MK(mgpu_bn254_convert_scalars(d_scm, n, 1, st));
        MK(mgpu_bn254_convert_points(d_ptsm, n, 1, st));
        MK(mgpu_stream_synchronize(st));
        c.s = d_scm;
        c.p = d_ptsm;
        c.cfg.flags = MGPU_MSM_SCALARS_MONTGOMERY | MGPU_MSM_POINTS_MONTGOMERY;
        snprintf(what, sizeof what, "n=%s mont", nb);
        w->ms[M_MONT] = measure(what, &c, &got);
        expect_same(what, &got, &ref, 1, w->cpu_checked ? "the CPU device" : "dev");
        /* pinned host inputs */
        c.s = h_sc;
        c.p = h_pts;
        c.cfg.flags = 0;
        snprintf(what, sizeof what, "n=%s pinned", nb);
        w->ms[M_PINNED] = measure(what, &c, &got);
        expect_same(what, &got, &ref, 1, w->cpu_checked ? "the CPU device" : "dev");
        /* precomputed bases */
        for (f = 2; f <= 4 && opt.precompute; f += 2) {
            double pt[3];
            int k;
            memset(&c.cfg, 0, sizeof c.cfg);
            c.cfg.precompute_factor = f;
            for (k = 0; k < 3; k++) {
                double t0 = bench_now_ns();
                MK(mgpu_msm_precompute_bases(d_pts, n, &c.cfg, d_bases, st));
                MK(mgpu_stream_synchronize(st));
                pt[k] = (bench_now_ns() - t0) * 1e-6;
            }
            w->pre_ms[f / 2 - 1] = bench_median(pt, 3);
            c.s = d_sc;
            c.p = d_bases;
            snprintf(what, sizeof what, "n=%s precompute %d", nb, f);
            w->ms[f == 2 ? M_PRE2 : M_PRE4] = measure(what, &c, &got);
            expect_same(what, &got, &ref, 1, w->cpu_checked ? "the CPU device" : "dev");
        }
        /* era on the same inputs, in its own process, while this one is idle */
        if (opt.peer_cmd) {
            mgpu_bn254_affine er;
            char note[600], name[32];
            snprintf(what, sizeof what, "n=%s era (--peer-cmd)", nb);
            if (peer_run(opt.peer_cmd, MGPU_MSM_BN254_G1, n, h_sc, h_pts, info.ordinal, &w->era, &w->era_min, er.x, name, note,
                         sizeof note)) {
                printf("n=%-5s era FAILED: %s\n", nb, note);
                peer_failed++;
            } else {
                w->era_src = E_RUN;
                expect_same(what, &er, &ref, 1, w->cpu_checked ? "the CPU device" : "mgpu's dev");
                if (note[0]) printf("n=%-5s era: %s\n", nb, note);
            }
        }
        printf("n=%-5s dev %8.3f ms  mont %8.3f  pinned %8.3f", nb, w->ms[M_DEV], w->ms[M_MONT], w->ms[M_PINNED]);
        if (opt.precompute)
            printf("  pre2 %8.3f (+%.1f)  pre4 %8.3f (+%.1f)", w->ms[M_PRE2], w->pre_ms[0], w->ms[M_PRE4], w->pre_ms[1]);
        if (w->era_src == E_RUN) printf("  era %8.3f (era / mgpu %.2f)", w->era, w->era / w->ms[M_DEV]);
        printf("  c=%d  %s\n", mgpu_msm_window_bits(n, 0), w->cpu_checked ? "= CPU device" : "all agree");
        fflush(stdout);
    }

    /* ---- a batch of 16 MSMs: one GPU against all */
    if (opt.batch_n) {
        mgpu_bn254_affine r1[BATCH], r2[BATCH];
        call c;
        size_t total = BATCH * opt.batch_n;
        bench_n_str(opt.batch_n, nb, sizeof nb);
        MK(mgpu_bn254_random_scalars(h_sc, total, seed + 100));
        MK(mgpu_memcpy(d_sc, h_sc, total * sizeof *d_sc));
        memset(&c, 0, sizeof c);
        c.n = opt.batch_n;
        c.count = BATCH;
        c.kind = K_BATCH;
        c.s = d_sc; c.p = d_pts;
        batch_one = measure("batch on one GPU", &c, r1);
        c.s = h_sc; c.p = h_pts;
        batch_one_pinned = measure("batch on one GPU, pinned", &c, r2);
        expect_same("batch on one GPU, pinned", r2, r1, BATCH, "the batch from device memory");
        printf("\nbatch of %d MSMs of %s on one GPU: %.2f ms from device memory, %.2f ms from pinned memory\n", BATCH, nb,
               batch_one, batch_one_pinned);
        if (opt.multi) {
            c.kind = K_MULTI;
            c.ndevs = opt.ndev;
            c.s = d_sc; c.p = d_pts;
            batch_multi = measure("batch over all GPUs", &c, r2);
            expect_same("batch over all GPUs", r2, r1, BATCH, "one GPU's batch");
            c.s = h_sc; c.p = h_pts;
            batch_multi_pinned = measure("batch over all GPUs, pinned", &c, r2);
            expect_same("batch over all GPUs, pinned", r2, r1, BATCH, "one GPU's batch");
            batch_ran = 1;
            printf("batch of %d MSMs of %s over %d GPUs: %.2f ms from GPU %d's memory (x%.2f), %.2f ms from pinned memory "
                   "(x%.2f)\n", BATCH, nb, opt.ndev, batch_multi, opt.device, batch_one / batch_multi, batch_multi_pinned,
                   batch_one_pinned / batch_multi_pinned);
        } else printf("batch over GPUs: skipped (%s)\n", opt.ndev < 2 ? "one GPU" : "--no-multi");
    } else printf("\nbatch: skipped (--batch-n 0)\n");

    /* ---- one MSM split over all GPUs */
    for (s = 0; s < opt.nsplit; s++) {
        split_row *w = &splits[s];
        mgpu_bn254_affine r1, r2;
        call c;
        char what[96];
        bench_n_str(w->n, nb, sizeof nb);
        if (w->why) { printf("split n=%s: skipped (%s)\n", nb, w->why); continue; }
        MK(mgpu_bn254_random_scalars(h_sc, w->n, seed + 200 + (uint64_t)s));
        MK(mgpu_memcpy(d_sc, h_sc, w->n * sizeof *d_sc));
        memset(&c, 0, sizeof c);
        c.n = w->n;
        c.count = 1;
        c.kind = K_MSM;
        c.s = d_sc; c.p = d_pts;
        snprintf(what, sizeof what, "n=%s one GPU", nb);
        w->one = measure(what, &c, &r1);
        c.kind = K_MULTI;
        c.ndevs = opt.ndev;
        snprintf(what, sizeof what, "n=%s split", nb);
        w->dev = measure(what, &c, &r2);
        expect_same(what, &r2, &r1, 1, "one GPU");
        c.s = h_sc; c.p = h_pts;
        snprintf(what, sizeof what, "n=%s split, pinned", nb);
        w->pinned = measure(what, &c, &r2);
        expect_same(what, &r2, &r1, 1, "one GPU");
        w->ran = 1;
        printf("split n=%s: one GPU %.2f ms; %d GPUs %.2f ms from GPU %d's memory (x%.2f), %.2f ms from pinned memory (x%.2f)\n",
               nb, w->one, opt.ndev, w->dev, opt.device, w->one / w->dev, w->pinned, w->one / w->pinned);
        fflush(stdout);
    }

    /* ---- the table */
    printf("\n%-6s %9s %9s %9s %9s %9s %9s %9s | %9s %10s %8s %8s  %s\n", "n", "dev ms", "mont ms", "pinned", "pre2 ms",
           "pre4 ms", "pre2 set", "pre4 set", opt.peer_cmd ? "era ms" : opt.peer_file ? "era ms~" : "era ms*", "era / mgpu",
           "ICICLE*", "sppark*", "targets");
    for (s = 0; s < opt.nsizes; s++) {
        size_row *w = &rows[s];
        int k, lg = log2_exact(w->n);
        char tg[192] = "", pe[3][16], ratio[16] = "-";
        size_t tl = 0;
        era_fill(w);
        snprintf(pe[0], 16, "%s", opt.peer_cmd ? "FAILED" : "-"); snprintf(pe[1], 16, "-"); snprintf(pe[2], 16, "-");
        for (k = 0; k < (int)(sizeof peers / sizeof peers[0]); k++)
            if (peers[k].log2n == lg) {
                snprintf(pe[1], 16, "%.1f", peers[k].icicle);
                snprintf(pe[2], 16, "%.1f", peers[k].sppark);
            }
        if (w->era_src != E_NONE) {
            int ok = w->ms[M_DEV] <= w->era;
            snprintf(pe[0], 16, "%.3f", w->era);
            snprintf(ratio, sizeof ratio, "%.2f", w->era / w->ms[M_DEV]);
            missed |= !ok;
            era_judged++;
            bench_append(tg, sizeof tg, &tl, "<= era %s", ok ? "PASS" : "FAIL");
        }
        if (lg == 12) {
            int ok = w->ms[M_DEV] <= 0.6;
            missed |= !ok;
            bench_append(tg, sizeof tg, &tl, "%s<= 0.6 ms %s", tl ? "; " : "", ok ? "PASS" : "FAIL");
        }
        if (lg == 22 || lg == 24) {
            double x = w->ms[M_PINNED] / w->ms[M_DEV];
            int ok = x <= 1.15;
            missed |= !ok;
            bench_append(tg, sizeof tg, &tl, "%spinned x%.2f <= 1.15 %s", tl ? "; " : "", x, ok ? "PASS" : "FAIL");
        }
        if (lg == 20 || lg == 24) {
            int ok = w->ms[M_DEV] <= (lg == 20 ? 3.3 : 31.0);
            stretch_missed |= !ok;
            stretch_checked = 1;
            bench_append(tg, sizeof tg, &tl, "%sstretch <= %s ms %s", tl ? "; " : "", lg == 20 ? "3.3" : "31", ok ? "met" : "missed");
        }
        printf("%-6s %9.3f %9.3f %9.3f", bench_n_str(w->n, nb, sizeof nb), w->ms[M_DEV], w->ms[M_MONT], w->ms[M_PINNED]);
        if (opt.precompute) printf(" %9.3f %9.3f %9.1f %9.1f", w->ms[M_PRE2], w->ms[M_PRE4], w->pre_ms[0], w->pre_ms[1]);
        else printf(" %9s %9s %9s %9s", "-", "-", "-", "-");
        printf(" | %9s %10s %8s %8s  %s\n", pe[0], ratio, pe[1], pe[2], tg);
    }
    if (opt.peer_cmd)
        printf("(era ms: era-bellman-cuda measured in this run by `%s`\n on the same inputs, timed as dev, its results "
               "checked against mgpu's;\n", opt.peer_cmd);
    else if (opt.peer_file)
        printf("(era ms~: from %s, an earlier run:\n not measured here, its results not checked;\n", opt.peer_file);
    else
        printf("(era ms*: quoted from issue 5 (one H200, an older run), not measured here; measure it with\n"
               " --peer-cmd .peers/era_bench;\n");
    printf(" era / mgpu = era time / mgpu dev time, > 1: mgpu faster; ICICLE*, sppark*: one H200, quoted\n"
           " from issue 5, not measured here; pre2/pre4 set = time of mgpu_msm_precompute_bases, not in the\n"
           " pre columns)\n");
    if (batch_ran) {
        double want = 0.95 * opt.ndev, x = batch_one / batch_multi;
        int ok = x >= want;
        missed |= !ok;
        printf("batch %d x %s: one GPU %.2f ms, %d GPUs %.2f ms: x%.2f (target >= %.2fx: %s); from pinned memory x%.2f\n", BATCH,
               bench_n_str(opt.batch_n, nb, sizeof nb), batch_one, opt.ndev, batch_multi, x, want, ok ? "PASS" : "FAIL",
               batch_one_pinned / batch_multi_pinned);
    }
    for (s = 0; s < opt.nsplit; s++) {
        split_row *w = &splits[s];
        int lg = log2_exact(w->n);
        double target = lg == 24 ? 13.0 : lg == 26 ? 50.0 : 0;
        if (!w->ran) continue;
        printf("split %s: one GPU %.2f ms, %d GPUs %.2f ms (x%.2f), from pinned memory %.2f ms", bench_n_str(w->n, nb, sizeof nb),
               w->one, opt.ndev, w->dev, w->one / w->dev, w->pinned);
        if (target > 0 && opt.ndev >= 4) {
            int ok = w->dev <= target;
            missed |= !ok;
            printf(" (target with 4 GPUs <= %.0f ms: %s)", target, ok ? "PASS" : "FAIL");
        } else if (target > 0) printf(" (target <= %.0f ms is for 4 GPUs: not checked)", target);
        printf("\n");
    }

    /* ---- the summary line (bench/run_all.sh collects it) */
    bench_append(line, sizeof line, &len, "bench_msm summary: results %s", bad ? "WRONG" : "verified");
    for (s = 0; s < opt.nsizes; s++) {
        bench_append(line, sizeof line, &len, "; %s %.2f ms", bench_n_str(rows[s].n, nb, sizeof nb), rows[s].ms[M_DEV]);
        if (rows[s].era_src != E_NONE)
            bench_append(line, sizeof line, &len, " (x%.2f era%s)", rows[s].era / rows[s].ms[M_DEV],
                         rows[s].era_src == E_RUN ? "" : rows[s].era_src == E_FILE ? " from file" : " quoted");
    }
    if (batch_ran) bench_append(line, sizeof line, &len, "; batch 16 on %d GPUs x%.2f", opt.ndev, batch_one / batch_multi);
    for (s = 0; s < opt.nsplit; s++)
        if (splits[s].ran)
            bench_append(line, sizeof line, &len, "; split %s %.2f ms on %d GPUs (x%.2f)", bench_n_str(splits[s].n, nb, sizeof nb),
                   splits[s].dev, opt.ndev, splits[s].one / splits[s].dev);
    bench_append(line, sizeof line, &len, "; era %s at %d of %d sizes", opt.peer_cmd ? "measured" : opt.peer_file ? "from file" : "quoted",
                 era_judged, opt.nsizes);
    bench_append(line, sizeof line, &len, "; stretch %s; targets %s", !stretch_checked ? "n/a" : stretch_missed ? "missed" : "met",
           bad ? "n/a (wrong results)" : peer_failed ? "n/a (peer command failed)" : opt.cpu ? "not judged (--cpu)"
           : missed ? "MISSED" : "met");
    printf("\n%s\n", line);

    mgpu_free(d_pts); mgpu_free(d_sc); mgpu_free(d_ptsm); mgpu_free(d_scm); mgpu_free(d_bases);
    mgpu_free_host(h_pts); mgpu_free_host(h_sc);
    mgpu_stream_destroy(st);
    mgpu_shutdown();
    return bad || peer_failed ? 1 : missed && !opt.cpu ? 3 : 0;
}
