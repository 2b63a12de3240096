/* tests/suites/msm.c - tests of mgpu's BN254 G1 multi-scalar multiplication (mgpu_msm*,
   mgpu_bn254_*). Built and run by `make test-unit` (build/suite_msm) and `make test-asan`;
   mgpu_init gets 4 CPU devices (mgpu_desc.cpu_devices), so the split over 1, 2 and 4 devices
   runs without a GPU; the CUDA cases run on every GPU when there is one and are skipped,
   with the reason, otherwise. MGPU_TEST_SEED=n repeats a run's random inputs; -v prints
   detail; section names (helpers bad vectors edges forms precompute batch memory multi
   random curves pair) run only those; TEST_MSM_QUICK=1 keeps the GPU cases small (for slow
   emulators: tests/fake_cuda). Run from the repository root or anywhere (the vectors are
   found next to the program: ../tests/vectors).

   What it checks, on the CPU device and on every GPU:
   - every BN254MSM file in tests/vectors/bn254msm (flags honoured) and every Ethereum
     bn256Add (an MSM of 2 points with scalars 1, 1) and bn256ScalarMul (1 point) vector;
   - helpers against the test's own 256-bit modular arithmetic: on-curve check, Jacobian to
     affine (standard and Montgomery), Montgomery conversion of points and scalars, the
     EIP-196 byte format, random points (on the curve, deterministic per seed) and scalars;
   - edge cases by algebraic identities (no result is hard-coded): n = 0, all scalars 0,
     scalar 1, r - 1, scalars >= r (r, r + 1, 5r, 2^256 - 1, Montgomery scalars + r),
     repeated points, P and -P, infinity inputs, every point the same, every scalar the
     same, results at infinity;
   - every combination of MGPU_MSM_SCALARS/POINTS/RESULT_MONTGOMERY; window_bits 1, 2, 7,
     13, 16, 24; precomputed bases (factors 2, 3, 4; the bases' documented layout) against
     plain MSMs; batches (separate and shared points, count 0); async calls on a user
     stream with inputs in pageable, pinned and device memory;
   - mgpu_msm_multi over 1, 2 and 4 CPU devices and over 1..all GPUs: one MSM split,
     fewer MSMs than devices, more MSMs than devices (spread), shared points;
   - mgpu_msm_pair_multi (sections multi and pair) over 1, 2 and 4 CPU devices and all GPUs,
     BN254 and BLS12-381: against two mgpu_msm_curve calls on the CPU device, split and
     spread, shared points, forms, precomputed bases, device inputs, its errors;
   - random MSMs of 1, 2, 3, 100, 1000, 4097 and 2^16 + 3 points: every GPU equals the CPU
     device (without a GPU: the split over 4 CPU devices equals one CPU device); and, at
     the largest of these a GPU runs, skewed digits: every scalar the same (a bucket of
     each window holds every point, more than one tile of the sort) and scalars below 2^16;
   - bad inputs: each its own status, *result untouched (a canary), a message. */
#define MGPU_IMPLEMENTATION
#define MGPU__MSM_BIN_ENTRIES 0u   /* the sort: as many bins as c allows (up to 1024 a window) */
#define MGPU__MSM_CONVERT_ASIDE 1u /* device points in standard form: converted on a second stream */
#define MGPU__MSM_PIECE_MIN 64u    /* host inputs: pieces (growing) from a few hundred points */
#include "mgpu.h"
#include "tests/suites/suite.h"
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int verbose, quick;
static char vec_dir[4096];               /* tests/vectors */

static void detail(const char *fmt, ...)
{
    va_list ap;
    if (!verbose) return;
    printf("     ");
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    printf("\n");
}

/* A check that collects the failures' descriptions (the first few, "; " between them). */
typedef struct chk { int good; char why[2048]; } chk;
static void chk_init(chk *c) { c->good = 1; c->why[0] = 0; }
static void chk_fail(chk *c, const char *fmt, ...)
{
    va_list ap;
    size_t len = strlen(c->why);
    if (len + 8 < sizeof c->why) {
        if (len) { strcpy(c->why + len, "; "); len += 2; }
        va_start(ap, fmt);
        vsnprintf(c->why + len, sizeof c->why - len, fmt, ap);
        va_end(ap);
    }
    c->good = 0;
}
#define SEP(c) ((c).good ? "" : ": "), (c).why

static void *xmalloc(size_t bytes)
{
    void *p = malloc(bytes ? bytes : 1);
    if (!p) { printf("FAIL out of memory (%zu bytes)\n", bytes); exit(1); }
    return p;
}

/* ---- 256-bit integers (4 limbs, least significant first) and arithmetic modulo p or r,
   written independently of mgpu: shift-and-add multiplication, slow but obviously right. */
typedef uint64_t u256[4];
static const u256 P_MOD = { 0x3c208c16d87cfd47ull, 0x97816a916871ca8dull, 0xb85045b68181585dull, 0x30644e72e131a029ull };
static const u256 R_MOD = { 0x43e1f593f0000001ull, 0x2833e84879b97091ull, 0xb85045b68181585dull, 0x30644e72e131a029ull };
static u256 MONT_P, MONT_R;              /* 2^256 mod p, 2^256 mod r */

static void set_u64(u256 a, uint64_t v) { a[0] = v; a[1] = a[2] = a[3] = 0; }
static int is_zero(const u256 a) { return !(a[0] | a[1] | a[2] | a[3]); }
static int cmp256(const u256 a, const u256 b)
{
    int i;
    for (i = 3; i >= 0; i--)
        if (a[i] != b[i]) return a[i] < b[i] ? -1 : 1;
    return 0;
}
static uint64_t add256(u256 out, const u256 a, const u256 b)
{
    uint64_t c = 0;
    int i;
    for (i = 0; i < 4; i++) {
        uint64_t s = a[i] + c, c1 = s < c;
        out[i] = s + b[i];
        c = c1 + (out[i] < s);
    }
    return c;
}
static uint64_t sub256(u256 out, const u256 a, const u256 b)
{
    uint64_t bw = 0;
    int i;
    for (i = 0; i < 4; i++) {
        uint64_t d = a[i] - b[i], b1 = a[i] < b[i];
        out[i] = d - bw;
        bw = b1 + (d < bw);
    }
    return bw;
}
static void reduce(u256 out, const u256 a, const u256 m)
{
    u256 t;
    memcpy(t, a, sizeof t);
    while (cmp256(t, m) >= 0) sub256(t, t, m);
    memcpy(out, t, sizeof t);
}
static void addmod(u256 out, const u256 a, const u256 b, const u256 m)   /* a, b < m */
{
    u256 t;
    add256(t, a, b);                     /* m < 2^254: no carry out */
    if (cmp256(t, m) >= 0) sub256(t, t, m);
    memcpy(out, t, sizeof t);
}
static void submod(u256 out, const u256 a, const u256 b, const u256 m)   /* a, b < m */
{
    u256 t;
    if (sub256(t, a, b)) add256(t, t, m);
    memcpy(out, t, sizeof t);
}
static void mulmod(u256 out, const u256 a, const u256 b, const u256 m)
{
    u256 acc = { 0, 0, 0, 0 }, x;
    int i;
    reduce(x, a, m);
    for (i = 255; i >= 0; i--) {
        addmod(acc, acc, acc, m);
        if (b[i / 64] >> (i % 64) & 1) addmod(acc, acc, x, m);
    }
    memcpy(out, acc, sizeof acc);
}
static void to_mont(u256 out, const u256 a, const u256 m) { mulmod(out, a, m == P_MOD ? MONT_P : MONT_R, m); }
static void init_consts(void)
{
    u256 ones = { ~0ull, ~0ull, ~0ull, ~0ull }, one = { 1, 0, 0, 0 };
    reduce(MONT_P, ones, P_MOD);
    addmod(MONT_P, MONT_P, one, P_MOD);
    reduce(MONT_R, ones, R_MOD);
    addmod(MONT_R, MONT_R, one, R_MOD);
}
static int on_curve_ref(const mgpu_bn254_affine *a)   /* standard form */
{
    u256 y2, x3, three = { 3, 0, 0, 0 };
    if (is_zero(a->x) && is_zero(a->y)) return 1;
    if (cmp256(a->x, P_MOD) >= 0 || cmp256(a->y, P_MOD) >= 0) return 0;
    mulmod(y2, a->y, a->y, P_MOD);
    mulmod(x3, a->x, a->x, P_MOD);
    mulmod(x3, x3, a->x, P_MOD);
    addmod(x3, x3, three, P_MOD);
    return cmp256(x3, y2) == 0;
}
static mgpu_bn254_affine neg_point(const mgpu_bn254_affine *a)   /* standard form */
{
    mgpu_bn254_affine n = *a;
    if (!is_zero(a->y)) sub256(n.y, P_MOD, a->y);
    return n;
}
static mgpu_bn254_scalar sc_u64(uint64_t v) { mgpu_bn254_scalar s; set_u64(s.limb, v); return s; }
static mgpu_bn254_scalar sc_mod(const mgpu_bn254_scalar *a) { mgpu_bn254_scalar s; reduce(s.limb, a->limb, R_MOD); return s; }
static mgpu_bn254_scalar sc_add(const mgpu_bn254_scalar *a, const mgpu_bn254_scalar *b)
{
    mgpu_bn254_scalar x = sc_mod(a), y = sc_mod(b), s;
    addmod(s.limb, x.limb, y.limb, R_MOD);
    return s;
}
static mgpu_bn254_scalar sc_neg(const mgpu_bn254_scalar *a)
{
    mgpu_bn254_scalar x = sc_mod(a), z, s;
    set_u64(z.limb, 0);
    submod(s.limb, z.limb, x.limb, R_MOD);
    return s;
}
static mgpu_bn254_scalar sc_rand_full(void) { mgpu_bn254_scalar s; int i; for (i = 0; i < 4; i++) s.limb[i] = rnd(); return s; }
static mgpu_bn254_scalar sc_rand_mod(void) { mgpu_bn254_scalar s = sc_rand_full(); s.limb[3] >>= 2; return sc_mod(&s); }

static int aff_eq(const mgpu_bn254_affine *a, const mgpu_bn254_affine *b)
{
    return !memcmp(a->x, b->x, sizeof a->x) && !memcmp(a->y, b->y, sizeof a->y);
}
static int aff_inf(const mgpu_bn254_affine *a) { return is_zero(a->x) && is_zero(a->y); }
static const char *hex256(const u256 v, char *buf)   /* buf: 67 bytes */
{
    int i;
    buf[0] = '0';
    buf[1] = 'x';
    for (i = 0; i < 4; i++) sprintf(buf + 2 + 16 * i, "%016llx", (unsigned long long)v[3 - i]);
    return buf;
}
static const char *aff_str(const mgpu_bn254_affine *a, char *buf)   /* buf: 160 bytes */
{
    char hx[67], hy[67];
    snprintf(buf, 160, "(%s, %s)", hex256(a->x, hx), hex256(a->y, hy));
    return buf;
}

/* Random points from mgpu_bn254_random_points, a few replaced by infinity or repeated. */
static mgpu_bn254_affine *make_points(size_t n, uint64_t seed)
{
    mgpu_bn254_affine *p = (mgpu_bn254_affine *)xmalloc(n * sizeof *p);
    if (n && mgpu_bn254_random_points(p, n, seed) != MGPU_SUCCESS) {
        printf("FAIL mgpu_bn254_random_points(%zu): %s\n", n, mgpu_last_error());
        exit(1);
    }
    return p;
}
static mgpu_bn254_scalar *make_scalars(size_t n, int full_range)
{
    mgpu_bn254_scalar *s = (mgpu_bn254_scalar *)xmalloc(n * sizeof *s);
    size_t i;
    for (i = 0; i < n; i++) s[i] = full_range ? sc_rand_full() : sc_rand_mod();
    return s;
}

/* ---- devices under test */
typedef struct tdev { mgpu_device dev; int gpu; char label[32]; } tdev;
static tdev tdevs[MGPU_MAX_DEVICES + 1];
static int ntdev, ngpu;
static mgpu_device cpus[4];
static mgpu_stream cpu_stream;           /* CPU device 0's default stream */

/* One MSM on dev's default stream from host memory; the affine result in the form flags
   gives (Montgomery with MGPU_MSM_RESULT_MONTGOMERY). */
static mgpu_result msm_on(mgpu_device dev, const mgpu_bn254_scalar *s, const mgpu_bn254_affine *p, size_t n,
                          unsigned flags, int c, int f, mgpu_bn254_affine *out)
{
    mgpu_msm_config cfg;
    mgpu_bn254_jacobian j;
    mgpu_stream st = NULL;
    mgpu_result r;
    memset(&cfg, 0, sizeof cfg);
    cfg.flags = flags;
    cfg.window_bits = c;
    cfg.precompute_factor = f;
    r = mgpu_default_stream(dev, &st);
    if (r == MGPU_SUCCESS) r = mgpu_msm(s, p, n, &cfg, &j, st);
    if (r == MGPU_SUCCESS) r = mgpu_bn254_to_affine(&j, out, (flags & MGPU_MSM_RESULT_MONTGOMERY) != 0);
    return r;
}
/* msm_on, recording a failure or a result other than want in c. */
static void expect_msm(chk *c, const char *what, mgpu_device dev, const mgpu_bn254_scalar *s, const mgpu_bn254_affine *p,
                       size_t n, unsigned flags, const mgpu_bn254_affine *want)
{
    mgpu_bn254_affine got;
    char b1[160], b2[160];
    mgpu_result r = msm_on(dev, s, p, n, flags, 0, 0, &got);
    if (r != MGPU_SUCCESS) chk_fail(c, "%s: %s: %s", what, mgpu_result_string(r), mgpu_last_error());
    else if (!aff_eq(&got, want)) chk_fail(c, "%s: got %s, want %s", what, aff_str(&got, b1), aff_str(want, b2));
}
/* The reference: the same MSM on CPU device 0, standard forms. */
static mgpu_bn254_affine ref_msm(const mgpu_bn254_scalar *s, const mgpu_bn254_affine *p, size_t n)
{
    mgpu_bn254_affine a;
    memset(&a, 0x5A, sizeof a);
    if (msm_on(cpus[0], s, p, n, 0, 0, 0, &a) != MGPU_SUCCESS) {
        printf("FAIL reference MSM of %zu points on the CPU device: %s\n", n, mgpu_last_error());
        nfail++;
    }
    return a;
}

/* ---- files */
static int read_file(const char *path, unsigned char **bytes, size_t *n)
{
    FILE *fp = fopen(path, "rb");
    long size;
    *bytes = NULL;
    if (!fp) return -1;
    if (fseek(fp, 0, SEEK_END) != 0 || (size = ftell(fp)) < 0 || fseek(fp, 0, SEEK_SET) != 0) { fclose(fp); return -1; }
    *bytes = (unsigned char *)xmalloc((size_t)size + 1);
    if (fread(*bytes, 1, (size_t)size, fp) != (size_t)size) { fclose(fp); free(*bytes); *bytes = NULL; return -1; }
    (*bytes)[size] = 0;
    fclose(fp);
    *n = (size_t)size;
    return 0;
}
static uint64_t le64(const unsigned char *b)
{
    uint64_t v = 0;
    int i;
    for (i = 7; i >= 0; i--) v = v << 8 | b[i];
    return v;
}
static void limbs_le(const unsigned char *b, uint64_t out[4]) { int i; for (i = 0; i < 4; i++) out[i] = le64(b + 8 * i); }

static int find_vectors(const char *argv0)
{
    char buf[4096];
    const char *cands[3];
    FILE *fp;
    int i;
    snprintf(buf, sizeof buf, "%s", argv0);
    if (strrchr(buf, '/')) *strrchr(buf, '/') = '\0'; else snprintf(buf, sizeof buf, ".");
    strncat(buf, "/../tests/vectors", sizeof buf - strlen(buf) - 1);
    cands[0] = buf; cands[1] = "tests/vectors"; cands[2] = "../tests/vectors";
    for (i = 0; i < 3; i++) {
        char f[4200];
        snprintf(f, sizeof f, "%s/bn254msm/FORMAT.md", cands[i]);
        if ((fp = fopen(f, "rb")) != NULL) { fclose(fp); snprintf(vec_dir, sizeof vec_dir, "%s", cands[i]); return 0; }
    }
    return -1;
}

/* A BN254MSM v1 file (tests/vectors/bn254msm/FORMAT.md). */
typedef struct vfile {
    char name[64];
    unsigned flags;
    size_t n;
    mgpu_bn254_scalar *s;
    mgpu_bn254_affine *p, want;
} vfile;
static vfile vfiles[16];
static int nvfiles;

static void load_vector_files(void)
{
    static const char *const names[] = { "msm_n1.bin", "msm_n5.bin", "msm_n64.bin", "msm_n1000.bin", "msm_n1000_mont.bin" };
    size_t k, i;
    chk c;
    chk_init(&c);
    for (k = 0; k < sizeof names / sizeof names[0]; k++) {
        char path[4200];
        unsigned char *b;
        size_t len;
        vfile *v = &vfiles[nvfiles];
        snprintf(path, sizeof path, "%s/bn254msm/%s", vec_dir, names[k]);
        if (read_file(path, &b, &len) != 0) { chk_fail(&c, "cannot read %s", path); continue; }
        if (len < 88 || memcmp(b, "BN254MSM", 8) || le64(b + 8) % (1ull << 32) != 1) { chk_fail(&c, "%s: bad header", path); free(b); continue; }
        snprintf(v->name, sizeof v->name, "%s", names[k]);
        v->flags = (unsigned)(le64(b + 8) >> 32);
        v->n = (size_t)le64(b + 16);
        if (v->flags & ~3u || len != 96 * v->n + 88) { chk_fail(&c, "%s: flags %u, %zu bytes for N = %zu", path, v->flags, len, v->n); free(b); continue; }
        v->s = (mgpu_bn254_scalar *)xmalloc(v->n * sizeof *v->s);
        v->p = (mgpu_bn254_affine *)xmalloc(v->n * sizeof *v->p);
        for (i = 0; i < v->n; i++) {
            limbs_le(b + 24 + 32 * i, v->s[i].limb);
            limbs_le(b + 24 + 32 * v->n + 64 * i, v->p[i].x);
            limbs_le(b + 24 + 32 * v->n + 64 * i + 32, v->p[i].y);
        }
        limbs_le(b + 24 + 96 * v->n, v->want.x);
        limbs_le(b + 24 + 96 * v->n + 32, v->want.y);
        free(b);
        nvfiles++;
    }
    report(c.good && nvfiles == 5, "read %d BN254MSM files from %s/bn254msm (N = 1, 5, 64, 1000, 1000 Montgomery)%s%s",
           nvfiles, vec_dir, SEP(c));
}

/* Ethereum precompile vectors: JSON lists of {"Input": hex, "Expected": hex, "Name": ...}. */
typedef struct evec { char name[64]; unsigned char in[128]; size_t inlen; unsigned char out[64]; } evec;
static evec eadd[64], emul[64];
static int neadd, nemul;

static int hexval(int ch) { return ch >= '0' && ch <= '9' ? ch - '0' : ch >= 'a' && ch <= 'f' ? ch - 'a' + 10 : ch >= 'A' && ch <= 'F' ? ch - 'A' + 10 : -1; }
/* The string value of "key" at or after *pos; advances *pos past it. */
static int json_string(const char *text, const char **pos, const char *key, const char **val, size_t *len)
{
    char pat[64];
    const char *k, *q;
    snprintf(pat, sizeof pat, "\"%s\"", key);
    if (!(k = strstr(*pos, pat))) return -1;
    q = k + strlen(pat);
    while (*q == ' ' || *q == ':' || *q == '\n' || *q == '\t' || *q == '\r') q++;
    if (*q != '"') return -1;
    *val = ++q;
    while (*q && *q != '"') q++;
    if (!*q) return -1;
    *len = (size_t)(q - *val);
    *pos = q + 1;
    (void)text;
    return 0;
}
static int load_json(const char *file, evec *out, int cap, size_t inbytes)
{
    char path[4200];
    unsigned char *text;
    size_t len;
    const char *pos;
    int count = 0;
    snprintf(path, sizeof path, "%s/ethereum/%s", vec_dir, file);
    if (read_file(path, &text, &len) != 0) return -1;
    pos = (const char *)text;
    for (;;) {
        const char *v, *e, *nm, *save;
        size_t vl, el, nl, i;
        evec *x = &out[count];
        if (json_string((const char *)text, &pos, "Input", &v, &vl) != 0) break;
        save = pos;
        if (json_string((const char *)text, &pos, "Expected", &e, &el) != 0 || el != 128 || vl % 2) { count = -1; break; }
        pos = save;
        if (json_string((const char *)text, &pos, "Name", &nm, &nl) != 0) { count = -1; break; }
        if (count == cap) { count = -1; break; }
        memset(x, 0, sizeof *x);
        snprintf(x->name, sizeof x->name, "%.*s", (int)(nl < 63 ? nl : 63), nm);
        /* the precompile reads its input zero-padded or cut to inbytes */
        x->inlen = vl / 2;
        for (i = 0; i < vl / 2 && i < inbytes; i++) {
            int hi = hexval(v[2 * i]), lo = hexval(v[2 * i + 1]);
            if (hi < 0 || lo < 0) { count = -1; break; }
            x->in[i] = (unsigned char)(hi << 4 | lo);
        }
        if (count < 0) break;
        for (i = 0; i < 64; i++) {
            int hi = hexval(e[2 * i]), lo = hexval(e[2 * i + 1]);
            if (hi < 0 || lo < 0) { count = -1; break; }
            x->out[i] = (unsigned char)(hi << 4 | lo);
        }
        if (count < 0) break;
        count++;
    }
    free(text);
    return count;
}

/* ================================================================ helpers */
static void test_helpers(void)
{
    mgpu_bn254_affine g, a, pts[64], pts2[64];
    mgpu_bn254_jacobian j;
    size_t i;
    chk c;
    char b1[160], b2[160];
    memset(&g, 0, sizeof g);
    g.x[0] = 1;
    g.y[0] = 2;

    /* on-curve */
    chk_init(&c);
    if (!mgpu_bn254_on_curve(&g, 0)) chk_fail(&c, "G = (1, 2) rejected");
    a = g; a.y[0] = 3;
    if (mgpu_bn254_on_curve(&a, 0)) chk_fail(&c, "(1, 3) accepted");
    memset(&a, 0, sizeof a);
    if (!mgpu_bn254_on_curve(&a, 0)) chk_fail(&c, "infinity (0, 0) rejected");
    a = g; add256(a.x, g.x, P_MOD);
    if (mgpu_bn254_on_curve(&a, 0)) chk_fail(&c, "(1 + p, 2) accepted (coordinate >= p)");
    a = g; add256(a.y, g.y, P_MOD);
    if (mgpu_bn254_on_curve(&a, 0)) chk_fail(&c, "(1, 2 + p) accepted (coordinate >= p)");
    a = neg_point(&g);
    if (!mgpu_bn254_on_curve(&a, 0)) chk_fail(&c, "-G rejected");
    to_mont(a.x, g.x, P_MOD);
    to_mont(a.y, g.y, P_MOD);
    if (!mgpu_bn254_on_curve(&a, 1)) chk_fail(&c, "G in Montgomery form rejected with montgomery = 1");
    memset(&a, 0, sizeof a);
    if (!mgpu_bn254_on_curve(&a, 1)) chk_fail(&c, "infinity rejected with montgomery = 1");
    a.x[0] = 5;
    if (mgpu_bn254_on_curve(&a, 0)) chk_fail(&c, "(5, 0) accepted");
    report(c.good, "mgpu_bn254_on_curve: G, -G, infinity (both forms) accepted; (1, 3), (5, 0), coordinates + p rejected%s%s", SEP(c));

    /* random points and scalars */
    chk_init(&c);
    if (mgpu_bn254_random_points(pts, 64, 42) != MGPU_SUCCESS) chk_fail(&c, "random_points: %s", mgpu_last_error());
    if (mgpu_bn254_random_points(pts2, 64, 42) != MGPU_SUCCESS) chk_fail(&c, "random_points: %s", mgpu_last_error());
    if (memcmp(pts, pts2, sizeof pts)) chk_fail(&c, "seed 42 gave different points twice");
    for (i = 0; i < 64; i++) {
        if (!on_curve_ref(&pts[i]) || aff_inf(&pts[i])) chk_fail(&c, "point %zu %s is off the curve or infinity", i, aff_str(&pts[i], b1));
        if (!mgpu_bn254_on_curve(&pts[i], 0)) chk_fail(&c, "mgpu_bn254_on_curve rejects random point %zu", i);
    }
    for (i = 1; i < 64; i++)
        if (aff_eq(&pts[i], &pts[0])) chk_fail(&c, "random points 0 and %zu are equal", i);
    mgpu_bn254_random_points(pts2, 64, 43);
    if (!memcmp(pts, pts2, sizeof pts)) chk_fail(&c, "seeds 42 and 43 gave the same points");
    if (mgpu_bn254_random_points(pts2, 10, 42) != MGPU_SUCCESS || memcmp(pts, pts2, 10 * sizeof *pts))
        detail("random_points(10, seed 42) is not a prefix of random_points(64, seed 42) (not promised)");
    report(c.good, "mgpu_bn254_random_points: on the curve (checked here), not infinity, distinct, same for one seed, "
           "different for another%s%s", SEP(c));
    {
        mgpu_bn254_scalar s1[256], s2[256];
        int high = 0;
        chk_init(&c);
        if (mgpu_bn254_random_scalars(s1, 256, 7) != MGPU_SUCCESS || mgpu_bn254_random_scalars(s2, 256, 7) != MGPU_SUCCESS)
            chk_fail(&c, "random_scalars: %s", mgpu_last_error());
        if (memcmp(s1, s2, sizeof s1)) chk_fail(&c, "seed 7 gave different scalars twice");
        for (i = 0; i < 256; i++) {
            if (cmp256(s1[i].limb, R_MOD) >= 0) chk_fail(&c, "scalar %zu >= r", i);
            high += s1[i].limb[3] >> 61 != 0;
        }
        if (high < 64) chk_fail(&c, "only %d of 256 scalars have bit 253 or above set: not uniform below r", high);
        mgpu_bn254_random_scalars(s2, 256, 8);
        if (!memcmp(s1, s2, sizeof s1)) chk_fail(&c, "seeds 7 and 8 gave the same scalars");
        report(c.good, "mgpu_bn254_random_scalars: below r, spread over the range, same for one seed, different for another%s%s", SEP(c));
    }

    /* to_affine: (x z^2, y z^3, z) for random z, both forms; z = 0 */
    chk_init(&c);
    for (i = 0; i < 16; i++) {
        mgpu_bn254_affine want = pts[i], got, wm;
        u256 z, z2, z3;
        mgpu_bn254_scalar zz = sc_rand_full();
        reduce(z, zz.limb, P_MOD);
        if (i == 0) set_u64(z, 1);
        if (i == 1) set_u64(z, 2);
        if (is_zero(z)) set_u64(z, 3);
        mulmod(z2, z, z, P_MOD);
        mulmod(z3, z2, z, P_MOD);
        mulmod(j.x, want.x, z2, P_MOD);
        mulmod(j.y, want.y, z3, P_MOD);
        memcpy(j.z, z, sizeof z);
        memset(&got, 0xA5, sizeof got);
        if (mgpu_bn254_to_affine(&j, &got, 0) != MGPU_SUCCESS || !aff_eq(&got, &want))
            chk_fail(&c, "standard, point %zu: got %s want %s", i, aff_str(&got, b1), aff_str(&want, b2));
        to_mont(j.x, j.x, P_MOD); to_mont(j.y, j.y, P_MOD); to_mont(j.z, j.z, P_MOD);
        to_mont(wm.x, want.x, P_MOD); to_mont(wm.y, want.y, P_MOD);
        if (mgpu_bn254_to_affine(&j, &got, 1) != MGPU_SUCCESS || !aff_eq(&got, &wm))
            chk_fail(&c, "Montgomery, point %zu: got %s want %s", i, aff_str(&got, b1), aff_str(&wm, b2));
    }
    memset(&j, 0, sizeof j);
    j.x[0] = 7; j.y[0] = 9;
    memset(&a, 0xA5, sizeof a);
    if (mgpu_bn254_to_affine(&j, &a, 0) != MGPU_SUCCESS || !aff_inf(&a)) chk_fail(&c, "Z = 0 did not give (0, 0)");
    memset(&a, 0xA5, sizeof a);
    if (mgpu_bn254_to_affine(&j, &a, 1) != MGPU_SUCCESS || !aff_inf(&a)) chk_fail(&c, "Z = 0, Montgomery, did not give (0, 0)");
    report(c.good, "mgpu_bn254_to_affine: (x z^2, y z^3, z) -> (x, y) for 16 random z, standard and Montgomery; Z = 0 -> (0, 0)%s%s", SEP(c));

    /* EIP-196 bytes */
    chk_init(&c);
    {
        uint8_t bytes[64], zero[64];
        mgpu_bn254_scalar s;
        memset(zero, 0, 64);
        mgpu_bn254_point_to_bytes(&g, bytes);
        for (i = 0; i < 64; i++)
            if (bytes[i] != (i == 31 ? 1 : i == 63 ? 2 : 0)) { chk_fail(&c, "G encodes wrongly at byte %zu", i); break; }
        for (i = 0; i < 64; i++) {
            mgpu_bn254_point_to_bytes(&pts[i], bytes);
            memset(&a, 0xA5, sizeof a);
            if (mgpu_bn254_point_from_bytes(bytes, &a) != MGPU_SUCCESS || !aff_eq(&a, &pts[i])) chk_fail(&c, "round trip of point %zu", i);
            if (bytes[0] != (uint8_t)(pts[i].x[3] >> 56) || bytes[32] != (uint8_t)(pts[i].y[3] >> 56) ||
                bytes[31] != (uint8_t)pts[i].x[0] || bytes[63] != (uint8_t)pts[i].y[0])
                chk_fail(&c, "point %zu is not big-endian x then y", i);
        }
        memset(&a, 0xA5, sizeof a);
        if (mgpu_bn254_point_from_bytes(zero, &a) != MGPU_SUCCESS || !aff_inf(&a)) chk_fail(&c, "64 zero bytes are not infinity");
        mgpu_bn254_point_to_bytes(&a, bytes);
        if (memcmp(bytes, zero, 64)) chk_fail(&c, "infinity does not encode as 64 zero bytes");
        memset(bytes, 0, 64);
        bytes[31] = 1; bytes[63] = 3;                                   /* (1, 3): off the curve */
        memset(&a, 0xA5, sizeof a);
        if (mgpu_bn254_point_from_bytes(bytes, &a) != MGPU_ERROR_NOT_ON_CURVE) chk_fail(&c, "(1, 3) not NOT_ON_CURVE");
        for (i = 0; i < sizeof a && ((unsigned char *)&a)[i] == 0xA5; i++) {}
        if (i != sizeof a) chk_fail(&c, "rejected (1, 3) wrote its output");
        a = g; add256(a.x, g.x, P_MOD);                                 /* (1 + p, 2) */
        for (i = 0; i < 32; i++) { bytes[i] = (uint8_t)(a.x[3 - i / 8] >> (56 - 8 * (i % 8))); bytes[32 + i] = (uint8_t)(a.y[3 - i / 8] >> (56 - 8 * (i % 8))); }
        if (mgpu_bn254_point_from_bytes(bytes, &a) != MGPU_ERROR_NOT_IN_FIELD) chk_fail(&c, "(1 + p, 2) not NOT_IN_FIELD");
        for (i = 0; i < 32; i++) bytes[i] = (uint8_t)(31 - i);        /* big-endian 0x00 01 .. 1f */
        mgpu_bn254_scalar_from_bytes(bytes, &s);                       /* 0x1f1e..0100 */
        if (s.limb[3] != 0x1f1e1d1c1b1a1918ull || s.limb[2] != 0x1716151413121110ull || s.limb[1] != 0x0f0e0d0c0b0a0908ull ||
            s.limb[0] != 0x0706050403020100ull)
            chk_fail(&c, "scalar_from_bytes: limbs %016llx..%016llx", (unsigned long long)s.limb[3], (unsigned long long)s.limb[0]);
        memset(bytes, 0xff, 32);
        mgpu_bn254_scalar_from_bytes(bytes, &s);
        if (s.limb[0] != ~0ull || s.limb[3] != ~0ull) chk_fail(&c, "scalar_from_bytes does not keep 2^256 - 1");
    }
    report(c.good, "EIP-196 bytes: G, 64 random points and infinity round trip, big-endian x then y; (1, 3) and x >= p "
           "rejected (output untouched); scalar_from_bytes big-endian, any value%s%s", SEP(c));

    /* Montgomery conversion against the reference, and back */
    chk_init(&c);
    {
        mgpu_bn254_affine m[64];
        mgpu_bn254_scalar s[64], sm[64];
        mgpu_result r;
        memcpy(m, pts, sizeof m);
        memset(&m[5], 0, sizeof m[5]);                                 /* infinity stays (0, 0) */
        r = mgpu_bn254_convert_points(m, 64, 1, cpu_stream);
        if (r != MGPU_SUCCESS) chk_fail(&c, "convert_points: %s", mgpu_last_error());
        for (i = 0; i < 64 && c.good; i++) {
            mgpu_bn254_affine w;
            if (i == 5) memset(&w, 0, sizeof w);
            else { to_mont(w.x, pts[i].x, P_MOD); to_mont(w.y, pts[i].y, P_MOD); }
            if (!aff_eq(&m[i], &w)) chk_fail(&c, "point %zu: Montgomery form %s, want %s", i, aff_str(&m[i], b1), aff_str(&w, b2));
            if (!mgpu_bn254_on_curve(&m[i], 1)) chk_fail(&c, "point %zu in Montgomery form: on_curve(montgomery = 1) says no", i);
        }
        mgpu_bn254_convert_points(m, 64, 0, cpu_stream);
        memset(&pts2[0], 0, sizeof pts2[0]);
        for (i = 0; i < 64 && c.good; i++)
            if (!aff_eq(&m[i], i == 5 ? &pts2[0] : &pts[i])) chk_fail(&c, "point %zu: back from Montgomery form differs", i);
        for (i = 0; i < 64; i++) s[i] = i < 60 ? sc_rand_mod() : sc_u64(i - 60);
        memcpy(sm, s, sizeof s);
        if (mgpu_bn254_convert_scalars(sm, 64, 1, cpu_stream) != MGPU_SUCCESS) chk_fail(&c, "convert_scalars: %s", mgpu_last_error());
        for (i = 0; i < 64 && c.good; i++) {
            u256 w;
            to_mont(w, s[i].limb, R_MOD);
            if (cmp256(w, sm[i].limb)) chk_fail(&c, "scalar %zu: Montgomery form %s, want %s", i, hex256(sm[i].limb, b1), hex256(w, b2));
        }
        mgpu_bn254_convert_scalars(sm, 64, 0, cpu_stream);
        if (memcmp(sm, s, sizeof s)) chk_fail(&c, "scalars back from Montgomery form differ");
    }
    report(c.good, "mgpu_bn254_convert_points/scalars on the CPU device: x * 2^256 mod p, k * 2^256 mod r (computed here), "
           "infinity stays (0, 0), and back%s%s", SEP(c));

    /* window sizes */
    chk_init(&c);
    {
        static const size_t ns[] = { 0, 1, 2, 100, 4097, (size_t)1 << 20, (size_t)1 << 26, ((size_t)1 << 31) - 1 };
        static const int fs[] = { 0, 1, 2, 4, 64 };
        size_t k, l;
        for (k = 0; k < sizeof ns / sizeof ns[0]; k++)
            for (l = 0; l < sizeof fs / sizeof fs[0]; l++) {
                int w = mgpu_msm_window_bits(ns[k], fs[l]);
                if (w < 1 || w > MGPU_MSM_MAX_WINDOW_BITS) chk_fail(&c, "n = %zu, factor %d: %d", ns[k], fs[l], w);
                if (k == 5 && l == 0) detail("mgpu_msm_window_bits(2^20, 0) = %d", w);
            }
    }
    report(c.good, "mgpu_msm_window_bits: 1..%d for n from 0 to 2^31 - 1 and factors 0..64%s%s", MGPU_MSM_MAX_WINDOW_BITS, SEP(c));

    chk_init(&c);
    {
        static const int fs[] = { 0, 1, 2, 3, 4, 64 };
        size_t n, l;
        int e;
        for (e = 0; e < 31; e++)
            for (n = (size_t)1 << e; n < ((size_t)2 << e) && n < 0x7fffffff; n += ((size_t)1 << e) / 5 + 1)
                for (l = 0; l < sizeof fs / sizeof fs[0]; l++) {
                    const int f = fs[l], w0 = mgpu_msm_window_bits(n, f), w1 = mgpu_msm_curve_window_bits(MGPU_MSM_BN254_G1, n, f);
                    const int w2 = mgpu_msm_curve_window_bits(MGPU_MSM_BN254_G2, n, f);
                    const int b1 = mgpu_msm_curve_window_bits(MGPU_MSM_BLS12_381_G1, n, f);
                    const int b2 = mgpu_msm_curve_window_bits(MGPU_MSM_BLS12_381_G2, n, f);
                    const int top = 256 - (256 + b1 - 1) / b1 * b1 + b1;      /* bits of the top window */
                    if (w1 != w0 || w2 != w0) chk_fail(&c, "BN254, n = %zu, factor %d: %d and %d, not %d", n, f, w1, w2, w0);
                    if (b1 != b2) chk_fail(&c, "BLS12-381, n = %zu, factor %d: G1 %d, G2 %d", n, f, b1, b2);
                    if (b1 < 1 || b1 > MGPU_MSM_MAX_WINDOW_BITS) chk_fail(&c, "BLS12-381, n = %zu, factor %d: %d", n, f, b1);
                    if (n >= ((size_t)1 << 16) && top < 5)
                        chk_fail(&c, "BLS12-381, n = %zu, factor %d: c = %d leaves a top window of %d bits", n, f, b1, top);
                }
        if (mgpu_msm_curve_window_bits(MGPU_MSM_BLS12_381_G1, (size_t)1 << 20, 1) != 16)
            chk_fail(&c, "BLS12-381, 2^20 points: c = %d, not 16", mgpu_msm_curve_window_bits(MGPU_MSM_BLS12_381_G1, (size_t)1 << 20, 1));
        if (mgpu_msm_curve_window_bits(4, 1000, 1) || mgpu_msm_curve_window_bits(-1, 1000, 1))
            chk_fail(&c, "an unknown group: not 0");
        detail("mgpu_msm_curve_window_bits(BLS12-381 G1, 2^20, 0) = %d", mgpu_msm_curve_window_bits(MGPU_MSM_BLS12_381_G1, (size_t)1 << 20, 0));
    }
    report(c.good, "mgpu_msm_curve_window_bits: BN254 G1 and G2 as mgpu_msm_window_bits, BLS12-381 G1 and G2 alike, "
           "1..%d, no top window under 5 bits from 2^16 points on, 0 for an unknown group%s%s", MGPU_MSM_MAX_WINDOW_BITS, SEP(c));
}

/* ================================================================ public vectors */
static void test_vectors(const tdev *t)
{
    int k;
    for (k = 0; k < nvfiles; k++) {
        vfile *v = &vfiles[k];
        unsigned flags = (v->flags & 1u ? MGPU_MSM_SCALARS_MONTGOMERY : 0) |
                         (v->flags & 2u ? MGPU_MSM_POINTS_MONTGOMERY | MGPU_MSM_RESULT_MONTGOMERY : 0);
        chk c;
        chk_init(&c);
        expect_msm(&c, "as stored", t->dev, v->s, v->p, v->n, flags, &v->want);
        if (v->flags) {   /* the same MSM converted to standard form */
            mgpu_bn254_scalar *s = (mgpu_bn254_scalar *)xmalloc(v->n * sizeof *s);
            mgpu_bn254_affine *p = (mgpu_bn254_affine *)xmalloc(v->n * sizeof *p), w = v->want;
            memcpy(s, v->s, v->n * sizeof *s);
            memcpy(p, v->p, v->n * sizeof *p);
            if (v->flags & 1u) mgpu_bn254_convert_scalars(s, v->n, 0, cpu_stream);
            if (v->flags & 2u) { mgpu_bn254_convert_points(p, v->n, 0, cpu_stream); mgpu_bn254_convert_points(&w, 1, 0, cpu_stream); }
            expect_msm(&c, "converted to standard form", t->dev, s, p, v->n, 0, &w);
            free(s);
            free(p);
        }
        report(c.good, "[%s] vector %s (N = %zu, flags %u)%s%s", t->label, v->name, v->n, v->flags, SEP(c));
    }
}

static void test_ethereum(const tdev *t)
{
    int k, bad = 0;
    chk c;
    chk_init(&c);
    for (k = 0; k < neadd; k++) {
        mgpu_bn254_affine pt[2], got;
        mgpu_bn254_scalar one[2];
        uint8_t out[64];
        mgpu_result r = mgpu_bn254_point_from_bytes(eadd[k].in, &pt[0]);
        if (r == MGPU_SUCCESS) r = mgpu_bn254_point_from_bytes(eadd[k].in + 64, &pt[1]);
        one[0] = one[1] = sc_u64(1);
        if (r == MGPU_SUCCESS) r = msm_on(t->dev, one, pt, 2, 0, 0, 0, &got);
        if (r != MGPU_SUCCESS) { bad++; chk_fail(&c, "bn256Add %s: %s", eadd[k].name, mgpu_last_error()); continue; }
        mgpu_bn254_point_to_bytes(&got, out);
        if (memcmp(out, eadd[k].out, 64)) { bad++; chk_fail(&c, "bn256Add %s: wrong sum", eadd[k].name); }
    }
    for (k = 0; k < nemul; k++) {
        mgpu_bn254_affine pt, got;
        mgpu_bn254_scalar s;
        uint8_t out[64];
        mgpu_result r = mgpu_bn254_point_from_bytes(emul[k].in, &pt);
        mgpu_bn254_scalar_from_bytes(emul[k].in + 64, &s);
        if (r == MGPU_SUCCESS) r = msm_on(t->dev, &s, &pt, 1, 0, 0, 0, &got);
        if (r != MGPU_SUCCESS) { bad++; chk_fail(&c, "bn256ScalarMul %s: %s", emul[k].name, mgpu_last_error()); continue; }
        mgpu_bn254_point_to_bytes(&got, out);
        if (memcmp(out, emul[k].out, 64)) { bad++; chk_fail(&c, "bn256ScalarMul %s: wrong product", emul[k].name); }
    }
    report(c.good && neadd > 0 && nemul > 0, "[%s] Ethereum vectors: %d bn256Add (MSM of 2, scalars 1, 1) and %d bn256ScalarMul "
           "(MSM of 1), %d wrong%s%s", t->label, neadd, nemul, bad, SEP(c));
}

/* ================================================================ edge cases */
static void test_edges(const tdev *t)
{
    enum { N = 40 };
    mgpu_bn254_affine *P = make_points(N, 1000 + (uint64_t)t->dev), inf, want, got, q[N];
    mgpu_bn254_scalar s[N], s2[N], rr, one = sc_u64(1);
    mgpu_bn254_jacobian jac;
    mgpu_stream st = NULL;
    size_t i;
    chk c;
    char b1[160];
    memset(&inf, 0, sizeof inf);
    memcpy(rr.limb, R_MOD, sizeof rr.limb);
    mgpu_default_stream(t->dev, &st);

    chk_init(&c);
    memset(&jac, 0xA5, sizeof jac);
    if (mgpu_msm(NULL, NULL, 0, NULL, &jac, st) != MGPU_SUCCESS) chk_fail(&c, "n = 0: %s", mgpu_last_error());
    else if (!is_zero(jac.z) || mgpu_bn254_to_affine(&jac, &got, 0) != MGPU_SUCCESS || !aff_inf(&got)) chk_fail(&c, "n = 0 is not infinity (Z = 0)");
    for (i = 0; i < N; i++) s[i] = sc_u64(0);
    expect_msm(&c, "all scalars 0", t->dev, s, P, N, 0, &inf);
    memset(&jac, 0xA5, sizeof jac);
    if (mgpu_msm(s, P, N, NULL, &jac, st) != MGPU_SUCCESS || !is_zero(jac.z)) chk_fail(&c, "all scalars 0: Jacobian Z is not 0");
    report(c.good, "[%s] n = 0 (NULL inputs) and all scalars 0 give infinity: Z = 0, affine (0, 0)%s%s", t->label, SEP(c));

    chk_init(&c);
    expect_msm(&c, "1 * P", t->dev, &one, P, 1, 0, &P[0]);
    sub256(s[0].limb, R_MOD, one.limb);
    want = neg_point(&P[1]);
    expect_msm(&c, "(r - 1) * P", t->dev, s, &P[1], 1, 0, &want);
    expect_msm(&c, "r * P", t->dev, &rr, P, 1, 0, &inf);
    add256(s[0].limb, R_MOD, one.limb);
    expect_msm(&c, "(r + 1) * P", t->dev, s, &P[2], 1, 0, &P[2]);
    for (i = 0; i < N; i++) s[i] = sc_u64(1);
    want = ref_msm(s, P, N);
    if (aff_inf(&want) || !mgpu_bn254_on_curve(&want, 0)) chk_fail(&c, "sum of the points is %s", aff_str(&want, b1));
    report(c.good, "[%s] 1 * P = P, (r - 1) * P = -P, r * P = infinity, (r + 1) * P = P%s%s", t->label, SEP(c));

    /* scalars >= r: k and k mod r give the same MSM */
    chk_init(&c);
    for (i = 0; i < N; i++) {
        switch (i % 6) {
        case 0: memcpy(s[i].limb, R_MOD, sizeof s[i].limb); break;                       /* r */
        case 1: add256(s[i].limb, R_MOD, one.limb); break;                                /* r + 1 */
        case 2: memset(s[i].limb, 0xff, sizeof s[i].limb); break;                         /* 2^256 - 1 */
        case 3: { int k; memcpy(s[i].limb, R_MOD, sizeof s[i].limb); for (k = 0; k < 4; k++) add256(s[i].limb, s[i].limb, R_MOD); break; }   /* 5r */
        case 4: s[i] = sc_rand_full(); s[i].limb[3] |= 1ull << 63; break;                 /* >= 2^255 */
        default: s[i] = sc_rand_mod(); add256(s[i].limb, s[i].limb, R_MOD); break;        /* k + r */
        }
        s2[i] = sc_mod(&s[i]);
    }
    want = ref_msm(s2, P, N);
    expect_msm(&c, "scalars >= r", t->dev, s, P, N, 0, &want);
    {   /* Montgomery scalars m and m + r are the same number */
        mgpu_bn254_scalar m[N];
        for (i = 0; i < N; i++) { m[i] = sc_rand_mod(); s2[i] = m[i]; if (i % 2) add256(m[i].limb, m[i].limb, R_MOD); }
        mgpu_bn254_convert_scalars(s2, N, 0, cpu_stream);
        want = ref_msm(s2, P, N);
        expect_msm(&c, "Montgomery scalars + r", t->dev, m, P, N, MGPU_MSM_SCALARS_MONTGOMERY, &want);
    }
    report(c.good, "[%s] scalars >= r (r, r + 1, 5r, 2^256 - 1, >= 2^255, k + r; Montgomery m + r) count modulo r%s%s",
           t->label, SEP(c));

    /* repeated points, P and -P, infinity inputs, every point the same, every scalar the same */
    chk_init(&c);
    for (i = 0; i < N; i++) { s[i] = sc_rand_mod(); q[i] = P[i % 7]; }             /* 7 distinct points, repeated */
    for (i = 0; i < 7; i++) s2[i] = sc_u64(0);
    for (i = 0; i < N; i++) s2[i % 7] = sc_add(&s2[i % 7], &s[i]);
    want = ref_msm(s2, P, 7);
    expect_msm(&c, "repeated points", t->dev, s, q, N, 0, &want);
    for (i = 0; i < N; i++) q[i] = i % 2 ? neg_point(&P[i / 2]) : P[i / 2];          /* P_k, -P_k */
    for (i = 0; i < N; i++) s[i] = i % 2 ? s[i - 1] : sc_rand_mod();
    expect_msm(&c, "k P - k P for 20 points", t->dev, s, q, N, 0, &inf);
    for (i = 1; i < N; i += 2) s[i] = sc_rand_mod();
    for (i = 0; i < N / 2; i++) { mgpu_bn254_scalar ng = sc_neg(&s[2 * i + 1]); s2[i] = sc_add(&s[2 * i], &ng); }
    want = ref_msm(s2, P, N / 2);
    expect_msm(&c, "a P + b (-P)", t->dev, s, q, N, 0, &want);
    for (i = 0; i < N; i++) { s[i] = sc_rand_full(); q[i] = i % 3 == 1 ? inf : P[i]; }
    {
        size_t m = 0;
        mgpu_bn254_affine rest[N];
        for (i = 0; i < N; i++) if (i % 3 != 1) { s2[m] = s[i]; rest[m++] = P[i]; }
        want = ref_msm(s2, rest, m);
        expect_msm(&c, "infinity inputs", t->dev, s, q, N, 0, &want);
        for (i = 0; i < N; i++) q[i] = inf;
        expect_msm(&c, "all points infinity", t->dev, s, q, N, 0, &inf);
    }
    s2[0] = sc_u64(0);
    for (i = 0; i < N; i++) { s[i] = sc_rand_full(); q[i] = P[3]; s2[0] = sc_add(&s2[0], &s[i]); }
    want = ref_msm(s2, &P[3], 1);
    expect_msm(&c, "every point the same", t->dev, s, q, N, 0, &want);
    for (i = 0; i < N; i++) s[i] = sc_u64(1);
    q[0] = ref_msm(s, P, N);                                                        /* sum of the points */
    s2[0] = sc_rand_mod();
    want = ref_msm(s2, q, 1);
    for (i = 0; i < N; i++) s[i] = s2[0];
    expect_msm(&c, "every scalar the same", t->dev, s, P, N, 0, &want);
    for (i = 0; i < N; i++) { s[i] = sc_rand_mod(); s2[i] = sc_neg(&s[i]); q[i] = P[i]; q[N - 1 - i] = P[i]; }
    {   /* sum k_i P_i + sum (r - k_i) P_i = infinity, in one MSM of 2N */
        mgpu_bn254_scalar ss[2 * N];
        mgpu_bn254_affine pp[2 * N];
        for (i = 0; i < N; i++) { ss[i] = s[i]; pp[i] = P[i]; ss[N + i] = s2[N - 1 - i]; pp[N + i] = P[N - 1 - i]; }
        expect_msm(&c, "sum k P + sum (r - k) P", t->dev, ss, pp, 2 * N, 0, &inf);
    }
    for (i = 0; i < N; i++) { s[i] = sc_u64(0); s[i].limb[i % 4] = 1ull << (i * 7 % 64); s2[i] = s[i]; }   /* single-bit scalars */
    s[N - 1] = sc_u64(0); s[N - 1].limb[3] = 1ull << 63; s2[N - 1] = sc_mod(&s[N - 1]);                       /* 2^255 */
    want = ref_msm(s2, P, N);
    if (!t->gpu) {   /* check one single-bit scalar against 2^k * P by doubling (a sum of equal points) */
        mgpu_bn254_scalar two[2] = { { { 1, 0, 0, 0 } }, { { 1, 0, 0, 0 } } };
        mgpu_bn254_affine pp[2], dbl;
        pp[0] = pp[1] = P[5];
        msm_on(t->dev, two, pp, 2, 0, 0, 0, &dbl);                                    /* P + P */
        s2[0] = sc_u64(2);
        expect_msm(&c, "2 * P = P + P", t->dev, s2, &P[5], 1, 0, &dbl);
    }
    expect_msm(&c, "single-bit scalars", t->dev, s, P, N, 0, &want);
    report(c.good, "[%s] repeated points, P and -P, infinity inputs, all points the same, all scalars the same, results at "
           "infinity, single-bit scalars%s%s", t->label, SEP(c));
    free(P);
}

/* ================================================================ forms, windows, precompute */
static void test_forms(const tdev *t)
{
    enum { N = 200 };
    mgpu_bn254_affine *P = make_points(N, 2000 + (uint64_t)t->dev), *Pm = (mgpu_bn254_affine *)xmalloc(N * sizeof *P), want, wm;
    mgpu_bn254_scalar *S = make_scalars(N, 1), *Sm = (mgpu_bn254_scalar *)xmalloc(N * sizeof *S);
    mgpu_stream st = NULL;
    unsigned f;
    int skipped_big = 0;
    chk c;
    memset(&P[10], 0, sizeof P[10]);                     /* an infinity */
    P[11] = P[12];                                       /* a repeat */
    S[13] = sc_u64(0);
    want = ref_msm(S, P, N);
    wm = want;
    mgpu_bn254_convert_points(&wm, 1, 1, cpu_stream);
    memcpy(Pm, P, N * sizeof *P);
    memcpy(Sm, S, N * sizeof *S);
    mgpu_default_stream(t->dev, &st);
    chk_init(&c);
    /* convert on the device under test (a GPU: in its memory) and compare with the CPU device */
    if (t->gpu) {
        void *dp = NULL, *ds = NULL;
        mgpu_set_device(t->dev);
        if (mgpu_malloc(&dp, N * sizeof *P) != MGPU_SUCCESS || mgpu_malloc(&ds, N * sizeof *S) != MGPU_SUCCESS) chk_fail(&c, "mgpu_malloc: %s", mgpu_last_error());
        else {
            mgpu_memcpy(dp, P, N * sizeof *P);
            mgpu_memcpy(ds, S, N * sizeof *S);
            if (mgpu_bn254_convert_points((mgpu_bn254_affine *)dp, N, 1, st) != MGPU_SUCCESS ||
                mgpu_bn254_convert_scalars((mgpu_bn254_scalar *)ds, N, 1, st) != MGPU_SUCCESS || mgpu_stream_synchronize(st) != MGPU_SUCCESS)
                chk_fail(&c, "convert on the GPU: %s", mgpu_last_error());
            mgpu_memcpy(Pm, dp, N * sizeof *P);
            mgpu_memcpy(Sm, ds, N * sizeof *S);
        }
        mgpu_free(dp);
        mgpu_free(ds);
        mgpu_set_device(0);
    } else {
        mgpu_bn254_convert_points(Pm, N, 1, st);
        mgpu_bn254_convert_scalars(Sm, N, 1, st);
    }
    {
        mgpu_bn254_affine *cp = (mgpu_bn254_affine *)xmalloc(N * sizeof *P);
        mgpu_bn254_scalar *cs = (mgpu_bn254_scalar *)xmalloc(N * sizeof *S);
        memcpy(cp, P, N * sizeof *P);
        memcpy(cs, S, N * sizeof *S);
        mgpu_bn254_convert_points(cp, N, 1, cpu_stream);
        mgpu_bn254_convert_scalars(cs, N, 1, cpu_stream);
        if (memcmp(cp, Pm, N * sizeof *P) || memcmp(cs, Sm, N * sizeof *S)) chk_fail(&c, "Montgomery forms differ from the CPU device's");
        free(cp);
        free(cs);
    }
    for (f = 0; f < 8; f++) {
        char what[96];
        snprintf(what, sizeof what, "scalars %s, points %s, result %s", f & 1 ? "Montgomery" : "standard",
                 f & 2 ? "Montgomery" : "standard", f & 4 ? "Montgomery" : "standard");
        expect_msm(&c, what, t->dev, f & 1 ? Sm : S, f & 2 ? Pm : P, N, f, f & 4 ? &wm : &want);
    }
    report(c.good, "[%s] every combination of SCALARS/POINTS/RESULT_MONTGOMERY (inputs converted %s) equals the standard "
           "MSM (N = %d with an infinity, a repeat, a zero scalar)%s%s", t->label, t->gpu ? "on the GPU" : "on the device", N, SEP(c));

    chk_init(&c);
    {
        static const int ws[] = { 1, 2, 3, 7, 13, 16, 24 };
        size_t k;
        for (k = 0; k < sizeof ws / sizeof ws[0]; k++) {
            mgpu_bn254_affine got;
            size_t n = ws[k] >= 16 ? 37 : N;
            if (quick && t->gpu && ws[k] >= 16) { skipped_big = 1; continue; }
            mgpu_bn254_affine w2 = n == N ? want : ref_msm(S, P, n);
            mgpu_result r = msm_on(t->dev, S, P, n, 0, ws[k], 0, &got);
            if (r != MGPU_SUCCESS) chk_fail(&c, "window_bits %d: %s", ws[k], mgpu_last_error());
            else if (!aff_eq(&got, &w2)) chk_fail(&c, "window_bits %d (n = %zu) differs", ws[k], n);
            if (ws[k] == 13) {
                r = msm_on(t->dev, Sm, Pm, N, 7, ws[k], 0, &got);
                if (r != MGPU_SUCCESS || !aff_eq(&got, &wm)) chk_fail(&c, "window_bits 13, Montgomery everything differs");
            }
        }
    }
    report(c.good, "[%s] window_bits 1, 2, 3, 7, 13 (N = %d)%s equal the default%s%s", t->label, N,
           skipped_big ? "" : ", 16, 24 (N = 37)", SEP(c));
    if (skipped_big) skip("[%s] window_bits 16 and 24 (TEST_MSM_QUICK)", t->label);
    free(P); free(Pm); free(S); free(Sm);
}

/* config.max_memory: an MSM whose working memory is capped below what it needs in one piece
   runs in pieces and gives the same sum, from host and from device memory; a cap too small for
   one point is OUT_OF_MEMORY and leaves the result untouched. CPU devices ignore the cap. */
static void test_memory_cap(const tdev *t)
{
    const size_t N = quick && t->gpu ? 1000 : 3000;     /* the emulator: fewer pieces */
    const size_t caps[] = { (size_t)1 << 30, quick && t->gpu ? 300 << 10 : 600 << 10, quick && t->gpu ? 300 << 10 : 200 << 10 };
    mgpu_bn254_affine *P = make_points(N, 3000 + (uint64_t)t->dev), want, got, *dp = NULL;
    mgpu_bn254_scalar *S = make_scalars(N, 1), *ds = NULL;
    mgpu_bn254_jacobian j;
    mgpu_msm_config cfg;
    mgpu_stream st = NULL;
    mgpu_result r;
    size_t k;
    int src;
    chk c;
    chk_init(&c);
    want = ref_msm(S, P, N);
    mgpu_default_stream(t->dev, &st);
    mgpu_set_device(t->dev);
    if (mgpu_malloc((void **)&dp, N * sizeof *dp) != MGPU_SUCCESS || mgpu_malloc((void **)&ds, N * sizeof *ds) != MGPU_SUCCESS ||
        mgpu_memcpy(dp, P, N * sizeof *dp) != MGPU_SUCCESS || mgpu_memcpy(ds, S, N * sizeof *ds) != MGPU_SUCCESS)
        chk_fail(&c, "device copies: %s", mgpu_last_error());
    memset(&cfg, 0, sizeof cfg);
    for (src = 0; src < 2 && c.good; src++)
        for (k = 0; k < sizeof caps / sizeof caps[0]; k++) {
            cfg.max_memory = caps[k];
            r = mgpu_msm(src ? ds : S, src ? dp : P, N, &cfg, &j, st);
            if (r == MGPU_SUCCESS) r = mgpu_bn254_to_affine(&j, &got, 0);
            if (r != MGPU_SUCCESS) chk_fail(&c, "max_memory %zu (%s inputs): %s", caps[k], src ? "device" : "host", mgpu_last_error());
            else if (!aff_eq(&got, &want)) chk_fail(&c, "max_memory %zu (%s inputs): wrong sum", caps[k], src ? "device" : "host");
        }
    cfg.max_memory = 1000;
    memset(&j, 0xA5, sizeof j);
    r = mgpu_msm(S, P, N, &cfg, &j, st);
    if (t->gpu && r != MGPU_ERROR_OUT_OF_MEMORY) chk_fail(&c, "max_memory 1000: %s, want OUT_OF_MEMORY", mgpu_result_string(r));
    if (!t->gpu && r != MGPU_SUCCESS) chk_fail(&c, "max_memory 1000 on a CPU device: %s", mgpu_last_error());
    if (t->gpu && (j.x[0] != 0xA5A5A5A5A5A5A5A5ull || j.z[3] != 0xA5A5A5A5A5A5A5A5ull)) chk_fail(&c, "max_memory 1000: result written");
    mgpu_free(dp);
    mgpu_free(ds);
    mgpu_set_device(0);
    report(c.good, "[%s] config.max_memory 1 GiB, %zu KiB, %zu KiB (pieces; N = %zu) from host and device memory equal "
           "the reference; 1000 bytes: %s%s%s", t->label, caps[1] >> 10, caps[2] >> 10, N,
           t->gpu ? "OUT_OF_MEMORY, result untouched" : "ignored", SEP(c));
    free(P);
    free(S);
}

/* bases for factor f on dev (device memory on a GPU), then an MSM over them. */
static void precompute_case(chk *c, const tdev *t, const mgpu_bn254_scalar *S, const mgpu_bn254_affine *P, size_t n,
                            unsigned flags, int f, int cbits, const mgpu_bn254_affine *want, int check_layout)
{
    mgpu_msm_config cfg;
    mgpu_bn254_affine *bases = NULL, *hb = (mgpu_bn254_affine *)xmalloc((size_t)f * n * sizeof *hb), got;
    mgpu_bn254_jacobian j;
    mgpu_stream st = NULL;
    mgpu_result r;
    int cc = cbits ? cbits : mgpu_msm_window_bits(n, f);
    memset(&cfg, 0, sizeof cfg);
    cfg.flags = flags;
    cfg.window_bits = cbits;
    cfg.precompute_factor = f;
    mgpu_default_stream(t->dev, &st);
    mgpu_set_device(t->dev);
    r = mgpu_malloc((void **)&bases, (size_t)f * n * sizeof *bases);
    if (r == MGPU_SUCCESS) r = mgpu_msm_precompute_bases(P, n, &cfg, bases, st);
    if (r == MGPU_SUCCESS) r = mgpu_msm(S, bases, n, &cfg, &j, st);
    if (r == MGPU_SUCCESS) r = mgpu_memcpy(hb, bases, (size_t)f * n * sizeof *hb);
    if (r == MGPU_SUCCESS) r = mgpu_bn254_to_affine(&j, &got, (flags & MGPU_MSM_RESULT_MONTGOMERY) != 0);
    if (r != MGPU_SUCCESS) chk_fail(c, "factor %d, c %d: %s", f, cbits, mgpu_last_error());
    else if (!aff_eq(&got, want)) chk_fail(c, "factor %d, c %d (n = %zu, flags %u) differs from the plain MSM", f, cbits, n, flags);
    else if (check_layout) {   /* bases[j n + i] = 2^(j w c) P_i, checked with 1-point MSMs on the CPU device */
        int w = ((255 + cc - 1) / cc + f - 1) / f, jj;
        size_t i;
        for (jj = 0; jj < f && c->good; jj++)
            for (i = 0; i < n && c->good; i += n / 3 + 1) {
                mgpu_bn254_scalar two = sc_u64(0);
                mgpu_bn254_affine p = P[i], b = hb[(size_t)jj * n + i], e;
                if (jj * w * cc > 255) continue;
                two.limb[jj * w * cc / 64] = 1ull << (jj * w * cc % 64);
                if (flags & MGPU_MSM_POINTS_MONTGOMERY) { mgpu_bn254_convert_points(&p, 1, 0, cpu_stream); mgpu_bn254_convert_points(&b, 1, 0, cpu_stream); }
                e = ref_msm(&two, &p, 1);
                if (!aff_eq(&b, &e)) chk_fail(c, "factor %d, c %d: bases[%d n + %zu] is not 2^(%d) P_%zu", f, cc, jj, i, jj * w * cc, i);
            }
    }
    mgpu_free(bases);
    mgpu_set_device(0);
    free(hb);
}

static void test_precompute(const tdev *t)
{
    enum { N = 150 };
    mgpu_bn254_affine *P = make_points(N, 3000 + (uint64_t)t->dev), *Pm = (mgpu_bn254_affine *)xmalloc(N * sizeof *P), want, wm;
    mgpu_bn254_scalar *S = make_scalars(N, 1);
    int f;
    chk c;
    chk_init(&c);
    memset(&P[7], 0, sizeof P[7]);
    want = ref_msm(S, P, N);
    memcpy(Pm, P, N * sizeof *P);
    mgpu_bn254_convert_points(Pm, N, 1, cpu_stream);
    wm = want;
    mgpu_bn254_convert_points(&wm, 1, 1, cpu_stream);
    for (f = 2; f <= 4; f++) {
        precompute_case(&c, t, S, P, N, 0, f, 0, &want, 1);
        precompute_case(&c, t, S, P, N, 0, f, f == 3 ? 13 : 5, &want, 1);
    }
    precompute_case(&c, t, S, Pm, N, MGPU_MSM_POINTS_MONTGOMERY | MGPU_MSM_RESULT_MONTGOMERY, 2, 0, &wm, 1);
    precompute_case(&c, t, S, Pm, N, MGPU_MSM_POINTS_MONTGOMERY, 4, 8, &want, 0);
    report(c.good, "[%s] precomputed bases, factors 2, 3, 4 (default c and c = 5 / 13), Montgomery points: equal to the plain "
           "MSM; bases[j n + i] = 2^(j w c) P_i%s%s", t->label, SEP(c));
    free(P); free(Pm); free(S);
}

/* ================================================================ batches, async, memory kinds */
static void test_batch(const tdev *t)
{
    enum { N = 60, B = 5 };
    mgpu_bn254_affine *P = make_points(N * B, 4000 + (uint64_t)t->dev), want[B], want_sh[B], got;
    mgpu_bn254_scalar *S = make_scalars(N * B, 1);
    mgpu_bn254_jacobian res[B + 1];
    mgpu_msm_config cfg;
    mgpu_stream st, us = NULL;
    int b;
    size_t i;
    chk c;
    chk_init(&c);
    for (b = 0; b < B; b++) { want[b] = ref_msm(S + b * N, P + b * N, N); want_sh[b] = ref_msm(S + b * N, P, N); }
    memset(&cfg, 0, sizeof cfg);
    mgpu_default_stream(t->dev, &st);
    memset(res, 0xA5, sizeof res);
    if (mgpu_msm_batch(S, P, N, B, &cfg, res, st) != MGPU_SUCCESS) chk_fail(&c, "batch: %s", mgpu_last_error());
    for (b = 0; b < B && c.good; b++)
        if (mgpu_bn254_to_affine(&res[b], &got, 0) != MGPU_SUCCESS || !aff_eq(&got, &want[b])) chk_fail(&c, "batch: MSM %d differs", b);
    for (i = 0; i < sizeof res[B] && c.good; i++) if (((unsigned char *)&res[B])[i] != 0xA5) chk_fail(&c, "batch wrote past results[count - 1]");
    cfg.flags = MGPU_MSM_SHARED_POINTS;
    memset(res, 0xA5, sizeof res);
    if (mgpu_msm_batch(S, P, N, B, &cfg, res, st) != MGPU_SUCCESS) chk_fail(&c, "shared points: %s", mgpu_last_error());
    for (b = 0; b < B && c.good; b++)
        if (mgpu_bn254_to_affine(&res[b], &got, 0) != MGPU_SUCCESS || !aff_eq(&got, &want_sh[b])) chk_fail(&c, "shared points: MSM %d differs", b);
    memset(res, 0xA5, sizeof res);
    if (mgpu_msm_batch(S, P, N, 0, &cfg, res, st) != MGPU_SUCCESS) chk_fail(&c, "count 0: %s", mgpu_last_error());
    for (i = 0; i < sizeof res && c.good; i++) if (((unsigned char *)res)[i] != 0xA5) chk_fail(&c, "count 0 wrote a result");
    /* async on a user stream */
    mgpu_set_device(t->dev);
    if (mgpu_stream_create_flags(&us, MGPU_STREAM_NON_BLOCKING) != MGPU_SUCCESS) chk_fail(&c, "stream: %s", mgpu_last_error());
    else {
        cfg.flags = 0;
        memset(res, 0xA5, sizeof res);
        if (mgpu_msm_batch_async(S, P, N, B, &cfg, res, us) != MGPU_SUCCESS || mgpu_stream_synchronize(us) != MGPU_SUCCESS)
            chk_fail(&c, "batch_async: %s", mgpu_last_error());
        for (b = 0; b < B && c.good; b++)
            if (mgpu_bn254_to_affine(&res[b], &got, 0) != MGPU_SUCCESS || !aff_eq(&got, &want[b])) chk_fail(&c, "batch_async: MSM %d differs", b);
        mgpu_stream_destroy(us);
    }
    mgpu_set_device(0);
    report(c.good, "[%s] mgpu_msm_batch of %d x %d: separate points, SHARED_POINTS, count 0 (nothing written), batch_async "
           "on a user stream%s%s", t->label, B, N, SEP(c));
    free(P); free(S);
}

static void test_memory_kinds(const tdev *t)
{
    enum { N = 500 };
    mgpu_bn254_affine *P = make_points(N, 5000 + (uint64_t)t->dev), want, want2, got;
    mgpu_bn254_scalar *S = make_scalars(N, 1);
    mgpu_bn254_jacobian *res = NULL, res2;
    void *ps = NULL, *pp = NULL, *ds = NULL, *dp = NULL;
    mgpu_msm_config cfg;
    mgpu_stream us = NULL;
    int kind;
    chk c;
    chk_init(&c);
    want = ref_msm(S, P, N);
    want2 = ref_msm(S + 1, P + 3, N - 3);
    memset(&cfg, 0, sizeof cfg);
    mgpu_set_device(t->dev);
    if (mgpu_stream_create(&us) != MGPU_SUCCESS || mgpu_malloc_host(&ps, N * sizeof *S) != MGPU_SUCCESS ||
        mgpu_malloc_host(&pp, N * sizeof *P) != MGPU_SUCCESS || mgpu_malloc_host((void **)&res, 2 * sizeof *res) != MGPU_SUCCESS ||
        mgpu_malloc(&ds, N * sizeof *S) != MGPU_SUCCESS || mgpu_malloc(&dp, N * sizeof *P) != MGPU_SUCCESS) {
        chk_fail(&c, "set-up: %s", mgpu_last_error());
    } else {
        memcpy(ps, S, N * sizeof *S);
        memcpy(pp, P, N * sizeof *P);
        mgpu_memcpy(ds, S, N * sizeof *S);
        mgpu_memcpy(dp, P, N * sizeof *P);
        for (kind = 0; kind < 4; kind++) {
            static const char *const names[4] = { "pageable", "pinned", "device", "pinned scalars + device points" };
            const mgpu_bn254_scalar *s = kind == 0 ? S : kind == 2 ? (const mgpu_bn254_scalar *)ds : (const mgpu_bn254_scalar *)ps;
            const mgpu_bn254_affine *p = kind == 0 ? P : kind == 1 ? (const mgpu_bn254_affine *)pp : (const mgpu_bn254_affine *)dp;
            mgpu_result r;
            memset(res, 0xA5, 2 * sizeof *res);
            memset(&res2, 0xA5, sizeof res2);
            /* two MSMs queued back to back on one stream: a pinned and a pageable result */
            r = mgpu_msm_async(s, p, N, &cfg, &res[0], us);
            if (r == MGPU_SUCCESS) r = mgpu_msm_async(s + 1, p + 3, N - 3, &cfg, &res2, us);
            if (r == MGPU_SUCCESS) r = mgpu_stream_synchronize(us);
            if (r != MGPU_SUCCESS) { chk_fail(&c, "%s: %s", names[kind], mgpu_last_error()); continue; }
            if (mgpu_bn254_to_affine(&res[0], &got, 0) != MGPU_SUCCESS || !aff_eq(&got, &want)) chk_fail(&c, "%s: first MSM differs", names[kind]);
            if (mgpu_bn254_to_affine(&res2, &got, 0) != MGPU_SUCCESS || !aff_eq(&got, &want2)) chk_fail(&c, "%s: second MSM differs", names[kind]);
        }
        /* NULL stream: the bound device's default stream */
        memset(&res2, 0xA5, sizeof res2);
        if (mgpu_msm(ds, dp, N, NULL, &res2, NULL) != MGPU_SUCCESS) chk_fail(&c, "NULL stream: %s", mgpu_last_error());
        else if (mgpu_bn254_to_affine(&res2, &got, 0) != MGPU_SUCCESS || !aff_eq(&got, &want)) chk_fail(&c, "NULL stream: differs");
        /* CHECK_POINTS on valid points (with an infinity) succeeds */
        cfg.flags = MGPU_MSM_CHECK_POINTS;
        if (mgpu_msm(ds, dp, N, &cfg, &res2, us) != MGPU_SUCCESS) chk_fail(&c, "CHECK_POINTS on valid points: %s", mgpu_last_error());
        else if (mgpu_bn254_to_affine(&res2, &got, 0) != MGPU_SUCCESS || !aff_eq(&got, &want)) chk_fail(&c, "CHECK_POINTS: differs");
    }
    if (us) mgpu_stream_destroy(us);
    mgpu_free_host(ps); mgpu_free_host(pp); mgpu_free_host(res);
    mgpu_free(ds); mgpu_free(dp);
    mgpu_set_device(0);
    report(c.good, "[%s] mgpu_msm_async on a user stream, two queued back to back, inputs in pageable, pinned and device "
           "memory, results pinned and pageable; NULL stream; CHECK_POINTS on valid points%s%s", t->label, SEP(c));
    free(P); free(S);
}

/* ================================================================ several devices */
static void multi_case_cfg(chk *c, const char *what, const mgpu_device *devs, int ndevs, const mgpu_bn254_scalar *S,
                           const mgpu_bn254_affine *P, size_t n, int count, const mgpu_msm_config *cfg,
                           const mgpu_bn254_affine *want)
{
    mgpu_bn254_jacobian *res = (mgpu_bn254_jacobian *)xmalloc((size_t)(count + 1) * sizeof *res);
    mgpu_bn254_affine got;
    mgpu_result r;
    size_t i;
    int b;
    memset(res, 0xA5, (size_t)(count + 1) * sizeof *res);
    r = mgpu_msm_multi(S, P, n, count, cfg, res, devs, ndevs);
    if (r != MGPU_SUCCESS) chk_fail(c, "%s: %s: %s", what, mgpu_result_string(r), mgpu_last_error());
    for (b = 0; b < count && r == MGPU_SUCCESS; b++)
        if (mgpu_bn254_to_affine(&res[b], &got, (cfg->flags & MGPU_MSM_RESULT_MONTGOMERY) != 0) != MGPU_SUCCESS ||
            !aff_eq(&got, &want[b])) {
            chk_fail(c, "%s: MSM %d of %d differs", what, b, count);
            break;
        }
    for (i = 0; i < sizeof *res; i++)
        if (((unsigned char *)&res[count])[i] != 0xA5) { chk_fail(c, "%s: wrote past results[count - 1]", what); break; }
    free(res);
}
static void multi_case(chk *c, const char *what, const mgpu_device *devs, int ndevs, const mgpu_bn254_scalar *S,
                       const mgpu_bn254_affine *P, size_t n, int count, unsigned flags, const mgpu_bn254_affine *want)
{
    mgpu_msm_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.flags = flags;
    multi_case_cfg(c, what, devs, ndevs, S, P, n, count, &cfg, want);
}

/* One MSM split, fewer MSMs than devices, more (spread), shared points, Montgomery forms,
   precomputed bases (made on the CPU device: host memory), over devs. */
static void multi_sweep(const char *label, const mgpu_device *devs, int ndevs, const mgpu_bn254_scalar *S,
                        const mgpu_bn254_affine *P, size_t n, const mgpu_bn254_affine *want1, int spread)
{
    enum { NB = 48, B = 9, F = 3 };
    mgpu_bn254_affine want[B], want_sh[B], wm;
    mgpu_bn254_affine *Pm = (mgpu_bn254_affine *)xmalloc(n * sizeof *Pm), *bases = (mgpu_bn254_affine *)xmalloc(F * n * sizeof *bases);
    mgpu_bn254_scalar *Sm = (mgpu_bn254_scalar *)xmalloc(n * sizeof *Sm);
    mgpu_msm_config cfg;
    char what[128];
    int b, counts[3] = { 2, 5, B }, k;
    chk c;
    chk_init(&c);
    multi_case(&c, "count 1 (split)", devs, ndevs, S, P, n, 1, 0, want1);
    want[0] = ref_msm(S, P, 3);
    multi_case(&c, "count 1, 3 points", devs, ndevs, S, P, 3, 1, 0, &want[0]);
    for (b = 0; b < B; b++) { want[b] = ref_msm(S + b * NB, P + b * NB, NB); want_sh[b] = ref_msm(S + b * NB, P, NB); }
    for (k = 0; k < (spread ? 3 : 1); k++) {
        snprintf(what, sizeof what, "count %d", counts[k]);
        multi_case(&c, what, devs, ndevs, S, P, NB, counts[k], 0, want);
        snprintf(what, sizeof what, "count %d, SHARED_POINTS", counts[k]);
        multi_case(&c, what, devs, ndevs, S, P, NB, counts[k], MGPU_MSM_SHARED_POINTS, want_sh);
    }
    {
        mgpu_bn254_jacobian canary[2];
        memset(canary, 0xA5, sizeof canary);
        if (mgpu_msm_multi(S, P, NB, 0, NULL, canary, devs, ndevs) != MGPU_SUCCESS) chk_fail(&c, "count 0: %s", mgpu_last_error());
        else if (((unsigned char *)canary)[0] != 0xA5) chk_fail(&c, "count 0 wrote a result");
    }
    /* Montgomery scalars, points and result, split */
    memcpy(Pm, P, n * sizeof *P);
    memcpy(Sm, S, n * sizeof *S);
    mgpu_bn254_convert_points(Pm, n, 1, cpu_stream);
    mgpu_bn254_convert_scalars(Sm, n, 1, cpu_stream);
    wm = *want1;
    mgpu_bn254_convert_points(&wm, 1, 1, cpu_stream);
    memset(&cfg, 0, sizeof cfg);
    cfg.flags = MGPU_MSM_SCALARS_MONTGOMERY | MGPU_MSM_POINTS_MONTGOMERY | MGPU_MSM_RESULT_MONTGOMERY;
    multi_case_cfg(&c, "count 1, Montgomery everything", devs, ndevs, Sm, Pm, n, 1, &cfg, &wm);
    cfg.flags = MGPU_MSM_SCALARS_MONTGOMERY | MGPU_MSM_POINTS_MONTGOMERY;
    multi_case_cfg(&c, "count 1, Montgomery inputs", devs, ndevs, Sm, Pm, n, 1, &cfg, want1);
    /* precomputed bases: one MSM split; two MSMs with their own bases; shared bases */
    memset(&cfg, 0, sizeof cfg);
    cfg.precompute_factor = F;
    if (mgpu_msm_precompute_bases(P, n, &cfg, bases, cpu_stream) != MGPU_SUCCESS) chk_fail(&c, "precompute: %s", mgpu_last_error());
    else multi_case_cfg(&c, "count 1, precompute factor 3", devs, ndevs, S, bases, n, 1, &cfg, want1);
    for (b = 0; b < 2; b++)
        if (mgpu_msm_precompute_bases(P + b * NB, NB, &cfg, bases + (size_t)b * F * NB, cpu_stream) != MGPU_SUCCESS)
            chk_fail(&c, "precompute: %s", mgpu_last_error());
    multi_case_cfg(&c, "count 2, precompute factor 3", devs, ndevs, S, bases, NB, 2, &cfg, want);
    if (mgpu_msm_precompute_bases(P, NB, &cfg, bases, cpu_stream) != MGPU_SUCCESS) chk_fail(&c, "precompute: %s", mgpu_last_error());
    cfg.flags = MGPU_MSM_SHARED_POINTS;
    multi_case_cfg(&c, "count 5, precompute factor 3, SHARED_POINTS", devs, ndevs, S, bases, NB, 5, &cfg, want_sh);
    report(c.good, "%s mgpu_msm_multi: one MSM of %zu split, count 1 of 3 points, count %s (each split / spread), "
           "SHARED_POINTS, count 0, Montgomery forms, precomputed bases (split, own, shared)%s%s", label, n,
           spread ? "2, 5, 9" : "2", SEP(c));
    free(Pm); free(Sm); free(bases);
}

static void test_multi_cpu(void)
{
    enum { N = 1000 };
    mgpu_bn254_affine *P = make_points(N, 6000), want;
    mgpu_bn254_scalar *S = make_scalars(N, 1);
    int k;
    want = ref_msm(S, P, N);
    for (k = 1; k <= 4; k *= 2) {
        char label[64];
        snprintf(label, sizeof label, "[%d CPU device%s]", k, k > 1 ? "s" : "");
        multi_sweep(label, cpus, k, S, P, N, &want, 1);
    }
    if (!ngpu) multi_sweep("[default devices: NULL, 0]", NULL, 0, S, P, N, &want, 0);
    free(P); free(S);
}

/* ================================================================ random MSMs, GPU against CPU */
static void test_random(void)
{
    enum { NSIZES = 7, BIG = NSIZES - 1 };
    static const size_t sizes[NSIZES] = { 1, 2, 3, 100, 1000, 4097, ((size_t)1 << 16) + 3 };
    const size_t nmax = sizes[BIG];
    const int gbig = quick ? 5 : BIG;                   /* the largest size the GPUs run */
    mgpu_bn254_affine *P = make_points(nmax, 7000), *Pm = (mgpu_bn254_affine *)xmalloc(nmax * sizeof *P), ref[NSIZES], refm;
    mgpu_bn254_scalar *S = make_scalars(nmax, 1), *Sm = (mgpu_bn254_scalar *)xmalloc(nmax * sizeof *S);
    int k, g;
    clock_t t0 = clock();
    memcpy(Pm, P, nmax * sizeof *P);
    memcpy(Sm, S, nmax * sizeof *S);
    mgpu_bn254_convert_points(Pm, nmax, 1, cpu_stream);
    mgpu_bn254_convert_scalars(Sm, nmax, 1, cpu_stream);
    for (k = 0; k < NSIZES; k++) ref[k] = ref_msm(S, P, sizes[k]);   /* the 2^16 + 3 reference, once */
    refm = ref[gbig];
    mgpu_bn254_convert_points(&refm, 1, 1, cpu_stream);
    detail("CPU references for n = 1 .. 2^16 + 3: %.1f s of CPU time", (double)(clock() - t0) / CLOCKS_PER_SEC);
    if (!ngpu) {   /* the split over 4 CPU devices against one CPU device */
        chk c;
        chk_init(&c);
        for (k = 0; k < NSIZES; k++) {
            char what[64];
            snprintf(what, sizeof what, "n = %zu", sizes[k]);
            multi_case(&c, what, cpus, 4, S, P, sizes[k], 1, 0, &ref[k]);
        }
        report(c.good, "[4 CPU devices] random MSMs of 1, 2, 3, 100, 1000, 4097, 2^16 + 3 points (full-range scalars) split "
               "over 4 CPU devices == one CPU device%s%s", SEP(c));
        skip("random MSMs on GPUs against the CPU device: no GPU");
        free(P); free(Pm); free(S); free(Sm);
        return;
    }
    if (quick) skip("GPU MSMs of 2^16 + 3 points (TEST_MSM_QUICK): the GPUs run up to 4097");
    for (g = 0; g < ngpu; g++) {
        chk c, c2;
        chk_init(&c);
        for (k = 0; k <= gbig; k++) {
            char what[64];
            snprintf(what, sizeof what, "n = %zu", sizes[k]);
            expect_msm(&c, what, g, S, P, sizes[k], 0, &ref[k]);
        }
        expect_msm(&c, "Montgomery scalars, points and result", g, Sm, Pm, sizes[gbig], 7, &refm);
        report(c.good, "[gpu %d] random MSMs of 1, 2, 3, 100, 1000, 4097%s points (full-range scalars; and Montgomery forms) "
               "== CPU device%s%s", g, quick ? "" : ", 2^16 + 3", SEP(c));
        {   /* skewed digits: every bucket's entries in few tiles of the sort, or in one */
            const size_t n = sizes[gbig];
            mgpu_bn254_scalar *K = (mgpu_bn254_scalar *)xmalloc(n * sizeof *K), k;
            mgpu_bn254_affine sum, want;
            size_t i;
            chk_init(&c);
            for (i = 0; i < n; i++) K[i] = sc_u64(1);
            sum = ref_msm(K, P, n);                                /* sum of the points */
            k = sc_rand_mod();
            want = ref_msm(&k, &sum, 1);
            for (i = 0; i < n; i++) K[i] = k;
            expect_msm(&c, "every scalar the same", g, K, P, n, 0, &want);
            for (i = 0; i < n; i++) K[i] = sc_u64(S[i].limb[0] & 0xffff);
            want = ref_msm(K, P, n);
            expect_msm(&c, "scalars below 2^16", g, K, P, n, 0, &want);
            report(c.good, "[gpu %d] MSMs of %zu points with every scalar the same, and with scalars below 2^16 == CPU "
                   "device%s%s", g, n, SEP(c));
            free(K);
        }
        chk_init(&c2);
        precompute_case(&c2, &tdevs[1 + g], S, P, sizes[gbig], 0, 4, 0, &ref[gbig], 0);
        report(c2.good, "[gpu %d] precompute factor 4 at n = %zu == CPU device%s%s", g, sizes[gbig], SEP(c2));
    }
    {
        mgpu_device devs[MGPU_MAX_DEVICES], mixed[2];
        void *ds = NULL, *dp = NULL;
        const size_t n = sizes[gbig];
        chk c;
        int k2;
        chk_init(&c);
        for (g = 0; g < ngpu; g++) devs[g] = g;
        for (k2 = 1; k2 <= ngpu; k2++) {
            char what[64];
            snprintf(what, sizeof what, "split over %d GPU%s", k2, k2 > 1 ? "s" : "");
            multi_case(&c, what, devs, k2, S, P, n, 1, 0, &ref[gbig]);
        }
        mgpu_set_device(0);
        if (mgpu_malloc(&ds, n * sizeof *S) == MGPU_SUCCESS && mgpu_malloc(&dp, n * sizeof *P) == MGPU_SUCCESS) {
            mgpu_memcpy(ds, S, n * sizeof *S);
            mgpu_memcpy(dp, P, n * sizeof *P);
            multi_case(&c, "inputs in GPU 0's memory, split over all GPUs", devs, ngpu, (const mgpu_bn254_scalar *)ds,
                       (const mgpu_bn254_affine *)dp, n, 1, 0, &ref[gbig]);
            if (ngpu > 1)
                multi_case(&c, "inputs in GPU 0's memory, split over the other GPUs", devs + 1, ngpu - 1,
                           (const mgpu_bn254_scalar *)ds, (const mgpu_bn254_affine *)dp, n, 1, 0, &ref[gbig]);
            {   /* a batch from GPU 0's memory: several MSMs per GPU, uploads overlapping computation */
                enum { NBATCH = 9 };
                const size_t m = n / NBATCH;
                mgpu_bn254_affine wb[NBATCH];
                int b;
                for (b = 0; b < NBATCH; b++) wb[b] = ref_msm(S + b * m, P + b * m, m);
                multi_case(&c, "batch of 9 from GPU 0's memory over all GPUs", devs, ngpu, (const mgpu_bn254_scalar *)ds,
                           (const mgpu_bn254_affine *)dp, m, NBATCH, 0, wb);
                if (ngpu > 1)
                    multi_case(&c, "batch of 9 from GPU 0's memory over the other GPUs", devs + 1, ngpu - 1,
                               (const mgpu_bn254_scalar *)ds, (const mgpu_bn254_affine *)dp, m, NBATCH, 0, wb);
            }
        } else chk_fail(&c, "mgpu_malloc: %s", mgpu_last_error());
        mgpu_free(ds);
        mgpu_free(dp);
        mixed[0] = 0;
        mixed[1] = cpus[0];
        multi_case(&c, "split over GPU 0 and CPU device 0", mixed, 2, S, P, sizes[5], 1, 0, &ref[5]);
        report(c.good, "[GPUs] one MSM of %zu split over 1..%d GPUs, from host memory and from GPU 0's memory (and a batch of 9 "
               "from there), and of 4097 over GPU 0 + CPU device 0 == CPU device%s%s", n, ngpu, SEP(c));
    }
    free(P); free(Pm); free(S); free(Sm);
}

static void test_multi_gpu(void)
{
    const size_t N = quick ? 1000 : 5000;
    mgpu_bn254_affine *P = make_points(N, 8000), want;
    mgpu_bn254_scalar *S = make_scalars(N, 1);
    mgpu_device devs[MGPU_MAX_DEVICES];
    int k;
    const char *msg = "";
    if (!ngpu) {
        mgpu_cuda_status(&msg);
        skip("mgpu_msm_multi over GPUs (1 .. all): %s", msg);
        free(P); free(S);
        return;
    }
    want = ref_msm(S, P, N);
    for (k = 0; k < ngpu; k++) devs[k] = k;
    for (k = 1; k <= ngpu; k++) {
        char label[64];
        snprintf(label, sizeof label, "[%d GPU%s]", k, k > 1 ? "s" : "");
        multi_sweep(label, devs, k, S, P, N, &want, 1);
    }
    multi_sweep("[default devices: NULL, 0]", NULL, 0, S, P, N, &want, 0);
    free(P); free(S);
}

/* ================================================================ bad inputs */
static void test_bad_inputs(const tdev *t, mgpu_device other_gpu)
{
    enum { N = 20 };
    mgpu_bn254_affine *P = make_points(N, 9000), off[N], bases[2 * N];
    mgpu_bn254_scalar *S = make_scalars(N, 1);
    mgpu_bn254_jacobian res;
    mgpu_msm_config cfg;
    mgpu_stream st = NULL;
    void *dsmall = NULL, *dres = NULL, *dother = NULL;
    chk c;
    size_t i;
    int nb = 0;
    chk_init(&c);
    mgpu_default_stream(t->dev, &st);
    /* Each call must fail with its status, leave the canary in res, and leave a message naming
       the function (a call that fails in mgpu_set_device first replaces any older message). */
#define BAD(what_, fn_, call_, want_) do { mgpu_result r_; size_t k_; memset(&res, 0xA5, sizeof res); \
        memset(&cfg, 0, sizeof cfg); nb++; mgpu_set_device(-7); \
        { call_; } \
        for (k_ = 0; k_ < sizeof res && ((unsigned char *)&res)[k_] == 0xA5; k_++) {} \
        if (r_ != (want_)) chk_fail(&c, "%s gave %s (\"%s\"), want %s", what_, mgpu_result_string(r_), mgpu_last_error(), \
                                    mgpu_result_string(want_)); \
        else if (k_ != sizeof res) chk_fail(&c, "%s: rejected but *result was written", what_); \
        else if (!strstr(mgpu_last_error(), fn_)) chk_fail(&c, "%s: the message \"%s\" does not name %s", what_, mgpu_last_error(), fn_); \
        else detail("%-34s %s: %s", what_, mgpu_result_string(r_), mgpu_last_error()); } while (0)
    BAD("NULL scalars", "mgpu_msm", r_ = mgpu_msm(NULL, P, N, &cfg, &res, st), MGPU_ERROR_INVALID_ARGUMENT);
    BAD("NULL points", "mgpu_msm", r_ = mgpu_msm(S, NULL, N, &cfg, &res, st), MGPU_ERROR_INVALID_ARGUMENT);
    BAD("NULL result", "mgpu_msm", r_ = mgpu_msm(S, P, N, &cfg, NULL, st), MGPU_ERROR_INVALID_ARGUMENT);
    BAD("NULL result, n = 0", "mgpu_msm", r_ = mgpu_msm(NULL, NULL, 0, &cfg, NULL, st), MGPU_ERROR_INVALID_ARGUMENT);
    BAD("n = 2^31", "mgpu_msm", r_ = mgpu_msm(S, P, (size_t)1 << 31, &cfg, &res, st), MGPU_ERROR_SIZE_OVERFLOW);
    BAD("n = SIZE_MAX", "mgpu_msm", r_ = mgpu_msm(S, P, SIZE_MAX, &cfg, &res, st), MGPU_ERROR_SIZE_OVERFLOW);
    BAD("n = SIZE_MAX / 32 + 1", "mgpu_msm", r_ = mgpu_msm(S, P, SIZE_MAX / 32 + 1, &cfg, &res, st), MGPU_ERROR_SIZE_OVERFLOW);
    BAD("n = 2^30, precompute factor 2", "mgpu_msm", (cfg.precompute_factor = 2, r_ = mgpu_msm(S, P, (size_t)1 << 30, &cfg, &res, st)), MGPU_ERROR_SIZE_OVERFLOW);
    BAD("unknown flag 32", "mgpu_msm", (cfg.flags = 32, r_ = mgpu_msm(S, P, N, &cfg, &res, st)), MGPU_ERROR_INVALID_ARGUMENT);
    BAD("unknown flag 2^31", "mgpu_msm", (cfg.flags = 0x80000000u, r_ = mgpu_msm(S, P, N, &cfg, &res, st)), MGPU_ERROR_INVALID_ARGUMENT);
    BAD("window_bits -1", "mgpu_msm", (cfg.window_bits = -1, r_ = mgpu_msm(S, P, N, &cfg, &res, st)), MGPU_ERROR_INVALID_ARGUMENT);
    BAD("window_bits 25", "mgpu_msm", (cfg.window_bits = MGPU_MSM_MAX_WINDOW_BITS + 1, r_ = mgpu_msm(S, P, N, &cfg, &res, st)), MGPU_ERROR_INVALID_ARGUMENT);
    BAD("precompute_factor -1", "mgpu_msm", (cfg.precompute_factor = -1, r_ = mgpu_msm(S, P, N, &cfg, &res, st)), MGPU_ERROR_INVALID_ARGUMENT);
    BAD("precompute_factor 65", "mgpu_msm", (cfg.precompute_factor = MGPU_MSM_MAX_PRECOMPUTE + 1, r_ = mgpu_msm(S, P, N, &cfg, &res, st)), MGPU_ERROR_INVALID_ARGUMENT);
    BAD("batch count -1", "mgpu_msm_batch", r_ = mgpu_msm_batch(S, P, N, -1, &cfg, &res, st), MGPU_ERROR_INVALID_ARGUMENT);
    BAD("batch NULL results", "mgpu_msm_batch", r_ = mgpu_msm_batch(S, P, N / 2, 2, &cfg, NULL, st), MGPU_ERROR_INVALID_ARGUMENT);
    BAD("batch unknown flag", "mgpu_msm_batch", (cfg.flags = 64, r_ = mgpu_msm_batch(S, P, N / 2, 2, &cfg, &res, st)), MGPU_ERROR_INVALID_ARGUMENT);
    BAD("multi count -1", "mgpu_msm_multi", r_ = mgpu_msm_multi(S, P, N, -1, &cfg, &res, &t->dev, 1), MGPU_ERROR_INVALID_ARGUMENT);
    BAD("multi NULL scalars", "mgpu_msm_multi", r_ = mgpu_msm_multi(NULL, P, N, 1, &cfg, &res, &t->dev, 1), MGPU_ERROR_INVALID_ARGUMENT);
    BAD("multi n = 2^31", "mgpu_msm_multi", r_ = mgpu_msm_multi(S, P, (size_t)1 << 31, 1, &cfg, &res, &t->dev, 1), MGPU_ERROR_SIZE_OVERFLOW);
    BAD("multi unknown flag", "mgpu_msm_multi", (cfg.flags = 1u << 20, r_ = mgpu_msm_multi(S, P, N, 1, &cfg, &res, &t->dev, 1)), MGPU_ERROR_INVALID_ARGUMENT);
    {
        mgpu_device bogus = 1000;
        BAD("multi unknown device", "mgpu_msm_multi", r_ = mgpu_msm_multi(S, P, N, 1, &cfg, &res, &bogus, 1), MGPU_ERROR_INVALID_DEVICE);
    }
    /* points off the curve with CHECK_POINTS: the message names the first bad index */
    memcpy(off, P, sizeof off);
    off[17].y[0] ^= 1;
    BAD("off the curve, CHECK_POINTS", "mgpu_msm", (cfg.flags = MGPU_MSM_CHECK_POINTS, r_ = mgpu_msm(S, off, N, &cfg, &res, st)), MGPU_ERROR_NOT_ON_CURVE);
    if (!strstr(mgpu_last_error(), "17")) chk_fail(&c, "NOT_ON_CURVE message does not name index 17: \"%s\"", mgpu_last_error());
    memcpy(off, P, sizeof off);
    add256(off[4].x, off[4].x, P_MOD);                   /* x + p: on the curve modulo p, but not below p */
    if (cmp256(off[4].x, P_MOD) < 0) chk_fail(&c, "x + p did not exceed p?");
    BAD("x >= p, CHECK_POINTS", "mgpu_msm", (cfg.flags = MGPU_MSM_CHECK_POINTS, r_ = mgpu_msm(S, off, N, &cfg, &res, st)), MGPU_ERROR_NOT_ON_CURVE);
    memcpy(off, P, sizeof off);
    memcpy(off[9].y, P_MOD, sizeof off[9].y);            /* y = p */
    BAD("y = p, CHECK_POINTS, batch", "mgpu_msm_batch", (cfg.flags = MGPU_MSM_CHECK_POINTS, r_ = mgpu_msm_batch(S, off, N / 2, 2, &cfg, &res, st)), MGPU_ERROR_NOT_ON_CURVE);
    memcpy(off, P, sizeof off);
    off[3].x[0] ^= 4;
    BAD("off the curve, CHECK_POINTS, multi", "mgpu_msm_multi", (cfg.flags = MGPU_MSM_CHECK_POINTS, r_ = mgpu_msm_multi(S, off, N, 1, &cfg, &res, &t->dev, 1)), MGPU_ERROR_NOT_ON_CURVE);
    memcpy(off, P, sizeof off);
    mgpu_bn254_convert_points(off, N, 1, cpu_stream);    /* Montgomery points passed as standard: off the curve */
    if (!mgpu_bn254_on_curve(&off[0], 0) || !mgpu_bn254_on_curve(&off[1], 0))
        BAD("Montgomery points as standard, CHECK_POINTS", "mgpu_msm", (cfg.flags = MGPU_MSM_CHECK_POINTS, r_ = mgpu_msm(S, off, N, &cfg, &res, st)), MGPU_ERROR_NOT_ON_CURVE);
    /* precompute_bases: the bases (device memory on a GPU) keep a canary */
    {
        mgpu_result r2[5];
        mgpu_bn254_affine *tb = bases;
        int k;
        memset(bases, 0xA5, sizeof bases);
        mgpu_set_device(t->dev);
        if (t->gpu && mgpu_malloc((void **)&tb, sizeof bases) != MGPU_SUCCESS) chk_fail(&c, "mgpu_malloc: %s", mgpu_last_error());
        else {
            if (t->gpu) mgpu_memcpy(tb, bases, sizeof bases);
            memset(&cfg, 0, sizeof cfg);
            cfg.precompute_factor = 1;
            r2[0] = mgpu_msm_precompute_bases(P, N, &cfg, tb, st);
            cfg.precompute_factor = 0;
            r2[1] = mgpu_msm_precompute_bases(P, N, &cfg, tb, st);
            cfg.precompute_factor = 2;
            r2[2] = mgpu_msm_precompute_bases(P, N, &cfg, NULL, st);
            r2[3] = mgpu_msm_precompute_bases(NULL, N, &cfg, tb, st);
            cfg.window_bits = MGPU_MSM_MAX_WINDOW_BITS + 1;
            r2[4] = mgpu_msm_precompute_bases(P, N, &cfg, tb, st);
            for (k = 0; k < 5; k++)
                if (r2[k] != MGPU_ERROR_INVALID_ARGUMENT)
                    chk_fail(&c, "precompute_bases case %d (factor 1, factor 0, NULL bases, NULL points, window_bits 25) gave %s",
                             k, mgpu_result_string(r2[k]));
            if (t->gpu) { mgpu_memcpy(bases, tb, sizeof bases); mgpu_free(tb); }
            for (i = 0; i < sizeof bases && ((unsigned char *)bases)[i] == 0xA5; i++) {}
            if (i != sizeof bases) chk_fail(&c, "rejected precompute_bases wrote bases");
        }
        nb += 5;
    }
    /* arrays that run past their mgpu allocation; device memory the stream's device cannot use */
    mgpu_set_device(t->dev);
    if (mgpu_malloc(&dsmall, (N - 1) * sizeof *S) == MGPU_SUCCESS) {
        mgpu_memcpy(dsmall, S, (N - 1) * sizeof *S);
        BAD("scalars past their allocation", "mgpu_msm", r_ = mgpu_msm((const mgpu_bn254_scalar *)dsmall, P, N, &cfg, &res, st), MGPU_ERROR_INVALID_ARGUMENT);
    } else chk_fail(&c, "mgpu_malloc: %s", mgpu_last_error());
    if (t->gpu) {
        if (mgpu_malloc(&dres, sizeof res) == MGPU_SUCCESS) {
            mgpu_result r2;
            memset(&cfg, 0, sizeof cfg);
            mgpu_memset(dres, 0xA5, sizeof res);
            r2 = mgpu_msm(S, P, N, &cfg, (mgpu_bn254_jacobian *)dres, st);
            mgpu_memcpy(&res, dres, sizeof res);
            for (i = 0; i < sizeof res && ((unsigned char *)&res)[i] == 0xA5; i++) {}
            if (r2 != MGPU_ERROR_INVALID_POINTER) chk_fail(&c, "result in device memory gave %s, want MGPU_ERROR_INVALID_POINTER", mgpu_result_string(r2));
            else if (i != sizeof res) chk_fail(&c, "result in device memory: rejected but written");
            nb++;
            {   /* the GPU's memory on a CPU device's stream */
                mgpu_stream cs;
                mgpu_default_stream(cpus[0], &cs);
                BAD("GPU memory on a CPU stream", "mgpu_msm", r_ = mgpu_msm((const mgpu_bn254_scalar *)dsmall, P, N - 1, &cfg, &res, cs), MGPU_ERROR_WRONG_DEVICE);
            }
        }
        if (other_gpu >= 0) {
            mgpu_set_device(other_gpu);
            if (mgpu_malloc(&dother, N * sizeof *P) == MGPU_SUCCESS) {
                mgpu_memcpy(dother, P, N * sizeof *P);
                BAD("another GPU's memory", "mgpu_msm", r_ = mgpu_msm(S, (const mgpu_bn254_affine *)dother, N, &cfg, &res, st), MGPU_ERROR_WRONG_DEVICE);
            }
            mgpu_free(dother);
        }
    }
    mgpu_set_device(t->dev);
    mgpu_free(dsmall);
    mgpu_free(dres);
    mgpu_set_device(0);
#undef BAD
    report(c.good, "[%s] %d bad inputs rejected with their own status (INVALID_ARGUMENT, SIZE_OVERFLOW, NOT_ON_CURVE, "
           "INVALID_DEVICE%s), a message, and *result untouched%s%s", t->label, nb,
           t->gpu ? ", INVALID_POINTER, WRONG_DEVICE" : "", SEP(c));
    free(P); free(S);
}

/* Sections named on the command line (none: all). */
/* ---- the other groups (mgpu_msm_curve, config.group): BN254 G2, BLS12-381 G1 and G2, and
   BN254 G1 through the same calls. The CURVEMSM files (py_ecc's results), algebraic
   identities with the scalars combined by this file's own arithmetic modulo r, the forms,
   the split over CPU devices, and the errors. */
static const char *const group_names[4] = { "BN254 G1", "BN254 G2", "BLS12-381 G1", "BLS12-381 G2" };
static const u256 R_BLS = { 0xffffffff00000001ull, 0x53bda402fffe5bfeull, 0x3339d80809a1d805ull, 0x73eda753299d7d48ull };
static const uint64_t P_BLS[6] = { 0xb9feffffffffaaabull, 0x1eabfffeb153ffffull, 0x6730d2a0f6b0f624ull,
                                   0x64774b84f38512bfull, 0x4b1ba7b6434bacd7ull, 0x1a0111ea397fe69aull };
static const uint64_t *group_r(int g) { return g < 2 ? R_MOD : R_BLS; }
static int group_limbs(int g) { return g < 2 ? 4 : 6; }
static int group_elem(int g) { return group_limbs(g) * (g & 1 ? 2 : 1); }   /* limbs of a coordinate */

/* -P (standard form): each y component c -> p - c (0 stays 0). */
static void curve_neg(int g, const uint64_t *p, uint64_t *out)
{
    const int L = group_limbs(g), E = group_elem(g);
    const uint64_t *m = L == 4 ? P_MOD : P_BLS;
    int c, i;
    memcpy(out, p, 16 * (size_t)E);
    for (c = E; c < 2 * E; c += L) {
        int zero = 1;
        uint64_t bw = 0;
        for (i = 0; i < L; i++) zero &= p[c + i] == 0;
        if (zero) continue;
        for (i = 0; i < L; i++) {
            uint64_t d = m[i] - p[c + i], b1 = m[i] < p[c + i];
            out[c + i] = d - bw;
            bw = b1 + (d < bw);
        }
    }
}
/* An MSM of group g on dev (devs/ndevs: mgpu_msm_curve_multi), the affine result in the
   form flags give. */
static mgpu_result curve_msm(int g, const mgpu_device *devs, int ndevs, const mgpu_bn254_scalar *s, const void *p,
                             size_t n, unsigned flags, int c, uint64_t *out)
{
    mgpu_msm_config cfg;
    uint64_t j[36];
    mgpu_stream st = NULL;
    mgpu_result r;
    memset(&cfg, 0, sizeof cfg);
    cfg.flags = flags;
    cfg.window_bits = c;
    cfg.group = g;
    if (ndevs == 1) {
        r = mgpu_default_stream(devs[0], &st);
        if (r == MGPU_SUCCESS) r = mgpu_msm_curve(s, p, n, 1, &cfg, j, st);
    } else {
        r = mgpu_msm_curve_multi(s, p, n, 1, &cfg, j, devs, ndevs);
    }
    if (r == MGPU_SUCCESS) r = mgpu_curve_to_affine(g, j, out, (flags & MGPU_MSM_RESULT_MONTGOMERY) != 0);
    return r;
}
static void expect_curve(chk *c, const char *what, int g, const mgpu_device *devs, int ndevs, const mgpu_bn254_scalar *s,
                         const void *p, size_t n, unsigned flags, int w, const uint64_t *want)
{
    uint64_t got[24];
    mgpu_result r = curve_msm(g, devs, ndevs, s, p, n, flags, w, got);
    if (r != MGPU_SUCCESS) chk_fail(c, "%s: %s: %s", what, mgpu_result_string(r), mgpu_last_error());
    else if (memcmp(got, want, 16 * (size_t)group_elem(g))) chk_fail(c, "%s: wrong result", what);
}

static void test_curve_vectors(void)
{
    static const char *const kinds[4] = { "n1", "n5", "n64", "n64_mont" };
    const mgpu_device two[2] = { cpus[0], cpus[1] }, gpus2[2] = { 0, 1 };
    int g, k, i, files = 0;
    for (g = 0; g < 4; g++)
        for (k = 0; k < 4; k++) {
            static const char *const stem[4] = { "bn254_g1", "bn254_g2", "bls12_381_g1", "bls12_381_g2" };
            char path[4200];
            unsigned char *b = NULL;
            size_t len = 0, n, E = 16 * (size_t)group_elem(g);
            unsigned flags, mf;
            chk c;
            chk_init(&c);
            snprintf(path, sizeof path, "%s/curvemsm/%s_%s.bin", vec_dir, stem[g], kinds[k]);
            if (read_file(path, &b, &len) != 0 || len < 32 || memcmp(b, "CURVEMSM", 8) || le64(b + 8) != (1ull | (uint64_t)(g / 2 + 1) << 32) ||
                (le64(b + 16) & 0xffffffffull) != (uint64_t)(g % 2 + 1) || (flags = (unsigned)(le64(b + 16) >> 32)) > 3 ||
                len != 32 + (32 + E) * (n = (size_t)le64(b + 24)) + E) {
                report(0, "[curves] %s: missing or malformed", path);
                free(b);
                continue;
            }
            mf = (flags & 1u ? MGPU_MSM_SCALARS_MONTGOMERY : 0) |
                 (flags & 2u ? MGPU_MSM_POINTS_MONTGOMERY | MGPU_MSM_RESULT_MONTGOMERY : 0) | MGPU_MSM_CHECK_POINTS;
            {
                mgpu_bn254_scalar *s = (mgpu_bn254_scalar *)xmalloc(n * 32);
                uint64_t *p = (uint64_t *)xmalloc(n * E), want[24];
                memcpy(s, b + 32, n * 32);                  /* (a little-endian host) */
                memcpy(p, b + 32 + 32 * n, n * E);
                memcpy(want, b + 32 + (32 + E) * n, E);
                expect_curve(&c, "cpu", g, cpus, 1, s, p, n, mf, 0, want);
                expect_curve(&c, "2 cpu devices", g, two, 2, s, p, n, mf, 0, want);
                expect_curve(&c, "4 cpu devices", g, cpus, 4, s, p, n, mf, 0, want);
                expect_curve(&c, "c = 3", g, cpus, 1, s, p, n, mf, 3, want);
                for (i = 0; i < ngpu; i++) {
                    const mgpu_device gpu = i;
                    char what[32];
                    snprintf(what, sizeof what, "gpu %d", i);
                    expect_curve(&c, what, g, &gpu, 1, s, p, n, mf, 0, want);
                    snprintf(what, sizeof what, "gpu %d, c = 5", i);
                    expect_curve(&c, what, g, &gpu, 1, s, p, n, mf, 5, want);
                }
                if (ngpu > 1) expect_curve(&c, "split over 2 gpus", g, gpus2, 2, s, p, n, mf, 0, want);
                if (flags) {                                /* converted: every other form */
                    unsigned sf, keep;
                    if (flags & 1u) mgpu_curve_convert_scalars(g, s, n, 0);
                    if (flags & 2u) { mgpu_curve_convert_points(g, p, n, 0); mgpu_curve_convert_points(g, want, 1, 0); }
                    for (sf = 0; sf < 8; sf++) {
                        mgpu_bn254_scalar *s2 = (mgpu_bn254_scalar *)xmalloc(n * 32);
                        uint64_t *p2 = (uint64_t *)xmalloc(n * E), w2[24];
                        char what[64];
                        memcpy(s2, s, n * 32);
                        memcpy(p2, p, n * E);
                        memcpy(w2, want, E);
                        if (sf & 1u) mgpu_curve_convert_scalars(g, s2, n, 1);
                        if (sf & 2u) mgpu_curve_convert_points(g, p2, n, 1);
                        if (sf & 4u) mgpu_curve_convert_points(g, w2, 1, 1);
                        keep = (sf & 1u ? MGPU_MSM_SCALARS_MONTGOMERY : 0) | (sf & 2u ? MGPU_MSM_POINTS_MONTGOMERY : 0) |
                               (sf & 4u ? MGPU_MSM_RESULT_MONTGOMERY : 0);
                        snprintf(what, sizeof what, "flags 0x%x", keep);
                        expect_curve(&c, what, g, cpus, 1, s2, p2, n, keep, 0, w2);
                        for (i = 0; i < ngpu && (!quick || sf == 0 || sf == 7); i++) {
                            const mgpu_device gpu = i;
                            snprintf(what, sizeof what, "gpu %d, flags 0x%x", i, keep);
                            expect_curve(&c, what, g, &gpu, 1, s2, p2, n, keep, 0, w2);
                        }
                        free(s2);
                        free(p2);
                    }
                }
                free(s);
                free(p);
            }
            files++;
            report(c.good, "[curves] vector %s_%s (%s, N = %zu, flags %u) on the CPU device, split over 2 and 4%s%s%s",
                   stem[g], kinds[k], group_names[g], n, flags, ngpu ? ", on every GPU" : "", SEP(c));
            free(b);
        }
    report(files == 16, "[curves] read %d CURVEMSM files of %s/curvemsm (16 expected)", files, vec_dir);
}

/* sum_i k_i (a_i Q) = (sum_i k_i a_i mod r) Q, the right side one point's MSM. */
static void test_curve_random(int g)
{
    static const size_t sizes[] = { 1, 2, 3, 100, 1001 };
    const uint64_t *r = group_r(g);
    const size_t E = 16 * (size_t)group_elem(g);
    uint64_t q[24], want[24];
    size_t z, i;
    chk c;
    chk_init(&c);
    mgpu_curve_random_points(g, q, 1, rnd());
    for (z = 0; z < sizeof sizes / sizeof sizes[0]; z++) {
        const size_t n = sizes[z];
        mgpu_bn254_scalar *k = (mgpu_bn254_scalar *)xmalloc(n * 32), *a = (mgpu_bn254_scalar *)xmalloc(n * 32), sum;
        uint64_t *p = (uint64_t *)xmalloc(n * E);
        char what[64];
        set_u64(sum.limb, 0);
        for (i = 0; i < n; i++) {
            u256 t, kr;
            a[i] = sc_rand_full();
            k[i] = sc_rand_full();                      /* full 256 bits: most are >= r */
            if (curve_msm(g, cpus, 1, &a[i], q, 1, 0, 0, p + i * E / 8) != MGPU_SUCCESS) chk_fail(&c, "a_i Q: %s", mgpu_last_error());
            reduce(kr, k[i].limb, r);
            mulmod(t, kr, a[i].limb, r);
            addmod(sum.limb, sum.limb, t, r);
        }
        if (curve_msm(g, cpus, 1, &sum, q, 1, 0, 0, want) != MGPU_SUCCESS) chk_fail(&c, "(sum k a) Q: %s", mgpu_last_error());
        snprintf(what, sizeof what, "n = %zu, cpu", n);
        expect_curve(&c, what, g, cpus, 1, k, p, n, 0, 0, want);
        snprintf(what, sizeof what, "n = %zu, 4 cpu devices", n);
        expect_curve(&c, what, g, cpus, 4, k, p, n, 0, 0, want);
        if (n == 1001) {                                 /* a batch of 5 over 2 devices, shared points */
            mgpu_bn254_scalar *kb = (mgpu_bn254_scalar *)xmalloc(5 * n * 32);
            uint64_t res[5 * 36], aff[24];
            mgpu_msm_config cfg;
            int b;
            for (b = 0; b < 5; b++) memcpy(kb + b * n, k, n * 32);
            memset(&cfg, 0, sizeof cfg);
            cfg.group = g;
            cfg.flags = MGPU_MSM_SHARED_POINTS;
            if (mgpu_msm_curve_multi(kb, p, n, 5, &cfg, res, cpus, 2) != MGPU_SUCCESS) chk_fail(&c, "batch: %s", mgpu_last_error());
            else
                for (b = 0; b < 5; b++) {
                    mgpu_curve_to_affine(g, res + b * 3 * E / 16, aff, 0);
                    if (memcmp(aff, want, E)) chk_fail(&c, "batch of 5 over 2 cpu devices: MSM %d wrong", b);
                }
            free(kb);
        }
        free(k);
        free(a);
        free(p);
    }
    report(c.good, "[curves] %s: random MSMs of 1, 2, 3, 100, 1001 points (scalars of 256 bits) = (sum k_i a_i mod r) Q "
           "on the CPU device, split over 4, a batch over 2%s%s", group_names[g], SEP(c));
}

/* The edge cases, each against an MSM of fewer points or a negation. */
/* On the curve, outside the subgroup of order r: BN254 G2, BLS12-381 G1, G2 (standard form). */
static const uint64_t off_group[3][24] = {
    { 3, 0, 0, 0, 1, 0, 0, 0, 0x512dc35743fa5543ull, 0xb87f54f50c1600e4ull, 0x0b87aca78e89515cull, 0x18317863a822ced6ull,
      0xd7132ea39ab5ab0cull, 0x1e41899e5fd5bf84ull, 0x4eb9190bb391072cull, 0x16f36623ff7c6a39ull },
    { 5, 0, 0, 0, 0, 0, 0x43ea7df67dbad60dull, 0x5df092c8a7ceb648ull, 0x506d2bb2185f5371ull, 0x9b180a8e59196825ull,
      0x7bc0790f1e6e7d66ull, 0x0d3c6da1211ebe79ull },
    { 3, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0x61f404376c72798cull, 0xf385ede267ba6fd1ull, 0x4f5ec4289d7a6a08ull,
      0x3d8611014bc9ce16ull, 0x71ef389953a62233ull, 0x0938e4fbf018479eull, 0x79a5d9e568e3ca58ull, 0xfad4ae5d318506f6ull,
      0xbb47a499b959882cull, 0xf0a522b38d1cc35eull, 0xb969f607e2ce74a7ull, 0x0246662e8fffe1bdull } };

/* MGPU_MSM_CHECK_POINTS on dev (points in its memory on a GPU: the group's check kernel; on
   the CPU device in host memory, checked on every core): n random points pass, in both
   forms; a bad one at i1, and at i0 and i1, is found and the message names the first: off
   the curve, a coordinate >= p, and in the groups with a cofactor outside the subgroup. */
static void check_points_case(chk *c, int g, mgpu_device dev, int gpu, size_t n, size_t i0, size_t i1)
{
    const size_t E = 16 * (size_t)group_elem(g), W = E / 8;
    uint64_t *p = (uint64_t *)xmalloc(n * E), *q = (uint64_t *)xmalloc(n * E), bad[3][24], got[24];
    mgpu_bn254_scalar *k = make_scalars(n, 1);
    void *dp = NULL;
    int form, kind, two;
    mgpu_curve_random_points(g, p, n, rnd());
    memcpy(bad[0], p + 5 * W, E);
    bad[0][W / 2] ^= 1;                                  /* off the curve (y changed) */
    memcpy(bad[1], p + 5 * W, E);
    memcpy(bad[1], group_limbs(g) == 4 ? P_MOD : P_BLS, 8 * (size_t)group_limbs(g));   /* x.c0 = p */
    if (g) memcpy(bad[2], off_group[g - 1], E);
    if (gpu && (mgpu_set_device(dev) != MGPU_SUCCESS || mgpu_malloc(&dp, n * E) != MGPU_SUCCESS)) {
        chk_fail(c, "mgpu_malloc: %s", mgpu_last_error());
        goto done;
    }
    for (form = 0; form < 2; form++) {
        const unsigned flags = MGPU_MSM_CHECK_POINTS | (form ? MGPU_MSM_POINTS_MONTGOMERY : 0);
        mgpu_result r;
        memcpy(q, p, n * E);
        if (form) mgpu_curve_convert_points(g, q, n, 1);
        if (gpu) mgpu_memcpy(dp, q, n * E);
        r = curve_msm(g, &dev, 1, k, gpu ? dp : q, n, flags, 0, got);
        if (r != MGPU_SUCCESS) chk_fail(c, "CHECK_POINTS, n = %zu valid points, form %d: %s", n, form, mgpu_last_error());
        for (kind = 0; kind < (g ? 3 : 2); kind++)
            for (two = 0; two < 2; two++) {
                const mgpu_result want = kind == 2 ? MGPU_ERROR_NOT_IN_SUBGROUP : MGPU_ERROR_NOT_ON_CURVE;
                char at[32];
                uint64_t b[24];
                memcpy(b, bad[kind], E);
                if (form && kind != 1) mgpu_curve_convert_points(g, b, 1, 1);   /* (>= p stays as given) */
                memcpy(q + i1 * W, b, E);
                if (two) memcpy(q + i0 * W, b, E);
                if (gpu) mgpu_memcpy(dp, q, n * E);
                r = curve_msm(g, &dev, 1, k, gpu ? dp : q, n, flags, 0, got);
                snprintf(at, sizeof at, "points[%zu]", two ? i0 : i1);
                if (r != want || !strstr(mgpu_last_error(), at))
                    chk_fail(c, "CHECK_POINTS, n = %zu, bad kind %d at %s, form %d: %s (%s)", n, kind, at, form,
                             mgpu_result_string(r), mgpu_last_error());
                memcpy(q + i1 * W, p + i1 * W, E);   /* (the valid points back, in this form) */
                memcpy(q + i0 * W, p + i0 * W, E);
                if (form) { mgpu_curve_convert_points(g, q + i1 * W, 1, 1); mgpu_curve_convert_points(g, q + i0 * W, 1, 1); }
            }
    }
done:
    if (dp) mgpu_free(dp);
    free(p);
    free(q);
    free(k);
}

static void test_curve_edges(int g, const mgpu_device *td, int nt, const char *label)
{
    const uint64_t *r = group_r(g);
    const size_t E = 16 * (size_t)group_elem(g), W = E / 8;
    uint64_t P[3 * 24], want[24], neg[24], inf[24], j[36];
    mgpu_bn254_scalar k[3], one;
    mgpu_msm_config cfg;
    mgpu_result res;
    mgpu_stream st = NULL;
    chk c;
    chk_init(&c);
    memset(inf, 0, sizeof inf);
    mgpu_curve_random_points(g, P, 3, rnd());
    set_u64(one.limb, 1);
    /* n = 0 and all scalars 0: infinity */
    memset(&cfg, 0, sizeof cfg);
    cfg.group = g;
    if (mgpu_default_stream(td[0], &st) != MGPU_SUCCESS || mgpu_msm_curve(NULL, NULL, 0, 1, &cfg, j, st) != MGPU_SUCCESS || mgpu_curve_to_affine(g, j, want, 0) != MGPU_SUCCESS ||
        memcmp(want, inf, E))
        chk_fail(&c, "n = 0 is not infinity");
    set_u64(k[0].limb, 0); set_u64(k[1].limb, 0); set_u64(k[2].limb, 0);
    expect_curve(&c, "scalars 0", g, td, nt, k, P, 3, 0, 0, inf);
    /* r - 1: -P; r + 1 and 2^256 - 1 against their values mod r */
    curve_neg(g, P, neg);
    memcpy(k[0].limb, r, 32); k[0].limb[0] -= 1;
    expect_curve(&c, "r - 1", g, td, nt, k, P, 1, 0, 0, neg);
    memcpy(k[0].limb, r, 32); k[0].limb[0] += 1;
    expect_curve(&c, "r + 1", g, td, nt, k, P, 1, 0, 0, P);
    memcpy(k[0].limb, r, 32);
    expect_curve(&c, "r", g, td, nt, k, P, 1, 0, 0, inf);
    k[1].limb[0] = k[1].limb[1] = k[1].limb[2] = k[1].limb[3] = ~0ull;
    reduce(k[2].limb, k[1].limb, r);
    if (curve_msm(g, cpus, 1, &k[2], P, 1, 0, 0, want) != MGPU_SUCCESS) chk_fail(&c, "%s", mgpu_last_error());
    expect_curve(&c, "2^256 - 1", g, td, nt, &k[1], P, 1, 0, 0, want);
    /* P and -P with one scalar: infinity; P, P: (a + b) P; an infinity input adds nothing */
    {
        uint64_t pp[72];
        mgpu_bn254_scalar ab[3], s1;
        memcpy(pp, P, E);
        memcpy(pp + W, neg, E);
        ab[0] = sc_rand_mod(); ab[1] = ab[0];
        expect_curve(&c, "P, -P", g, td, nt, ab, pp, 2, 0, 0, inf);
        memcpy(pp + W, P, E);
        ab[1] = sc_rand_mod();
        addmod(s1.limb, ab[0].limb, ab[1].limb, r);
        if (curve_msm(g, cpus, 1, &s1, P, 1, 0, 0, want) != MGPU_SUCCESS) chk_fail(&c, "%s", mgpu_last_error());
        expect_curve(&c, "P, P", g, td, nt, ab, pp, 2, 0, 0, want);
        expect_curve(&c, "P, P split over 2", g, nt > 1 ? td : cpus, 2, ab, pp, 2, 0, 0, want);
        ab[0] = one; ab[1] = one;
        set_u64(s1.limb, 2);
        if (curve_msm(g, cpus, 1, &s1, P, 1, 0, 0, want) != MGPU_SUCCESS) chk_fail(&c, "%s", mgpu_last_error());
        expect_curve(&c, "P + P (a doubling in the bucket)", g, td, nt, ab, pp, 2, 0, 0, want);
        memcpy(pp, P, E);
        memset(pp + W, 0, E);
        memcpy(pp + 2 * W, P + 2 * W, E);
        ab[0] = sc_rand_mod(); ab[1] = sc_rand_mod(); ab[2] = sc_rand_mod();
        {
            mgpu_bn254_scalar two_k[2];
            uint64_t two_p[48];
            two_k[0] = ab[0]; two_k[1] = ab[2];
            memcpy(two_p, P, E);
            memcpy(two_p + W, P + 2 * W, E);
            if (curve_msm(g, cpus, 1, two_k, two_p, 2, 0, 0, want) != MGPU_SUCCESS) chk_fail(&c, "%s", mgpu_last_error());
            expect_curve(&c, "an infinity input", g, td, nt, ab, pp, 3, MGPU_MSM_CHECK_POINTS, 0, want);
        }
    }
    /* One bucket a window holding runs of P, Q, infinity, -P and P: a bucket's sum meets
       its own point (a doubling), its negation and infinity many times; against the CPU device */
    {
        enum { RUN = 20, N = 5 * RUN };
        uint64_t *pts = malloc(N * E);
        mgpu_bn254_scalar *ks = malloc(N * sizeof *ks);
        size_t i;
        if (!pts || !ks) chk_fail(&c, "out of memory");
        else {
            ks[0] = sc_rand_mod();
            for (i = 0; i < N; i++) {
                const uint64_t *src = i / RUN == 0 || i / RUN == 4 ? P : i / RUN == 1 ? P + 2 * W : i / RUN == 3 ? neg : inf;
                memcpy(pts + i * W, src, E);
                ks[i] = ks[0];
            }
            if (curve_msm(g, cpus, 1, ks, pts, N, 0, 0, want) != MGPU_SUCCESS) chk_fail(&c, "%s", mgpu_last_error());
            expect_curve(&c, "runs of P, Q, infinity, -P, P in one bucket", g, td, nt, ks, pts, N, 0, 0, want);
        }
        free(pts);
        free(ks);
    }
    /* MGPU_MSM_CHECK_POINTS: off the curve, a coordinate >= p, outside the subgroup */
    {
        uint64_t bad[24];
        memcpy(bad, P, E);
        bad[W / 2] ^= 1;                                 /* y changed */
        res = curve_msm(g, td, nt, k, bad, 1, MGPU_MSM_CHECK_POINTS, 0, want);
        if (res != MGPU_ERROR_NOT_ON_CURVE || !strstr(mgpu_last_error(), "not on")) chk_fail(&c, "off the curve: %s", mgpu_result_string(res));
        if (mgpu_curve_on_curve(g, bad, 0) || !mgpu_curve_on_curve(g, P, 0)) chk_fail(&c, "mgpu_curve_on_curve");
        memcpy(bad, P, E);
        memcpy(bad, group_limbs(g) == 4 ? P_MOD : P_BLS, 8 * (size_t)group_limbs(g));   /* x.c0 = p */
        res = curve_msm(g, td, nt, k, bad, 1, MGPU_MSM_CHECK_POINTS, 0, want);
        if (res != MGPU_ERROR_NOT_ON_CURVE || !strstr(mgpu_last_error(), ">= p")) chk_fail(&c, "coordinate p: %s", mgpu_result_string(res));
        if (g) {
            res = curve_msm(g, td, nt, k, off_group[g - 1], 1, MGPU_MSM_CHECK_POINTS, 0, want);
            if (res != MGPU_ERROR_NOT_IN_SUBGROUP || !strstr(mgpu_last_error(), "not in"))
                chk_fail(&c, "outside the subgroup: %s (%s)", mgpu_result_string(res), mgpu_last_error());
            if (mgpu_curve_on_curve(g, off_group[g - 1], 0)) chk_fail(&c, "mgpu_curve_on_curve accepts a point outside the subgroup");
            if (curve_msm(g, cpus, 1, k, off_group[g - 1], 1, 0, 0, want) != MGPU_SUCCESS)
                chk_fail(&c, "unchecked, a point outside the subgroup is used as given: %s", mgpu_last_error());
        }
    }
    report(c.good, "[%s] [curves] %s: edge cases (n = 0, scalars 0, r - 1, r, r + 1, 2^256 - 1, P and -P, P and P, infinity "
           "inputs, one bucket of runs of P, Q, infinity, -P; MGPU_MSM_CHECK_POINTS off the curve, >= p%s)%s%s", label, group_names[g], g ? ", outside the subgroup" : "", SEP(c));
}

/* Every GPU against the CPU device: random MSMs of odd sizes (scalars of 256 bits), in
   standard and Montgomery forms, from host and from device memory (standard-form device
   points are converted by the group's kernel), a batch, split over 2 GPUs. */
static void test_curve_gpu(int g)
{
    static const size_t full[] = { 1, 2, 3, 100, 1001, 4097, 20011 }, small[] = { 1, 3, 64, 1000 };
    const size_t *sizes = quick ? small : full, nsz = quick ? 4 : 7, E = mgpu_msm_point_bytes(g);
    const mgpu_device gpus2[2] = { 0, 1 };
    size_t z;
    int i;
    if (!ngpu) return;
    for (i = 0; i < ngpu; i++) {
        const mgpu_device gpu = i;
        /* (slow emulators: the GPUs after the first, alike there, leave out the largest size) */
        const size_t nz = quick && i > 0 ? nsz - 1 : nsz;
        chk c;
        chk_init(&c);
        for (z = 0; z < nz; z++) {
            const size_t n = sizes[z];
            mgpu_bn254_scalar *k = make_scalars(n, 1), *km = (mgpu_bn254_scalar *)xmalloc(n * 32);
            uint64_t *p = (uint64_t *)xmalloc(n * E), *pm = (uint64_t *)xmalloc(n * E), want[24], wm[24];
            const unsigned all = MGPU_MSM_SCALARS_MONTGOMERY | MGPU_MSM_POINTS_MONTGOMERY | MGPU_MSM_RESULT_MONTGOMERY;
            void *dp = NULL, *ds = NULL, *dpm = NULL;
            char what[64];
            mgpu_curve_random_points(g, p, n, rnd());
            memcpy(km, k, n * 32);
            memcpy(pm, p, n * E);
            mgpu_curve_convert_scalars(g, km, n, 1);
            mgpu_curve_convert_points(g, pm, n, 1);
            if (curve_msm(g, cpus, 1, k, p, n, 0, 0, want) != MGPU_SUCCESS) chk_fail(&c, "cpu: %s", mgpu_last_error());
            memcpy(wm, want, E);
            mgpu_curve_convert_points(g, wm, 1, 1);
            snprintf(what, sizeof what, "n = %zu, host, standard", n);
            expect_curve(&c, what, g, &gpu, 1, k, p, n, 0, 0, want);
            snprintf(what, sizeof what, "n = %zu, host, Montgomery", n);
            expect_curve(&c, what, g, &gpu, 1, km, pm, n, all, 0, wm);
            mgpu_set_device(i);
            if (mgpu_malloc(&dp, n * E) != MGPU_SUCCESS || mgpu_malloc(&dpm, n * E) != MGPU_SUCCESS ||
                mgpu_malloc(&ds, n * 32) != MGPU_SUCCESS) {
                chk_fail(&c, "mgpu_malloc: %s", mgpu_last_error());
            } else {
                mgpu_memcpy(dp, p, n * E);
                mgpu_memcpy(dpm, pm, n * E);
                mgpu_memcpy(ds, k, n * 32);
                snprintf(what, sizeof what, "n = %zu, device, standard", n);
                expect_curve(&c, what, g, &gpu, 1, (const mgpu_bn254_scalar *)ds, dp, n, MGPU_MSM_CHECK_POINTS, 0, want);
                snprintf(what, sizeof what, "n = %zu, device points, Montgomery", n);
                expect_curve(&c, what, g, &gpu, 1, k, dpm, n, MGPU_MSM_POINTS_MONTGOMERY, 0, want);
            }
            mgpu_free(dp);
            mgpu_free(dpm);
            mgpu_free(ds);
            if (z == nsz - 1 && ngpu > 1 && i == 0) {
                snprintf(what, sizeof what, "n = %zu, split over 2 gpus", n);
                expect_curve(&c, what, g, gpus2, 2, k, p, n, 0, 0, want);
            }
            if (z == nsz - 1) {                      /* a batch of 3, shared points, and max_memory pieces */
                mgpu_bn254_scalar *kb = (mgpu_bn254_scalar *)xmalloc(3 * n * 32);
                uint64_t res[3 * 36], aff[24];
                mgpu_msm_config cfg;
                mgpu_stream st = NULL;
                int b;
                for (b = 0; b < 3; b++) memcpy(kb + b * n, k, n * 32);
                memset(&cfg, 0, sizeof cfg);
                cfg.group = g;
                cfg.flags = MGPU_MSM_SHARED_POINTS;
                cfg.max_memory = E * 75 * 1024;       /* less than the MSM needs: pieces */
                mgpu_default_stream(gpu, &st);
                if (mgpu_msm_curve(kb, p, n, 3, &cfg, res, st) != MGPU_SUCCESS) chk_fail(&c, "batch: %s", mgpu_last_error());
                else
                    for (b = 0; b < 3; b++) {
                        mgpu_curve_to_affine(g, res + b * 3 * E / 16, aff, 0);
                        if (memcmp(aff, want, E)) chk_fail(&c, "batch of 3 with max_memory %zu: MSM %d wrong", cfg.max_memory, b);
                    }
                free(kb);
            }
            free(k);
            free(km);
            free(p);
            free(pm);
        }
        check_points_case(&c, g, gpu, 1, 37, 0, 29);
        report(c.good, "[gpu %d] [curves] %s: random MSMs of %s points against the CPU device (host and device "
               "inputs, standard and Montgomery forms)%s%s; MGPU_MSM_CHECK_POINTS on 37 device points "
               "(valid; bad at 29, at 0 and 29: off the curve, >= p%s; both forms)%s", i, group_names[g],
               !quick ? "1, 2, 3, 100, 1001, 4097, 20011" : i ? "1, 3, 64" : "1, 3, 64, 1000",
               nz == nsz ? ", a batch in pieces" : "", ngpu > 1 && i == 0 ? ", split over 2" : "",
               g ? ", outside the subgroup" : "", SEP(c));
        {
            char label[32];
            snprintf(label, sizeof label, "gpu %d", i);
            test_curve_edges(g, &gpu, 1, label);
        }
    }
}

/* ================================================================ encodings and subgroup tests
   The endomorphism subgroup tests (mgpu_curve_on_curve, MGPU_MSM_CHECK_POINTS, the
   decoders) against r P = infinity (mgpu.h's own scalar multiplication by r, the test it
   replaced), on points in the subgroup and on random points of the curve (random x, y a
   square root: no cofactor clearing); the byte encodings (EIP-196, EIP-197, EIP-2537):
   round trips and every error; then public vectors: EIP-2537's MSM and MUL files
   (tests/vectors/eip2537) and go-ethereum's failing MSM inputs, constantine's BN254 G2
   scalar multiplications (tests/vectors/constantine), each through the decoders and an
   MSM on the CPU device and every GPU. */
static const mgpu__cv_group *tgroup(int g) { return &mgpu__cv_groups[g]; }

/* o = a^e in F_p (Montgomery), e of L limbs */
static void t_fpow(const mgpu__cv_field *f, uint64_t *o, const uint64_t *a, const uint64_t *e)
{
    uint64_t x[MGPU__CV_MAXL], b[MGPU__CV_MAXL];
    int bit;
    memcpy(b, a, sizeof b);
    memcpy(x, f->one, sizeof x);
    for (bit = 64 * f->L - 1; bit >= 0; bit--) {
        mgpu__cv_fmul(x, x, x, f);
        if ((e[bit >> 6] >> (bit & 63)) & 1) mgpu__cv_fmul(x, x, b, f);
    }
    memcpy(o, x, (size_t)f->L * sizeof *o);
}
/* a square root of a in F_p (p = 3 mod 4 for both curves: a^((p + 1) / 4)); 0 if none */
static int t_fsqrt(const mgpu__cv_field *f, uint64_t *o, const uint64_t *a)
{
    uint64_t e[MGPU__CV_MAXL], one[MGPU__CV_MAXL] = { 1 }, s[MGPU__CV_MAXL], a0[MGPU__CV_MAXL];
    int i;
    memcpy(a0, a, (size_t)f->L * sizeof *a);                 /* o may be a */
    mgpu__cv_add_raw(e, f->m, one, f->L);
    for (i = 0; i < f->L; i++) e[i] = e[i] >> 2 | (i + 1 < f->L ? e[i + 1] << 62 : 0);
    t_fpow(f, o, a0, e);
    mgpu__cv_fmul(s, o, o, f);
    return mgpu__cv_equal(s, a0, f->L);
}
/* a square root of a in the group's field (F_p or F_p2, u^2 = -1), Montgomery; 0 if none:
   for a = a0 + a1 u, n = sqrt(a0^2 + a1^2), x0 = sqrt((a0 +- n) / 2), x1 = a1 / (2 x0). */
static int t_sqrt(const mgpu__cv_group *g, uint64_t *o, const uint64_t *a)
{
    const mgpu__cv_field *f = g->p;
    const int L = g->L;
    uint64_t n[MGPU__CV_MAXL], t[MGPU__CV_MAXL], h[MGPU__CV_MAXL], x0[MGPU__CV_MAXL], chk2[MGPU__CV_MAXE];
    if (g->D == 1) return t_fsqrt(f, o, a);
    if (mgpu__cv_is_zero(a + L, L)) return 0;                /* (rare for random a: skipped) */
    mgpu__cv_fmul(n, a, a, f);
    mgpu__cv_fmul(t, a + L, a + L, f);
    mgpu__cv_fadd(n, n, t, f);
    if (!t_fsqrt(f, n, n)) return 0;
    mgpu__cv_fadd(h, f->one, f->one, f);
    mgpu__cv_finv(h, h, f);                                  /* 1 / 2 */
    mgpu__cv_fadd(t, a, n, f);
    mgpu__cv_fmul(t, t, h, f);
    if (!t_fsqrt(f, x0, t)) {
        mgpu__cv_fsub(t, a, n, f);
        mgpu__cv_fmul(t, t, h, f);
        if (!t_fsqrt(f, x0, t)) return 0;
    }
    mgpu__cv_fadd(t, x0, x0, f);
    mgpu__cv_finv(t, t, f);
    mgpu__cv_fmul(o + L, a + L, t, f);
    memcpy(o, x0, (size_t)L * sizeof *o);
    mgpu__cv_sqr(g, chk2, o);
    return mgpu__cv_equal(chk2, a, g->E);
}
/* A random point of the curve (standard form), cofactor not cleared: mostly outside the
   subgroup. */
static void t_random_curve_point(int gi, uint64_t *q)
{
    const mgpu__cv_group *g = tgroup(gi);
    const int E = g->E, L = g->L;
    uint64_t x[MGPU__CV_MAXE], rhs[MGPU__CV_MAXE], b[MGPU__CV_MAXE];
    int c, i;
    for (;;) {
        for (c = 0; c < E; c += L) {
            do {
                for (i = 0; i < L; i++) x[c + i] = rnd();
                x[c + L - 1] >>= L == 4 ? 2 : 3;
            } while (mgpu__cv_geq(x + c, g->p->m, L));
        }
        memcpy(b, g->b, sizeof b);
        mgpu__cv_convert(g, b, (size_t)E, 1);
        mgpu__cv_sqr(g, rhs, x);
        mgpu__cv_mul(g, rhs, rhs, x);
        mgpu__cv_add(g, rhs, rhs, b);
        if (!t_sqrt(g, q + E, rhs)) continue;
        memcpy(q, x, (size_t)E * sizeof *q);
        mgpu__cv_convert(g, q, 2 * (size_t)E, 0);
        return;
    }
}
/* The reference: q (standard form, on the curve) times r is infinity. */
static int t_order_r(int gi, const uint64_t *q)
{
    const mgpu__cv_group *g = tgroup(gi);
    uint64_t m[2 * MGPU__CV_MAXE];
    mgpu__cv_xyzz k;
    if (mgpu__cv_affine_is_inf(g, q)) return 1;
    memcpy(m, q, 16 * (size_t)g->E);
    mgpu__cv_convert(g, m, 2 * (size_t)g->E, 1);
    mgpu__cv_xyzz_mul(g, &k, g->r->m, m);
    return mgpu__cv_xyzz_is_inf(g, &k);
}
static double t_now(void) { return 1e-3 * mgpu__now_ms(); }   /* seconds, mgpu's monotonic clock */

static void test_curve_subgroup(int g)
{
    enum { NIN = 48, NOUT = 96 };
    const size_t E = 16 * (size_t)group_elem(g), W = E / 8;
    uint64_t *in = (uint64_t *)xmalloc(NIN * E), *out = (uint64_t *)xmalloc(NOUT * E), q[24];
    size_t i;
    int outside = 0, agree = 1, small_ok = 1;
    double t0, t_endo, t_ref;
    volatile int sink = 0;
    char timing[128];
    chk c;
    chk_init(&c);
    mgpu_curve_random_points(g, in, NIN, rnd());
    for (i = 0; i < NOUT; i++) t_random_curve_point(g, out + i * W);
    for (i = 0; i < NIN + NOUT; i++) {
        const uint64_t *p = i < NIN ? in + i * W : out + (i - NIN) * W;
        const int ref = t_order_r(g, p), got = mgpu_curve_on_curve(g, p, 0);
        uint64_t pm[24];
        memcpy(pm, p, E);
        mgpu_curve_convert_points(g, pm, 1, 1);
        if (got != ref || mgpu_curve_on_curve(g, pm, 1) != ref) {
            if (agree) chk_fail(&c, "point %zu: the endomorphism test says %d, r P = infinity says %d", i, got, ref);
            agree = 0;
        }
        if (i < NIN && !ref) chk_fail(&c, "random_points gave point %zu outside the subgroup", i);
        outside += !ref;
    }
    if (g && outside < NOUT * 9 / 10) chk_fail(&c, "only %d of %d random curve points outside the subgroup", outside, NOUT);
    if (!g && outside) chk_fail(&c, "BN254 G1 (no cofactor): %d points outside the subgroup", outside);
    if (g == MGPU_MSM_BLS12_381_G1) {       /* (0, +-2): order 3 */
        memset(q, 0, sizeof q);
        q[6] = 2;
        small_ok = !t_order_r(g, q) && !mgpu_curve_on_curve(g, q, 0);
        curve_neg(g, q, q);
        small_ok &= !t_order_r(g, q) && !mgpu_curve_on_curve(g, q, 0);
        if (!small_ok) chk_fail(&c, "(0, +-2), of order 3, is accepted");
    }
    if (g) {                                /* k P for a point P outside: k (r P) and cofactor multiples */
        for (i = 0; i < 8; i++) {
            mgpu_bn254_scalar k = sc_rand_full();
            uint64_t j[36];
            mgpu_msm_config cfg;
            memset(&cfg, 0, sizeof cfg);
            cfg.group = g;
            if (i == 0) memcpy(k.limb, group_r(g), 32);          /* r P: in the subgroup iff P's order divides r h / r */
            if (mgpu_msm_curve(&k, out + i * W, 1, 1, &cfg, j, cpu_stream) != MGPU_SUCCESS ||
                mgpu_curve_to_affine(g, j, q, 0) != MGPU_SUCCESS) { chk_fail(&c, "%s", mgpu_last_error()); break; }
            if (mgpu_curve_on_curve(g, q, 0) != t_order_r(g, q)) chk_fail(&c, "k P (%zu): the tests disagree", i);
        }
    }
    if (g && ngpu) {                        /* GPU 0's check kernel decides as r P = infinity, point by point */
        uint64_t *all = (uint64_t *)xmalloc((NIN + NOUT + 1) * E);
        mgpu_bn254_scalar one;
        mgpu_device gpu = 0;
        void *dp = NULL;
        int same = 1;
        memcpy(all, in, NIN * E);
        memcpy(all + NIN * W, out, NOUT * E);
        memset(all + (NIN + NOUT) * W, 0, E);
        if (g == MGPU_MSM_BLS12_381_G1) all[(NIN + NOUT) * W + 6] = 2;   /* (0, 2), of order 3 */
        else memcpy(all + (NIN + NOUT) * W, out, E);
        set_u64(one.limb, 1);
        if (mgpu_set_device(0) != MGPU_SUCCESS || mgpu_malloc(&dp, (NIN + NOUT + 1) * E) != MGPU_SUCCESS ||
            mgpu_memcpy(dp, all, (NIN + NOUT + 1) * E) != MGPU_SUCCESS) {
            chk_fail(&c, "gpu 0: %s", mgpu_last_error());
        } else {
            for (i = 0; i < NIN + NOUT + 1 && same; i++) {
                const int ref = t_order_r(g, all + i * W);
                const mgpu_result r = curve_msm(g, &gpu, 1, &one, (const uint64_t *)dp + i * W, 1, MGPU_MSM_CHECK_POINTS, 0, q);
                if (r != (ref ? MGPU_SUCCESS : MGPU_ERROR_NOT_IN_SUBGROUP)) {
                    chk_fail(&c, "gpu 0, point %zu: CHECK_POINTS says %s, r P = infinity says %d", i, mgpu_result_string(r), ref);
                    same = 0;
                }
            }
        }
        mgpu_free(dp);
        free(all);
    }
    /* time per point: the endomorphism test and r P (the same points, in and outside) */
    t0 = t_now();
    for (i = 0; i < NIN + NOUT; i++) sink += mgpu_curve_on_curve(g, i < NIN ? in + i * W : out + (i - NIN) * W, 0);
    t_endo = (t_now() - t0) / (NIN + NOUT);
    t0 = t_now();
    for (i = 0; i < NIN + NOUT; i++) sink += t_order_r(g, i < NIN ? in + i * W : out + (i - NIN) * W);
    t_ref = (t_now() - t0) / (NIN + NOUT);
    (void)sink;
    if (g) snprintf(timing, sizeof timing, "; host time per point %.1f us (r P: %.1f us, %.2fx)", 1e6 * t_endo, 1e6 * t_ref,
                    t_ref / t_endo);
    else snprintf(timing, sizeof timing, " (no cofactor: the curve equation is the test)");
    report(c.good, "[curves] %s: subgroup test = (r P = infinity) on %d points of the subgroup, %d random points of the "
           "curve (%d outside)%s%s%s%s%s", group_names[g], NIN, NOUT, outside, g == MGPU_MSM_BLS12_381_G1 ? ", (0, +-2)" : "",
           g && ngpu ? ", the same decisions by GPU 0's CHECK_POINTS kernel" : "", timing, SEP(c));
    free(in);
    free(out);
}

/* The test's own reading of an encoding word: W big-endian bytes -> L limbs. */
static void t_word_limbs(const unsigned char *w, size_t W, int L, uint64_t *o)
{
    int i, j;
    for (i = 0; i < L; i++) {
        uint64_t v = 0;
        for (j = 0; j < 8; j++) v = v << 8 | w[W - 8 * (size_t)(i + 1) + (size_t)j];
        o[i] = v;
    }
}
static void test_curve_encodings(int g)
{
    const size_t E = 16 * (size_t)group_elem(g), W = E / 8, len = mgpu_curve_encoded_bytes(g);
    const size_t word = g < 2 ? 32 : 64, pad = word - 8 * (size_t)group_limbs(g), pair = len + 32;
    const int L = group_limbs(g), words = len / word;
    const uint64_t *pm = L == 4 ? P_MOD : P_BLS;
    uint64_t P[5 * 24], q[24], canary[24], off[24], j[36];
    unsigned char b[256], b2[256], in[5 * 288];
    mgpu_bn254_scalar ks[5], ks2[5];
    size_t i, n;
    int w;
    mgpu_result r;
    chk c;
    chk_init(&c);
    mgpu_curve_random_points(g, P, 4, rnd());
    memset(P + 4 * W, 0, E);                                     /* and infinity */
    memset(canary, 0xa5, sizeof canary);
    if (len != (size_t)(g == 0 ? 64 : g == 3 ? 256 : 128)) chk_fail(&c, "mgpu_curve_encoded_bytes = %zu", len);
    for (i = 0; i < 5; i++) {                                    /* round trips, the layout */
        if (mgpu_curve_point_to_bytes(g, P + i * W, b, len) != MGPU_SUCCESS) { chk_fail(&c, "to_bytes: %s", mgpu_last_error()); continue; }
        for (w = 0; w < words; w++) {
            const int comp = g == MGPU_MSM_BN254_G2 ? w ^ 1 : w;   /* EIP-197: c1 first */
            uint64_t limbs[6];
            size_t z;
            for (z = 0; z < pad; z++) if (b[(size_t)w * word + z]) chk_fail(&c, "padding of word %d not zero", w);
            t_word_limbs(b + (size_t)w * word, word, L, limbs);
            if (memcmp(limbs, P + i * W + (size_t)comp * L, 8 * (size_t)L)) chk_fail(&c, "point %zu word %d: wrong layout", i, w);
        }
        memcpy(q, canary, sizeof q);
        if (mgpu_curve_point_from_bytes(g, b, len, q) != MGPU_SUCCESS || memcmp(q, P + i * W, E))
            chk_fail(&c, "point %zu: from_bytes(to_bytes) differs: %s", i, mgpu_last_error());
        if (g == 0) {
            mgpu_bn254_affine a;
            mgpu_bn254_point_to_bytes((const mgpu_bn254_affine *)(const void *)(P + i * W), b2);
            if (memcmp(b, b2, 64) || mgpu_bn254_point_from_bytes(b2, &a) != MGPU_SUCCESS || memcmp(&a, P + i * W, 64))
                chk_fail(&c, "EIP-196: mgpu_bn254_point_* differ from mgpu_curve_point_*");
        }
    }
    memset(b2, 0, sizeof b2);
    if (mgpu_curve_point_to_bytes(g, P + 4 * W, b, len) != MGPU_SUCCESS || memcmp(b, b2, len))
        chk_fail(&c, "infinity is not %zu zero bytes", len);
    /* errors: each its status, the output untouched */
#define EXPECT_DEC(bytes_, len_, want, what) do { \
        memcpy(q, canary, sizeof q); r = mgpu_curve_point_from_bytes(g, bytes_, len_, q); \
        if (r != (want) || memcmp(q, canary, sizeof q) || (r != MGPU_SUCCESS && !*mgpu_last_error())) \
            chk_fail(&c, "%s: %s (%s)", what, mgpu_result_string(r), mgpu_last_error()); } while (0)
    mgpu_curve_point_to_bytes(g, P, b, len);
    memcpy(q, canary, sizeof q);
    r = mgpu_curve_point_from_bytes(g, b, len - 1, q);
    if (r != MGPU_ERROR_BAD_LENGTH || memcmp(q, canary, sizeof q)) chk_fail(&c, "len - 1: %s", mgpu_result_string(r));
    EXPECT_DEC(b, len + 1, MGPU_ERROR_BAD_LENGTH, "len + 1");
    EXPECT_DEC(b, 0, MGPU_ERROR_BAD_LENGTH, "len 0");
    EXPECT_DEC(NULL, len, MGPU_ERROR_INVALID_ARGUMENT, "NULL bytes");
    r = mgpu_curve_point_from_bytes(g, b, len, NULL);
    if (r != MGPU_ERROR_INVALID_ARGUMENT) chk_fail(&c, "NULL p: %s", mgpu_result_string(r));
    r = mgpu_curve_point_from_bytes(4, b, len, q);
    if (r != MGPU_ERROR_INVALID_ARGUMENT || mgpu_curve_encoded_bytes(4) != 0 || mgpu_curve_encoded_bytes(-1) != 0)
        chk_fail(&c, "group 4: %s", mgpu_result_string(r));
    for (w = 0; w < words; w++) {
        char what[64];
        unsigned char *wd = b2 + (size_t)w * word;
        int z;
        if (pad) {                                               /* a bit of the padding, at each end */
            for (z = 0; z < 2; z++) {
                memcpy(b2, b, len);
                wd[z ? pad - 1 : 0] |= z ? 0x01 : 0x80;
                snprintf(what, sizeof what, "padding of word %d", w);
                EXPECT_DEC(b2, len, MGPU_ERROR_BAD_PADDING, what);
                if (r == MGPU_ERROR_BAD_PADDING && !strstr(mgpu_last_error(), "top 16 bytes")) chk_fail(&c, "message: %s", mgpu_last_error());
            }
            memset(b2, 0, len);                                  /* infinity with a padding bit */
            b2[(size_t)w * word + 3] = 1;
            EXPECT_DEC(b2, len, MGPU_ERROR_BAD_PADDING, "zeros but a padding bit");
        }
        for (z = 0; z < 3; z++) {                                /* p, p + 1, 2^(8 (W - pad)) - 1 */
            uint64_t v[6];
            int k2;
            memcpy(b2, b, len);
            memcpy(v, pm, 8 * (size_t)L);
            if (z == 1) v[0] += 1;
            if (z == 2) for (k2 = 0; k2 < L; k2++) v[k2] = ~0ull;
            for (k2 = 0; k2 < L; k2++) {
                int byte;
                for (byte = 0; byte < 8; byte++) wd[word - 8 * (size_t)(k2 + 1) + (size_t)byte] = (unsigned char)(v[k2] >> (56 - 8 * byte));
            }
            snprintf(what, sizeof what, "word %d = %s", w, z == 0 ? "p" : z == 1 ? "p + 1" : "all ones");
            EXPECT_DEC(b2, len, MGPU_ERROR_NOT_IN_FIELD, what);
            if (r == MGPU_ERROR_NOT_IN_FIELD && !strstr(mgpu_last_error(), ">= p")) chk_fail(&c, "message: %s", mgpu_last_error());
        }
        if (pad) {                                               /* padding is checked before the value */
            memcpy(b2, b, len);
            memset(wd + pad, 0xff, word - pad);
            wd[1] = 1;
            EXPECT_DEC(b2, len, MGPU_ERROR_BAD_PADDING, "padding and >= p");
        }
        memcpy(b2, b, len);                                      /* off the curve */
        wd[word - 1] ^= 1;
        EXPECT_DEC(b2, len, MGPU_ERROR_NOT_ON_CURVE, "a bit of a word flipped");
    }
    memset(b2, 0, len);                                          /* (0, 1): off every curve */
    b2[len - 1] = 1;
    EXPECT_DEC(b2, len, MGPU_ERROR_NOT_ON_CURVE, "(0, 1)");
    if (g) {
        do t_random_curve_point(g, off); while (t_order_r(g, off));
        mgpu_curve_point_to_bytes(g, off, b2, len);
        EXPECT_DEC(b2, len, MGPU_ERROR_NOT_IN_SUBGROUP, "outside the subgroup");
        if (r == MGPU_ERROR_NOT_IN_SUBGROUP && !strstr(mgpu_last_error(), "subgroup")) chk_fail(&c, "message: %s", mgpu_last_error());
    }
    /* to_bytes: a coordinate >= p, lengths, NULL */
    memcpy(q, P, E);
    memcpy(q + W / 2, pm, 8 * (size_t)L);                        /* y (.c0) = p */
    memset(b2, 0x5a, sizeof b2);
    memcpy(in, b2, sizeof b2);
    r = mgpu_curve_point_to_bytes(g, q, b2, len);
    if (r != MGPU_ERROR_NOT_IN_FIELD || memcmp(in, b2, sizeof b2)) chk_fail(&c, "to_bytes of y = p: %s", mgpu_result_string(r));
    if (mgpu_curve_point_to_bytes(g, P, b2, len + 1) != MGPU_ERROR_BAD_LENGTH || memcmp(in, b2, sizeof b2) ||
        mgpu_curve_point_to_bytes(g, NULL, b2, len) != MGPU_ERROR_INVALID_ARGUMENT ||
        mgpu_curve_point_to_bytes(g, P, NULL, len) != MGPU_ERROR_INVALID_ARGUMENT)
        chk_fail(&c, "to_bytes: bad length or NULL not refused");
    /* result_to_bytes: an MSM result in both forms */
    for (w = 0; w < 2; w++) {
        mgpu_msm_config cfg;
        memset(&cfg, 0, sizeof cfg);
        cfg.group = g;
        cfg.flags = w ? MGPU_MSM_RESULT_MONTGOMERY : 0;
        ks[0] = sc_rand_mod(); ks[1] = sc_rand_mod();
        if (mgpu_msm_curve(ks, P, 2, 1, &cfg, j, cpu_stream) != MGPU_SUCCESS || mgpu_curve_to_affine(g, j, q, w) != MGPU_SUCCESS) {
            chk_fail(&c, "%s", mgpu_last_error());
            continue;
        }
        if (w) mgpu_curve_convert_points(g, q, 1, 0);
        mgpu_curve_point_to_bytes(g, q, b, len);
        if (mgpu_curve_result_to_bytes(g, j, w, b2, len) != MGPU_SUCCESS || memcmp(b, b2, len))
            chk_fail(&c, "result_to_bytes (montgomery %d) differs from to_affine + to_bytes", w);
    }
    if (mgpu_curve_result_to_bytes(g, j, 0, b2, len - 1) != MGPU_ERROR_BAD_LENGTH) chk_fail(&c, "result_to_bytes: bad length");
    /* scalars */
    ks[0] = sc_rand_full();
    mgpu_bn254_scalar_to_bytes(&ks[0], b);
    mgpu_bn254_scalar_from_bytes(b, &ks2[0]);
    if (memcmp(&ks[0], &ks2[0], 32) || b[31] != (unsigned char)ks[0].limb[0] || b[0] != (unsigned char)(ks[0].limb[3] >> 56))
        chk_fail(&c, "scalar bytes: not big-endian or no round trip");
    /* MSM input: 5 pairs (the last point infinity) */
    for (i = 0; i < 5; i++) {
        ks[i] = sc_rand_full();
        mgpu_curve_point_to_bytes(g, P + i * W, in + i * pair, len);
        mgpu_bn254_scalar_to_bytes(&ks[i], in + i * pair + len);
    }
    {
        uint64_t pts[5 * 24], pcan[5 * 24];
        mgpu_bn254_scalar scan[5];
        memset(pcan, 0x3c, sizeof pcan);
        memset(scan, 0x3c, sizeof scan);
#define EXPECT_MSM(bytes_, len_, max_, want, what) do { \
        memcpy(pts, pcan, sizeof pts); memcpy(ks2, scan, sizeof ks2); n = 77; \
        r = mgpu_curve_msm_from_bytes(g, bytes_, len_, ks2, pts, max_, &n); \
        if (r != (want) || (r != MGPU_SUCCESS && (memcmp(pts, pcan, sizeof pts) || memcmp(ks2, scan, sizeof ks2) || n != 77))) \
            chk_fail(&c, "msm_from_bytes %s: %s (%s)", what, mgpu_result_string(r), mgpu_last_error()); } while (0)
        EXPECT_MSM(in, 5 * pair, 5, MGPU_SUCCESS, "5 pairs");
        if (r == MGPU_SUCCESS && (n != 5 || memcmp(pts, P, 5 * E) || memcmp(ks2, ks, sizeof ks)))
            chk_fail(&c, "msm_from_bytes: wrong points, scalars or n");
        EXPECT_MSM(in, 5 * pair, 4, MGPU_ERROR_INVALID_ARGUMENT, "max_n 4");
        EXPECT_MSM(in, 0, 5, MGPU_ERROR_BAD_LENGTH, "len 0");
        EXPECT_MSM(in, 5 * pair - 1, 5, MGPU_ERROR_BAD_LENGTH, "a byte short");
        EXPECT_MSM(in, pair + 1, 5, MGPU_ERROR_BAD_LENGTH, "a byte long");
        EXPECT_MSM(in, len, 5, MGPU_ERROR_BAD_LENGTH, "a point without its scalar");
        in[2 * pair + len - 1] ^= 1;                             /* pair 2 off the curve */
        EXPECT_MSM(in, 5 * pair, 5, MGPU_ERROR_NOT_ON_CURVE, "pair 2 off the curve");
        if (r == MGPU_ERROR_NOT_ON_CURVE && !strstr(mgpu_last_error(), "pair 2")) chk_fail(&c, "message: %s", mgpu_last_error());
        in[2 * pair + len - 1] ^= 1;
        if (pad) {
            in[3 * pair] = 1;
            EXPECT_MSM(in, 5 * pair, 5, MGPU_ERROR_BAD_PADDING, "pair 3 padding");
            in[3 * pair] = 0;
        }
        if (g) {
            mgpu_curve_point_to_bytes(g, off, in + 4 * pair, len);
            EXPECT_MSM(in, 5 * pair, 5, MGPU_ERROR_NOT_IN_SUBGROUP, "pair 4 outside the subgroup");
        }
        r = mgpu_curve_msm_from_bytes(g, in, pair, NULL, pts, 5, &n);
        if (r != MGPU_ERROR_INVALID_ARGUMENT) chk_fail(&c, "msm_from_bytes NULL scalars: %s", mgpu_result_string(r));
#undef EXPECT_MSM
    }
#undef EXPECT_DEC
    report(c.good, "[curves] %s: encoding (%zu bytes, %s): round trips and layout, infinity; BAD_LENGTH, BAD_PADDING, "
           "NOT_IN_FIELD, NOT_ON_CURVE%s, nothing written; to_bytes, result_to_bytes, scalars; MSM input%s%s",
           group_names[g], len, g == 0 ? "EIP-196" : g == 1 ? "EIP-197" : "EIP-2537", g ? ", NOT_IN_SUBGROUP" : "", SEP(c));
}

/* ---- public vectors */
typedef struct jvec { char name[96], err[96]; unsigned char *in, *out; size_t inlen, outlen; } jvec;
static int hex_bytes(const char *h, size_t hl, unsigned char **out, size_t *n)
{
    size_t i;
    if (hl % 2) return -1;
    *out = (unsigned char *)xmalloc(hl / 2 + 1);
    *n = hl / 2;
    for (i = 0; i < hl / 2; i++) {
        int hi = hexval(h[2 * i]), lo = hexval(h[2 * i + 1]);
        if (hi < 0 || lo < 0) return -1;
        (*out)[i] = (unsigned char)(hi << 4 | lo);
    }
    return 0;
}
/* A JSON list of flat objects {"Input", "Expected" or "ExpectedError", "Name", ...}; the
   count, or -1 for a malformed or missing file. */
static void free_jvecs(jvec *v, int n);
static int load_jvecs(const char *rel, jvec **out)
{
    char path[4200];
    unsigned char *text;
    size_t len;
    char *pos;
    int count = 0, cap = 0, bad = 0;
    *out = NULL;
    snprintf(path, sizeof path, "%s/%s", vec_dir, rel);
    if (read_file(path, &text, &len) != 0) return -1;
    pos = (char *)text;
    while (!bad) {
        char *obj = strchr(pos, '{'), *end;
        const char *p, *v;
        size_t vl;
        jvec *x;
        if (!obj) break;
        if (!(end = strchr(obj, '}'))) { bad = 1; break; }
        *end = 0;
        if (count == cap) {
            jvec *nv = (jvec *)realloc(*out, (size_t)(cap = cap ? 2 * cap : 64) * sizeof *nv);
            if (!nv) { bad = 1; break; }
            *out = nv;
        }
        x = &(*out)[count++];
        memset(x, 0, sizeof *x);
        p = obj;
        if (json_string(obj, &p, "Input", &v, &vl) != 0 || hex_bytes(v, vl, &x->in, &x->inlen) != 0) bad = 1;
        p = obj;
        if (json_string(obj, &p, "Name", &v, &vl) != 0) bad = 1;
        else snprintf(x->name, sizeof x->name, "%.*s", (int)(vl < 95 ? vl : 95), v);
        p = obj;
        if (json_string(obj, &p, "ExpectedError", &v, &vl) == 0) snprintf(x->err, sizeof x->err, "%.*s", (int)(vl < 95 ? vl : 95), v);
        else if (p = obj, json_string(obj, &p, "Expected", &v, &vl) != 0 || hex_bytes(v, vl, &x->out, &x->outlen) != 0) bad = 1;
        pos = end + 1;
    }
    free(text);
    if (bad) { free_jvecs(*out, count); *out = NULL; return -1; }
    return count;
}
static void free_jvecs(jvec *v, int n)
{
    int i;
    for (i = 0; i < n; i++) { free(v[i].in); free(v[i].out); }
    free(v);
}
/* go-ethereum's error text -> mgpu's status */
static mgpu_result expected_status(const char *err)
{
    if (!strcmp(err, "invalid input length")) return MGPU_ERROR_BAD_LENGTH;
    if (!strcmp(err, "invalid fp.Element encoding")) return MGPU_ERROR_NOT_IN_FIELD;
    if (!strcmp(err, "invalid field element top bytes")) return MGPU_ERROR_BAD_PADDING;
    if (!strcmp(err, "invalid point: not on curve")) return MGPU_ERROR_NOT_ON_CURVE;
    if (strstr(err, "correct subgroup")) return MGPU_ERROR_NOT_IN_SUBGROUP;
    return MGPU_SUCCESS;                                         /* unknown: a failure below */
}
/* One precompile input: decoded, then an MSM on every test device (results encoded and
   compared with want); or the expected failure, nothing written. */
static void run_precompile(chk *c, int g, const jvec *x, int on_gpus)
{
    const size_t E = 16 * (size_t)group_elem(g), len = mgpu_curve_encoded_bytes(g);
    const size_t cap = x->inlen / (len + 32) + 1;
    mgpu_bn254_scalar *s = (mgpu_bn254_scalar *)xmalloc(cap * 32);
    uint64_t *p = (uint64_t *)xmalloc(cap * E), j[36], q[24];
    unsigned char got[256];
    size_t n = 0, d;
    mgpu_result r;
    memset(p, 0x77, cap * E);
    r = mgpu_curve_msm_from_bytes(g, x->in, x->inlen, s, p, cap, &n);
    if (x->err[0]) {
        const mgpu_result want = expected_status(x->err);
        size_t b;
        int untouched = 1;
        for (b = 0; b < cap * E; b++) untouched &= ((unsigned char *)p)[b] == 0x77;
        if (want == MGPU_SUCCESS) chk_fail(c, "%s: unknown expected error \"%s\"", x->name, x->err);
        else if (r != want || !untouched || n != 0)
            chk_fail(c, "%s: %s (%s), expected %s (\"%s\")%s", x->name, mgpu_result_string(r), mgpu_last_error(),
                     mgpu_result_string(want), x->err, untouched ? "" : ", points written");
    } else if (r != MGPU_SUCCESS) {
        chk_fail(c, "%s: %s (%s)", x->name, mgpu_result_string(r), mgpu_last_error());
    } else if (x->outlen != len || mgpu_curve_point_from_bytes(g, x->out, x->outlen, q) != MGPU_SUCCESS ||
               mgpu_curve_point_to_bytes(g, q, got, len) != MGPU_SUCCESS || memcmp(got, x->out, len)) {
        chk_fail(c, "%s: the expected result (%zu bytes) does not decode and encode back: %s", x->name, x->outlen, mgpu_last_error());
    } else {
        for (d = 0; d < (size_t)(on_gpus ? ntdev : 1); d++) {
            mgpu_msm_config cfg;
            mgpu_stream st = NULL;
            memset(&cfg, 0, sizeof cfg);
            cfg.group = g;
            cfg.flags = MGPU_MSM_CHECK_POINTS;
            r = mgpu_default_stream(tdevs[d].dev, &st);
            if (r == MGPU_SUCCESS) r = mgpu_msm_curve(s, p, n, 1, &cfg, j, st);
            if (r == MGPU_SUCCESS) r = mgpu_curve_result_to_bytes(g, j, 0, got, len);
            if (r != MGPU_SUCCESS) chk_fail(c, "%s on %s: %s (%s)", x->name, tdevs[d].label, mgpu_result_string(r), mgpu_last_error());
            else if (memcmp(got, x->out, len)) chk_fail(c, "%s on %s: wrong result", x->name, tdevs[d].label);
        }
    }
    free(s);
    free(p);
}
static void test_eip2537_vectors(void)
{
    static const struct { const char *file; int group, want, fails; } files[] = {
        { "eip2537/msm_G1_bls.json", MGPU_MSM_BLS12_381_G1, 163, 0 },
        { "eip2537/multiexp_G2_bls.json", MGPU_MSM_BLS12_381_G2, 14, 0 },
        { "eip2537/mul_G1_bls.json", MGPU_MSM_BLS12_381_G1, 11, 0 },
        { "eip2537/mul_G2_bls.json", MGPU_MSM_BLS12_381_G2, 11, 0 },
        { "eip2537/fail-msm_G1_bls.json", MGPU_MSM_BLS12_381_G1, 8, 1 },
        { "eip2537/fail-msm_G2_bls.json", MGPU_MSM_BLS12_381_G2, 8, 1 },
        { "eip2537/fail-mul_G1_bls.json", MGPU_MSM_BLS12_381_G1, 8, 1 },
        { "eip2537/fail-mul_G2_bls.json", MGPU_MSM_BLS12_381_G2, 8, 1 },
        { "ethereum/blsG2MultiExp.json", MGPU_MSM_BLS12_381_G2, 153, 0 },
        { "ethereum/fail-blsG1MultiExp.json", MGPU_MSM_BLS12_381_G1, 7, 1 },
        { "ethereum/fail-blsG2MultiExp.json", MGPU_MSM_BLS12_381_G2, 7, 1 } };
    size_t f;
    for (f = 0; f < sizeof files / sizeof files[0]; f++) {
        jvec *v = NULL;
        const int n = load_jvecs(files[f].file, &v);
        int i, gpu_cases = 0;
        size_t pairs = 0;
        chk c;
        chk_init(&c);
        if (n != files[f].want) chk_fail(&c, "%d vectors read (%d expected)", n, files[f].want);
        for (i = 0; i < n; i++) {
            const int on_gpus = !quick || i < 14 || i % 16 == 0;   /* the emulator: every small case, some large */
            if (!!v[i].err[0] != files[f].fails) chk_fail(&c, "%s: %s", v[i].name, files[f].fails ? "no ExpectedError" : "an ExpectedError");
            run_precompile(&c, files[f].group, &v[i], on_gpus);
            gpu_cases += on_gpus;
            pairs += v[i].inlen / (mgpu_curve_encoded_bytes(files[f].group) + 32);
        }
        report(c.good, "[curves] %s: %d %s (%zu pairs) through mgpu_curve_msm_from_bytes%s%s%s%s", files[f].file, n > 0 ? n : 0,
               files[f].fails ? "failing inputs" : "MSMs", pairs,
               files[f].fails ? ", each its status, nothing written" : ", on the CPU device",
               files[f].fails || !ngpu ? "" : gpu_cases == n ? " and every GPU" : " and every GPU (the small ones, every 16th)",
               SEP(c));
        free_jvecs(v, n > 0 ? n : 0);
    }
}
/* constantine's "0x..." -> W big-endian bytes */
static int hex_word(const char *h, size_t hl, unsigned char *o, size_t W)
{
    size_t i;
    if (hl < 3 || h[0] != '0' || h[1] != 'x' || hl - 2 > 2 * W) return -1;
    memset(o, 0, W);
    for (i = 0; i < hl - 2; i++) {
        const int v = hexval(h[hl - 1 - i]);
        if (v < 0) return -1;
        o[W - 1 - i / 2] |= (unsigned char)(i % 2 ? v << 4 : v);
    }
    return 0;
}
/* A point of constantine's JSON (x: c0, c1; y: c0, c1) as EIP-197 bytes (c1 first). */
static int constantine_point(const char **pos, unsigned char *b)
{
    static const int word_of[4] = { 1, 0, 3, 2 };
    int k;
    for (k = 0; k < 4; k++) {
        const char *v;
        size_t vl;
        if (json_string(NULL, pos, k % 2 ? "c1" : "c0", &v, &vl) != 0 || hex_word(v, vl, b + 32 * word_of[k], 32) != 0) return -1;
    }
    return 0;
}
static void test_constantine_vectors(void)
{
    static const char *const bits[4] = { "32bit", "64bit", "128bit", "254bit" };
    int f, total = 0, gpu_cases = 0;
    chk c;
    chk_init(&c);
    for (f = 0; f < 4; f++) {
        char path[4200];
        unsigned char *text, in[160], out[128];
        size_t len;
        const char *pos;
        int count = 0;
        snprintf(path, sizeof path, "%s/constantine/tv_BN254_Snarks_scalar_mul_G2_%s.json", vec_dir, bits[f]);
        if (read_file(path, &text, &len) != 0 || !(pos = strstr((const char *)text, "\"vectors\""))) {
            chk_fail(&c, "cannot read %s", path);
            free(text);
            continue;
        }
        for (;;) {
            const char *v, *save = pos;
            size_t vl;
            jvec x;
            if (!(pos = strstr(pos, "\"P\""))) break;
            if (constantine_point(&pos, in) != 0 || json_string(NULL, &pos, "scalar", &v, &vl) != 0 ||
                hex_word(v, vl, in + 128, 32) != 0 || !(pos = strstr(pos, "\"Q\"")) || constantine_point(&pos, out) != 0) {
                chk_fail(&c, "%s: vector %d malformed", bits[f], count);
                break;
            }
            memset(&x, 0, sizeof x);
            snprintf(x.name, sizeof x.name, "%s vector %d", bits[f], count);
            x.in = in; x.inlen = 160; x.out = out; x.outlen = 128;
            run_precompile(&c, MGPU_MSM_BN254_G2, &x, !quick || count < 4);
            gpu_cases += !quick || count < 4;
            count++;
            (void)save;
        }
        if (count != 40) chk_fail(&c, "%s: %d vectors (40 expected)", bits[f], count);
        total += count;
        free(text);
    }
    report(c.good, "[curves] constantine's BN254 G2 scalar multiplications (32, 64, 128, 254-bit scalars): %d, each as EIP-197 "
           "bytes through mgpu_curve_msm_from_bytes, on the CPU device%s%s%s", total,
           !ngpu ? "" : gpu_cases == total ? " and every GPU" : " and every GPU (the first 4 of each file)", SEP(c));
}

/* Precomputed bases in group g (mgpu_msm_curve_precompute_bases): on the CPU device for
   factors 2..64 (from 37 points on 2..9, 16, 31, 33 and 64; from 301 2, 3, 5 and 64: the
   host's precomputation doubles each point 256 times per factor), on every GPU for a few, each MSM over the bases equal to the plain MSM; the
   GPU's bases byte for byte the CPU device's; the documented layout (bases[n + i] =
   2^(w c) P_i); both Montgomery flags; a batch within a max_memory that forces pieces; the
   split over 2 GPUs (over 2 CPU devices without GPUs). */
static int pre_case(chk *c, int g, mgpu_device dev, const mgpu_bn254_scalar *k, const void *p, size_t n,
                    unsigned flags, int f, int window, size_t max_memory, const uint64_t *want, void *bases_out)
{
    const size_t E = mgpu_msm_point_bytes(g);
    const int gpu = dev >= 0 && dev < ngpu && dev != cpus[0];
    mgpu_msm_config cfg;
    mgpu_stream st = NULL;
    uint64_t res[36], got[24];
    void *bases = NULL;
    mgpu_result r;
    int ok = 1;
    memset(&cfg, 0, sizeof cfg);
    cfg.group = g;
    cfg.flags = flags;
    cfg.precompute_factor = f;
    cfg.window_bits = window;
    cfg.max_memory = max_memory;
    r = mgpu_default_stream(dev, &st);
    if (gpu) { mgpu_set_device(dev); if (r == MGPU_SUCCESS) r = mgpu_malloc(&bases, (size_t)f * n * E); }
    else bases = xmalloc((size_t)f * n * E);
    if (r == MGPU_SUCCESS) r = mgpu_msm_curve_precompute_bases(p, n, &cfg, bases, st);
    if (r == MGPU_SUCCESS) r = mgpu_msm_curve(k, bases, n, 1, &cfg, res, st);
    if (r == MGPU_SUCCESS) r = mgpu_curve_to_affine(g, res, got, (flags & MGPU_MSM_RESULT_MONTGOMERY) != 0);
    if (r != MGPU_SUCCESS) {
        chk_fail(c, "%s n = %zu f = %d c = %d: %s", gpu ? "gpu" : "cpu", n, f, window, mgpu_last_error());
        ok = 0;
    } else if (memcmp(got, want, E)) {
        chk_fail(c, "%s n = %zu f = %d c = %d flags %u: the MSM over the bases differs from the plain MSM", gpu ? "gpu" : "cpu",
                 n, f, window, flags);
        ok = 0;
    }
    if (bases_out && ok) {
        if (gpu) ok = mgpu_memcpy(bases_out, bases, (size_t)f * n * E) == MGPU_SUCCESS;
        else memcpy(bases_out, bases, (size_t)f * n * E);
    }
    if (gpu) mgpu_free(bases); else free(bases);
    return ok;
}

/* A max_memory that makes the GPU take count MSMs of n points in pieces (half of what one
   piece needs; checked with the host code's own layout), or 0 if none does. */
static size_t pieces_memory2(const mgpu_msm_config *config, size_t n, int count, const void *k, const void *p,
                             const void *p2, mgpu_device dev)
{
    mgpu__msm_plan plan;
    mgpu__msm_shape sh;
    mgpu__msm_input sc = mgpu__msm_where(k, dev), pt = mgpu__msm_where(p, dev), pt2;
    mgpu_msm_config cfg = *config;
    size_t cap = 0;
    int pass;
    if (p2) pt2 = mgpu__msm_where(p2, dev);
    cfg.max_memory = 0;
    for (pass = 0; pass < 2; pass++) {
        if (mgpu__msm_plan_make("test", &cfg, n, &plan) != MGPU_SUCCESS) return 0;
        if (p2) { plan.pair = plan.group & ~1; plan.group = plan.pair + 1; }   /* as mgpu_msm_pair: p is G2's */
        plan.max_memory = cap;
        if (mgpu__msm_shape_make("test", &plan, n, count, &sc, &pt, p2 ? &pt2 : NULL, dev, &sh) != MGPU_SUCCESS) return 0;
        if (pass == 0 && sh.pieces != 1) return 0;
        if (pass == 1 && sh.pieces < 2) return 0;
        cap = sh.bytes / 2;
    }
    return plan.max_memory;
}
static size_t pieces_memory(const mgpu_msm_config *config, size_t n, int count, const void *k, const void *p, mgpu_device dev)
{
    return pieces_memory2(config, n, count, k, p, NULL, dev);
}

static void test_curve_precompute(int g)
{
    static const size_t sizes[] = { 1, 3, 37, 301 };   /* (the host's precomputation doubles 256 times a point) */
    const size_t E = mgpu_msm_point_bytes(g), nsz = 4;
    const int rbits = g < 2 ? 254 : 255;
    const unsigned mont = MGPU_MSM_POINTS_MONTGOMERY | MGPU_MSM_SCALARS_MONTGOMERY;
    size_t z;
    int f, i;
    chk c;
    chk_init(&c);
    for (z = 0; z < nsz; z++) {
        const size_t n = sizes[z];
        mgpu_bn254_scalar *k = make_scalars(n, 1), *km = (mgpu_bn254_scalar *)xmalloc(n * 32);
        uint64_t *p = (uint64_t *)xmalloc(n * E), *pm = (uint64_t *)xmalloc(n * E), want[24], wm[24];
        unsigned char *cb = (unsigned char *)xmalloc(64 * n * E), *gb = (unsigned char *)xmalloc(64 * n * E);
        mgpu_curve_random_points(g, p, n, rnd());
        memcpy(km, k, n * 32);
        memcpy(pm, p, n * E);
        mgpu_curve_convert_scalars(g, km, n, 1);
        mgpu_curve_convert_points(g, pm, n, 1);
        if (curve_msm(g, cpus, 1, k, p, n, 0, 0, want) != MGPU_SUCCESS) chk_fail(&c, "plain: %s", mgpu_last_error());
        memcpy(wm, want, E);
        mgpu_curve_convert_points(g, wm, 1, 1);
        for (f = 2; f <= MGPU_MSM_MAX_PRECOMPUTE; f++) {
            const int window = n > 100 && f % 3 == 0 ? 0 : 3 + f % 7;   /* c chosen by mgpu, or 3..9 */
            if (n > 100 && f != 2 && f != 3 && f != 5 && f != MGPU_MSM_MAX_PRECOMPUTE) continue;   /* (time) */
            if (n > 3 && f > 9 && f != 16 && f != 31 && f != 33 && f != MGPU_MSM_MAX_PRECOMPUTE) continue;
            if (!pre_case(&c, g, cpus[0], k, p, n, 0, f, window, 0, want, f <= 5 || f == MGPU_MSM_MAX_PRECOMPUTE ? cb : NULL))
                continue;
            /* the layout: bases[n] = 2^(w c) P_0 (w = ceil(ceil((rbits + 1) / c) / f)) */
            if (f == 2 || f == 5) {
                const int cc = window ? window : mgpu_msm_curve_window_bits(g, n, f);
                const int w = ((rbits + 1 + cc - 1) / cc + f - 1) / f, bit = w * cc;
                mgpu_bn254_scalar two;
                uint64_t t[24];
                memset(&two, 0, sizeof two);
                two.limb[bit / 64] = 1ull << (bit % 64);
                if (bit < 256 && (curve_msm(g, cpus, 1, &two, p, 1, 0, 0, t) != MGPU_SUCCESS || memcmp(t, cb + n * E, E)))
                    chk_fail(&c, "cpu n = %zu f = %d: bases[n] is not 2^%d P_0", n, f, bit);
            }
            for (i = 0; i < ngpu && (f <= 4 || f == 7 || (f == MGPU_MSM_MAX_PRECOMPUTE && n < 100)); i++) {
                if (quick && ((f > 3 && n > 3) || n > 100)) continue;
                if (pre_case(&c, g, i, k, p, n, 0, f, window, 0, want, gb) && f <= 5 && memcmp(gb, cb, (size_t)f * n * E))
                    chk_fail(&c, "gpu %d n = %zu f = %d: bases differ from the CPU device's", i, n, f);
                if (f == MGPU_MSM_MAX_PRECOMPUTE && memcmp(gb, cb, (size_t)f * n * E))
                    chk_fail(&c, "gpu %d n = %zu f = %d: bases differ from the CPU device's", i, n, f);
            }
        }
        /* Montgomery points and scalars (results in both forms) */
        for (i = -1; i < (quick && n > 100 ? 0 : ngpu); i++) {
            const mgpu_device dev = i < 0 ? cpus[0] : i;
            pre_case(&c, g, dev, km, pm, n, mont, 3, 0, 0, want, NULL);
            pre_case(&c, g, dev, km, pm, n, mont | MGPU_MSM_RESULT_MONTGOMERY, 2, 5, 0, wm, NULL);
        }
        if (z == nsz - 1) {
            /* a batch of 2 with shared bases, max_memory forcing pieces, and the split over 2 devices */
            const mgpu_device two_cpu[2] = { cpus[0], cpus[1] }, two_gpu[2] = { 0, 1 };
            const mgpu_device *two = ngpu > 1 ? two_gpu : two_cpu;
            mgpu_msm_config cfg;
            mgpu_bn254_scalar *kb = (mgpu_bn254_scalar *)xmalloc(2 * n * 32);
            uint64_t res[2 * 36], aff[24];
            int b;
            memcpy(kb, k, n * 32);
            memcpy(kb + n, k, n * 32);
            memset(&cfg, 0, sizeof cfg);
            cfg.group = g;
            cfg.precompute_factor = 3;
            if (mgpu_msm_curve_precompute_bases(p, n, &cfg, cb, cpu_stream) != MGPU_SUCCESS) chk_fail(&c, "bases: %s", mgpu_last_error());
            cfg.flags = MGPU_MSM_SHARED_POINTS;
            for (i = 0; i < (quick && ngpu ? 1 : ngpu); i++) {
                mgpu_stream st = NULL;
                cfg.max_memory = pieces_memory(&cfg, n, 2, kb, cb, i);
                mgpu_default_stream(i, &st);
                if (!cfg.max_memory) chk_fail(&c, "gpu %d: no max_memory makes the batch take pieces", i);
                else if (mgpu_msm_curve(kb, cb, n, 2, &cfg, res, st) != MGPU_SUCCESS) chk_fail(&c, "gpu %d batch: %s", i, mgpu_last_error());
                else
                    for (b = 0; b < 2; b++) {
                        mgpu_curve_to_affine(g, res + b * 3 * E / 16, aff, 0);
                        if (memcmp(aff, want, E)) chk_fail(&c, "gpu %d: bases, a batch with max_memory %zu: MSM %d wrong", i, cfg.max_memory, b);
                    }
            }
            cfg.max_memory = 0;
            cfg.flags = 0;
            if (mgpu_msm_curve_multi(k, cb, n, 1, &cfg, res, two, 2) != MGPU_SUCCESS) chk_fail(&c, "split: %s", mgpu_last_error());
            else if (mgpu_curve_to_affine(g, res, aff, 0), memcmp(aff, want, E)) chk_fail(&c, "bases split over 2 devices: wrong");
            cfg.flags = MGPU_MSM_SHARED_POINTS;
            if (mgpu_msm_curve_multi(kb, cb, n, 2, &cfg, res, two, 2) != MGPU_SUCCESS) chk_fail(&c, "spread: %s", mgpu_last_error());
            else
                for (b = 0; b < 2; b++)
                    if (mgpu_curve_to_affine(g, res + b * 3 * E / 16, aff, 0), memcmp(aff, want, E))
                        chk_fail(&c, "bases, 2 MSMs over 2 devices: MSM %d wrong", b);
            free(kb);
        }
        free(k); free(km); free(p); free(pm); free(cb); free(gb);
    }
    report(c.good, "[curves] %s: precomputed bases (factors 2..%d on the CPU device (a sample of them from 37 points on), "
           "2, 3, 4, 7, %d on %d GPU(s); n = 1, 3, 37, 301%s): MSMs equal to the plain MSM, GPU bases equal to the CPU device's, the layout, Montgomery forms, a batch "
           "in max_memory pieces, split and spread over 2 %s%s%s", group_names[g], MGPU_MSM_MAX_PRECOMPUTE,
           MGPU_MSM_MAX_PRECOMPUTE, ngpu, quick ? "; the GPUs' larger cases left out" : "", ngpu > 1 ? "GPUs" : "CPU devices", SEP(c));
}

/* mgpu_msm_pair: equal to two mgpu_msm_curve calls (the CPU device's) on the CPU device and
   every GPU, odd sizes, both forms, device inputs, a batch with shared points in max_memory
   pieces, precomputed bases, the curve named by its G2; its errors. */
static int is_zero_bytes(const void *p, size_t bytes)
{
    const unsigned char *b = (const unsigned char *)p;
    size_t i;
    for (i = 0; i < bytes; i++) if (b[i]) return 0;
    return 1;
}
static int pair_case(chk *c, const char *what, int curve, mgpu_device dev, const void *k, const void *p1, const void *p2,
                     size_t n, int count, const mgpu_msm_config *cfg, const uint64_t *want1, const uint64_t *want2)
{
    const size_t E1 = mgpu_msm_point_bytes(curve), E2 = mgpu_msm_point_bytes(curve + 1);
    const int mont = (cfg->flags & MGPU_MSM_RESULT_MONTGOMERY) != 0;
    uint64_t r1[2 * 18], r2[2 * 36], a[24];
    mgpu_stream st = NULL;
    mgpu_result r;
    int b, ok = 1;
    r = mgpu_default_stream(dev, &st);
    if (r == MGPU_SUCCESS && n == 3) {                 /* the queued call: results once the stream is done */
        r = mgpu_msm_pair_async(k, p1, p2, n, count, cfg, r1, r2, st);
        if (r == MGPU_SUCCESS) r = mgpu_stream_synchronize(st);
    } else if (r == MGPU_SUCCESS) {
        r = mgpu_msm_pair(k, p1, p2, n, count, cfg, r1, r2, st);
    }
    if (r != MGPU_SUCCESS) { chk_fail(c, "%s: %s", what, mgpu_last_error()); return 0; }
    for (b = 0; b < count; b++) {
        mgpu_curve_to_affine(curve, r1 + b * 3 * E1 / 16, a, mont);
        if (memcmp(a, want1 + b * E1 / 8, E1)) { chk_fail(c, "%s: G1 result %d differs", what, b); ok = 0; }
        mgpu_curve_to_affine(curve + 1, r2 + b * 3 * E2 / 16, a, mont);
        if (memcmp(a, want2 + b * E2 / 8, E2)) { chk_fail(c, "%s: G2 result %d differs", what, b); ok = 0; }
    }
    return ok;
}

static void test_curve_pair(int curve)
{
    static const size_t full[] = { 1, 3, 100, 401 }, small[] = { 1, 3, 64, 300 };
    const size_t *sizes = quick ? small : full, E1 = mgpu_msm_point_bytes(curve), E2 = mgpu_msm_point_bytes(curve + 1);
    const unsigned all = MGPU_MSM_SCALARS_MONTGOMERY | MGPU_MSM_POINTS_MONTGOMERY | MGPU_MSM_RESULT_MONTGOMERY;
    size_t z;
    int i;
    chk c;
    chk_init(&c);
    for (z = 0; z < 4; z++) {
        const size_t n = sizes[z];
        mgpu_bn254_scalar *k = make_scalars(2 * n, 1), *km = (mgpu_bn254_scalar *)xmalloc(n * 32);
        unsigned char *p1 = (unsigned char *)xmalloc(n * E1), *p2 = (unsigned char *)xmalloc(n * E2);
        unsigned char *m1 = (unsigned char *)xmalloc(n * E1), *m2 = (unsigned char *)xmalloc(n * E2);
        unsigned char *b1 = (unsigned char *)xmalloc(3 * n * E1), *b2 = (unsigned char *)xmalloc(3 * n * E2);
        uint64_t w1[2 * 12], w2[2 * 24], wm1[12], wm2[24];
        mgpu_msm_config cfg;
        char what[96];
        memset(&cfg, 0, sizeof cfg);
        cfg.group = curve;
        mgpu_curve_random_points(curve, p1, n, rnd());
        mgpu_curve_random_points(curve + 1, p2, n, rnd());
        memcpy(km, k, n * 32);
        memcpy(m1, p1, n * E1);
        memcpy(m2, p2, n * E2);
        mgpu_curve_convert_scalars(curve, km, n, 1);
        mgpu_curve_convert_points(curve, m1, n, 1);
        mgpu_curve_convert_points(curve + 1, m2, n, 1);
        /* the references: separate MSMs on the CPU device (the second batch entry: the next n scalars) */
        for (i = 0; i < 2; i++) {
            if (curve_msm(curve, cpus, 1, k + i * n, p1, n, 0, 0, w1 + i * E1 / 8) != MGPU_SUCCESS ||
                curve_msm(curve + 1, cpus, 1, k + i * n, p2, n, 0, 0, w2 + i * E2 / 8) != MGPU_SUCCESS)
                chk_fail(&c, "reference: %s", mgpu_last_error());
        }
        memcpy(wm1, w1, E1);
        memcpy(wm2, w2, E2);
        mgpu_curve_convert_points(curve, wm1, 1, 1);
        mgpu_curve_convert_points(curve + 1, wm2, 1, 1);
        cfg.precompute_factor = 3;
        if (mgpu_msm_curve_precompute_bases(p1, n, &cfg, b1, cpu_stream) != MGPU_SUCCESS ||
            (cfg.group = curve + 1, mgpu_msm_curve_precompute_bases(p2, n, &cfg, b2, cpu_stream)) != MGPU_SUCCESS)
            chk_fail(&c, "bases: %s", mgpu_last_error());
        for (i = -1; i < ngpu; i++) {
            const mgpu_device dev = i < 0 ? cpus[0] : i;
            const char *where = i < 0 ? "cpu" : i ? "gpu 1" : "gpu 0";
            const int small_only = quick && i >= 0 && n > 100;   /* (slow emulators: gpu 0, standard forms) */
            void *ds = NULL, *d1 = NULL, *d2 = NULL;
            if (small_only && i > 0) continue;
            memset(&cfg, 0, sizeof cfg);
            cfg.group = curve;
            snprintf(what, sizeof what, "%s n = %zu standard", where, n);
            pair_case(&c, what, curve, dev, k, p1, p2, n, 1, &cfg, w1, w2);   /* host inputs: growing pieces */
            cfg.flags = all;
            snprintf(what, sizeof what, "%s n = %zu Montgomery", where, n);
            if (!small_only) pair_case(&c, what, curve, dev, km, m1, m2, n, 1, &cfg, wm1, wm2);
            cfg.flags = MGPU_MSM_SHARED_POINTS | MGPU_MSM_CHECK_POINTS;
            cfg.group = curve + 1;                     /* the G2 names the same curve */
            if (i >= 0 && z == 3) cfg.max_memory = pieces_memory2(&cfg, n, 2, k, p2, p1, dev);
            if (i >= 0 && z == 3 && !cfg.max_memory) chk_fail(&c, "%s: no max_memory makes the pair take pieces", where);
            snprintf(what, sizeof what, "%s n = %zu batch of 2, shared points, max_memory %zu", where, n, cfg.max_memory);
            pair_case(&c, what, curve, dev, k, p1, p2, n, 2, &cfg, w1, w2);
            memset(&cfg, 0, sizeof cfg);
            cfg.group = curve;
            cfg.precompute_factor = 3;
            snprintf(what, sizeof what, "%s n = %zu precompute factor 3", where, n);
            if (!quick || i < 0 || n < 100) pair_case(&c, what, curve, dev, k, b1, b2, n, 1, &cfg, w1, w2);
            if (i < 0) continue;
            mgpu_set_device(i);
            if (mgpu_malloc(&ds, n * 32) != MGPU_SUCCESS || mgpu_malloc(&d1, n * E1) != MGPU_SUCCESS ||
                mgpu_malloc(&d2, n * E2) != MGPU_SUCCESS) {
                chk_fail(&c, "mgpu_malloc: %s", mgpu_last_error());
            } else {
                memset(&cfg, 0, sizeof cfg);
                cfg.group = curve;
                mgpu_memcpy(ds, k, n * 32);
                mgpu_memcpy(d1, p1, n * E1);
                mgpu_memcpy(d2, m2, n * E2);        /* Montgomery form: read in place */
                snprintf(what, sizeof what, "%s n = %zu device inputs, Montgomery", where, n);
                cfg.flags = MGPU_MSM_POINTS_MONTGOMERY;
                /* both sets take one form: G1's in Montgomery form too */
                mgpu_memcpy(d1, m1, n * E1);
                if (!small_only) pair_case(&c, what, curve, dev, ds, d1, d2, n, 1, &cfg, w1, w2);
                cfg.flags = 0;
                mgpu_memcpy(d1, p1, n * E1);
                mgpu_memcpy(d2, p2, n * E2);
                snprintf(what, sizeof what, "%s n = %zu device inputs, standard (converted)", where, n);
                pair_case(&c, what, curve, dev, ds, d1, d2, n, 1, &cfg, w1, w2);
            }
            mgpu_free(ds); mgpu_free(d1); mgpu_free(d2);
        }
        free(k); free(km); free(p1); free(p2); free(m1); free(m2); free(b1); free(b2);
    }
    /* errors: nothing written */
    {
        mgpu_bn254_scalar k1[1];
        uint64_t p1[12], p2[24], bad[24], r1[18], r2[36], canary[36];
        mgpu_msm_config cfg;
        mgpu_result e[6];
        memset(&cfg, 0, sizeof cfg);
        cfg.group = curve;
        set_u64(k1[0].limb, 5);
        mgpu_curve_random_points(curve, p1, 1, 3);
        mgpu_curve_random_points(curve + 1, p2, 1, 4);
        memcpy(bad, p2, E2);
        bad[E2 / 16] ^= 1;                           /* y changed: off the curve */
        memset(canary, 0x5a, sizeof canary);
        memcpy(r1, canary, sizeof r1);
        memcpy(r2, canary, sizeof r2);
        e[0] = mgpu_msm_pair(k1, p1, NULL, 1, 1, &cfg, r1, r2, cpu_stream);
        e[1] = mgpu_msm_pair(k1, p1, p2, 1, 1, &cfg, r1, NULL, cpu_stream);
        e[2] = mgpu_msm_pair(k1, p1, p2, 1, 1, &cfg, r2, r2, cpu_stream);
        cfg.flags = MGPU_MSM_CHECK_POINTS;
        e[3] = mgpu_msm_pair(k1, p1, bad, 1, 1, &cfg, r1, r2, cpu_stream);
        if (!strstr(mgpu_last_error(), "mgpu_msm_pair: g2_points: points[0] is not"))   /* the set named, fn once */
            chk_fail(&c, "a G2 point off the curve on the CPU device: %s", mgpu_last_error());
        if (ngpu) {
            e[3] = e[3] == mgpu_msm_pair(k1, p1, bad, 1, 1, &cfg, r1, r2, NULL) ? e[3] : MGPU_SUCCESS;
            if (!strstr(mgpu_last_error(), "mgpu_msm_pair: g2_points: points[0] is not"))
                chk_fail(&c, "a G2 point off the curve on GPU 0: %s", mgpu_last_error());
        }
        cfg.flags = 0;
        cfg.group = 4;
        e[4] = mgpu_msm_pair(k1, p1, p2, 1, 1, &cfg, r1, r2, cpu_stream);
        cfg.group = curve;
        e[5] = mgpu_msm_pair(k1, p1, p2, 1, -1, &cfg, r1, r2, cpu_stream);
        if (e[0] != MGPU_ERROR_INVALID_ARGUMENT || e[1] != MGPU_ERROR_INVALID_ARGUMENT || e[2] != MGPU_ERROR_INVALID_ARGUMENT ||
            e[3] != MGPU_ERROR_NOT_ON_CURVE || e[4] != MGPU_ERROR_INVALID_ARGUMENT || e[5] != MGPU_ERROR_INVALID_ARGUMENT)
            chk_fail(&c, "errors: NULL g2_points %s, NULL g2_results %s, overlapping results %s, a G2 point off the curve %s, "
                     "group 4 %s, count -1 %s", mgpu_result_string(e[0]), mgpu_result_string(e[1]), mgpu_result_string(e[2]),
                     mgpu_result_string(e[3]), mgpu_result_string(e[4]), mgpu_result_string(e[5]));
        if (memcmp(r1, canary, sizeof r1) || memcmp(r2, canary, sizeof r2)) chk_fail(&c, "a refused pair wrote results");
        if (mgpu_msm_pair(NULL, NULL, NULL, 0, 1, &cfg, r1, r2, cpu_stream) != MGPU_SUCCESS ||
            mgpu_curve_to_affine(curve, r1, p1, 0) != MGPU_SUCCESS || mgpu_curve_to_affine(curve + 1, r2, p2, 0) != MGPU_SUCCESS ||
            !is_zero_bytes(p1, E1) || !is_zero_bytes(p2, E2))
            chk_fail(&c, "n = 0 is not infinity in both groups");
    }
    report(c.good, "[curves] %s G1 + G2: mgpu_msm_pair equal to two mgpu_msm_curve calls on the CPU device%s (n = %s; "
           "standard and Montgomery, a batch with shared points%s, precomputed bases, device inputs, the curve named by "
           "its G2, mgpu_msm_pair_async at n = 3), its errors%s%s", curve ? "BLS12-381" : "BN254", ngpu ? " and every GPU" : "",
           quick ? "1, 3, 64, 300 (on the GPUs at 300: gpu 0's standard host and device inputs and batch)" : "1, 3, 100, 401",
           ngpu ? " in max_memory pieces" : "", SEP(c));
}

/* mgpu_msm_pair_multi over 1, 2 and 4 CPU devices, over every GPU and GPU 0 with CPU device
   0: each pair equal to two mgpu_msm_curve calls on the CPU device, for one MSM of an odd n
   split (and of 3 points, some devices left with none), batches of 2, 5 and 9 (split or
   spread) with their own and with shared points, Montgomery forms, CHECK_POINTS on valid
   points, precomputed bases (split, own, shared), count 0 and n = 0; the errors of both
   calls (NULL sets and results, overlapping results, a point off the curve or outside the
   subgroup in either set: the message names it), nothing written then; on GPUs inputs in
   GPU 0's memory (checked there), a CPU device that cannot read them, results in device
   memory. */
enum { PM_NB = 48, PM_B = 9, PM_F = 3 };
typedef struct pm_in {
    int curve;
    size_t n, np, E1, E2;                        /* np: points made (n, or the batches' B NB) */
    mgpu_bn254_scalar *k, *km;
    uint64_t *p1, *p2, *m1, *m2;                 /* standard; Montgomery (the first n) */
    uint64_t *b1, *b2, *bb1, *bb2;               /* bases (factor F) of the first n; of the first 2 NB, as two MSMs */
    uint64_t *w1, *w2, *wm1, *wm2, *w31, *w32;   /* references: n points (standard, Montgomery); 3 points */
    uint64_t *wb1, *wb2, *ws1, *ws2;             /* batches of NB: own points, shared points */
} pm_in;

static int pm_case(chk *c, const char *what, const pm_in *in, const mgpu_device *devs, int ndevs, const void *k,
                   const void *p1, const void *p2, size_t n, int count, const mgpu_msm_config *cfg,
                   const uint64_t *want1, const uint64_t *want2)
{
    const int curve = in->curve, mont = (cfg->flags & MGPU_MSM_RESULT_MONTGOMERY) != 0;
    const size_t J1 = mgpu_msm_result_bytes(curve), J2 = mgpu_msm_result_bytes(curve + 1);
    unsigned char *r1 = (unsigned char *)xmalloc((size_t)(count + 1) * J1), *r2 = (unsigned char *)xmalloc((size_t)(count + 1) * J2);
    uint64_t a[24];
    mgpu_result r;
    size_t i;
    int b, ok = 1;
    memset(r1, 0xA5, (size_t)(count + 1) * J1);
    memset(r2, 0xA5, (size_t)(count + 1) * J2);
    r = mgpu_msm_pair_multi(k, p1, p2, n, count, cfg, r1, r2, devs, ndevs);
    if (r != MGPU_SUCCESS) { chk_fail(c, "%s: %s: %s", what, mgpu_result_string(r), mgpu_last_error()); ok = 0; }
    for (b = 0; b < count && ok; b++) {
        if (mgpu_curve_to_affine(curve, r1 + b * J1, a, mont) != MGPU_SUCCESS || memcmp(a, want1 + b * in->E1 / 8, in->E1)) {
            chk_fail(c, "%s: G1 result %d of %d differs", what, b, count);
            ok = 0;
        }
        if (mgpu_curve_to_affine(curve + 1, r2 + b * J2, a, mont) != MGPU_SUCCESS || memcmp(a, want2 + b * in->E2 / 8, in->E2)) {
            chk_fail(c, "%s: G2 result %d of %d differs", what, b, count);
            ok = 0;
        }
    }
    for (i = 0; i < J1; i++) if (r1[(size_t)count * J1 + i] != 0xA5) { chk_fail(c, "%s: wrote past g1_results", what); ok = 0; break; }
    for (i = 0; i < J2; i++) if (r2[(size_t)count * J2 + i] != 0xA5) { chk_fail(c, "%s: wrote past g2_results", what); ok = 0; break; }
    free(r1);
    free(r2);
    return ok;
}

/* The pair of references: each group's MSM by mgpu_msm_curve on CPU device 0. */
static void pm_ref(chk *c, int curve, const mgpu_bn254_scalar *k, const void *p1, const void *p2, size_t n, uint64_t *o1,
                   uint64_t *o2)
{
    if (curve_msm(curve, cpus, 1, k, p1, n, 0, 0, o1) != MGPU_SUCCESS || curve_msm(curve + 1, cpus, 1, k, p2, n, 0, 0, o2) != MGPU_SUCCESS)
        chk_fail(c, "reference: %s", mgpu_last_error());
}

static void pm_make(chk *c, int curve, pm_in *in)
{
    size_t n, W1, W2;
    mgpu_msm_config cfg;
    int b;
    memset(in, 0, sizeof *in);
    in->curve = curve;
    in->n = n = quick ? 301 : 1001;
    in->np = n > PM_B * PM_NB ? n : PM_B * PM_NB;
    in->E1 = mgpu_msm_point_bytes(curve);
    in->E2 = mgpu_msm_point_bytes(curve + 1);
    W1 = in->E1 / 8;
    W2 = in->E2 / 8;
    in->k = make_scalars(in->np, 1);
    in->km = (mgpu_bn254_scalar *)xmalloc(n * 32);
    in->p1 = (uint64_t *)xmalloc(in->np * in->E1);
    in->p2 = (uint64_t *)xmalloc(in->np * in->E2);
    in->m1 = (uint64_t *)xmalloc(n * in->E1);
    in->m2 = (uint64_t *)xmalloc(n * in->E2);
    in->b1 = (uint64_t *)xmalloc(PM_F * n * in->E1);
    in->b2 = (uint64_t *)xmalloc(PM_F * n * in->E2);
    in->bb1 = (uint64_t *)xmalloc(PM_F * 2 * PM_NB * in->E1);
    in->bb2 = (uint64_t *)xmalloc(PM_F * 2 * PM_NB * in->E2);
    in->w1 = (uint64_t *)xmalloc(4 * in->E1);   /* w1, wm1, w31 and one spare: one block each */
    in->w2 = (uint64_t *)xmalloc(4 * in->E2);
    in->wm1 = in->w1 + W1;
    in->wm2 = in->w2 + W2;
    in->w31 = in->w1 + 2 * W1;
    in->w32 = in->w2 + 2 * W2;
    in->wb1 = (uint64_t *)xmalloc(2 * PM_B * in->E1);
    in->wb2 = (uint64_t *)xmalloc(2 * PM_B * in->E2);
    in->ws1 = in->wb1 + PM_B * W1;
    in->ws2 = in->wb2 + PM_B * W2;
    mgpu_curve_random_points(curve, in->p1, in->np, rnd());
    mgpu_curve_random_points(curve + 1, in->p2, in->np, rnd());
    memcpy(in->km, in->k, n * 32);
    memcpy(in->m1, in->p1, n * in->E1);
    memcpy(in->m2, in->p2, n * in->E2);
    mgpu_curve_convert_scalars(curve, in->km, n, 1);
    mgpu_curve_convert_points(curve, in->m1, n, 1);
    mgpu_curve_convert_points(curve + 1, in->m2, n, 1);
    pm_ref(c, curve, in->k, in->p1, in->p2, n, in->w1, in->w2);
    memcpy(in->wm1, in->w1, in->E1);
    memcpy(in->wm2, in->w2, in->E2);
    mgpu_curve_convert_points(curve, in->wm1, 1, 1);
    mgpu_curve_convert_points(curve + 1, in->wm2, 1, 1);
    pm_ref(c, curve, in->k, in->p1, in->p2, 3, in->w31, in->w32);
    for (b = 0; b < PM_B; b++) {
        pm_ref(c, curve, in->k + b * PM_NB, in->p1 + b * PM_NB * W1, in->p2 + b * PM_NB * W2, PM_NB, in->wb1 + b * W1,
               in->wb2 + b * W2);
        pm_ref(c, curve, in->k + b * PM_NB, in->p1, in->p2, PM_NB, in->ws1 + b * W1, in->ws2 + b * W2);
    }
    /* bases, made on the CPU device (host memory): of the first n points; of MSMs 0 and 1 of NB */
    memset(&cfg, 0, sizeof cfg);
    cfg.precompute_factor = PM_F;
    for (b = 0; b < 2; b++) {
        cfg.group = curve + b;
        if (mgpu_msm_curve_precompute_bases(b ? (void *)in->p2 : (void *)in->p1, n, &cfg, b ? (void *)in->b2 : (void *)in->b1,
                                            cpu_stream) != MGPU_SUCCESS ||
            mgpu_msm_curve_precompute_bases(b ? (void *)in->p2 : (void *)in->p1, PM_NB, &cfg,
                                            b ? (void *)in->bb2 : (void *)in->bb1, cpu_stream) != MGPU_SUCCESS ||
            mgpu_msm_curve_precompute_bases(b ? (void *)(in->p2 + PM_NB * W2) : (void *)(in->p1 + PM_NB * W1), PM_NB, &cfg,
                                            b ? (void *)(in->bb2 + PM_F * PM_NB * W2) : (void *)(in->bb1 + PM_F * PM_NB * W1),
                                            cpu_stream) != MGPU_SUCCESS)
            chk_fail(c, "bases: %s", mgpu_last_error());
    }
}
static void pm_free(pm_in *in)
{
    free(in->k); free(in->km); free(in->p1); free(in->p2); free(in->m1); free(in->m2);
    free(in->b1); free(in->b2); free(in->bb1); free(in->bb2); free(in->w1); free(in->w2); free(in->wb1); free(in->wb2);
}

/* The errors over devs: each refused, its message naming the argument, no result written. */
static void pm_errors(chk *c, const pm_in *in, const mgpu_device *devs, int ndevs)
{
    const int curve = in->curve;
    const size_t E1 = in->E1, E2 = in->E2, W1 = E1 / 8, W2 = E2 / 8, n = PM_NB;
    uint64_t *q1 = (uint64_t *)xmalloc(n * E1), *q2 = (uint64_t *)xmalloc(n * E2), r1[2 * 18], r2[2 * 36], canary[2 * 36];
    uint64_t a[24];
    mgpu_msm_config cfg;
    mgpu_result e;
    memcpy(q1, in->p1, n * E1);
    memcpy(q2, in->p2, n * E2);
    memset(canary, 0x5a, sizeof canary);
    memcpy(r1, canary, sizeof r1);
    memcpy(r2, canary, sizeof r2);
    memset(&cfg, 0, sizeof cfg);
    cfg.group = curve;
#define PM_BAD(what, call, want, text)                                                                                   \
    do {                                                                                                                   \
        e = (call);                                                                                                        \
        if (e != (want) || !strstr(mgpu_last_error(), "mgpu_msm_pair_multi: ") || !strstr(mgpu_last_error(), text))      \
            chk_fail(c, "%s: %s (%s), %s with \"%s\" expected", what, mgpu_result_string(e), mgpu_last_error(),          \
                     mgpu_result_string(want), text);                                                                      \
    } while (0)
    PM_BAD("NULL g2_points", mgpu_msm_pair_multi(in->k, q1, NULL, n, 1, &cfg, r1, r2, devs, ndevs),
           MGPU_ERROR_INVALID_ARGUMENT, "g2_points is NULL");
    PM_BAD("NULL g2_results", mgpu_msm_pair_multi(in->k, q1, q2, n, 1, &cfg, r1, NULL, devs, ndevs),
           MGPU_ERROR_INVALID_ARGUMENT, "g2_results is NULL");
    PM_BAD("overlapping results", mgpu_msm_pair_multi(in->k, q1, q2, n, 1, &cfg, (unsigned char *)r2 + 8, r2, devs, ndevs),
           MGPU_ERROR_INVALID_ARGUMENT, "g1_results overlaps g2_results");
    PM_BAD("count -1", mgpu_msm_pair_multi(in->k, q1, q2, n, -1, &cfg, r1, r2, devs, ndevs), MGPU_ERROR_INVALID_ARGUMENT,
           "count = -1");
    cfg.group = 4;
    PM_BAD("group 4", mgpu_msm_pair_multi(in->k, q1, q2, n, 1, &cfg, r1, r2, devs, ndevs), MGPU_ERROR_INVALID_ARGUMENT,
           "config.group = 4");
    cfg.group = curve + 1;
    cfg.flags = MGPU_MSM_CHECK_POINTS;
    memcpy(q2 + 40 * W2, off_group[curve ? 2 : 0], E2);   /* G2: on the curve, outside the subgroup */
    PM_BAD("a G2 point outside the subgroup", mgpu_msm_pair_multi(in->k, q1, q2, n, 1, &cfg, r1, r2, devs, ndevs),
           MGPU_ERROR_NOT_IN_SUBGROUP, "g2_points: points[40] is on");
    memcpy(q2 + 40 * W2, in->p2 + 40 * W2, E2);
    if (curve) memcpy(q1 + 7 * W1, off_group[1], E1);     /* BLS12-381 G1: outside the subgroup; BN254 G1: off the curve */
    else q1[7 * W1 + W1 / 2] ^= 1;
    PM_BAD("a G1 point off the curve or outside the subgroup",
           mgpu_msm_pair_multi(in->k, q1, q2, n, 1, &cfg, r1, r2, devs, ndevs),
           curve ? MGPU_ERROR_NOT_IN_SUBGROUP : MGPU_ERROR_NOT_ON_CURVE, "g1_points: points[7] is ");
    if (memcmp(r1, canary, sizeof r1) || memcmp(r2, canary, sizeof r2)) chk_fail(c, "a refused call wrote results");
    cfg.flags = 0;   /* without CHECK_POINTS the bad points are taken as given: no error */
    if (mgpu_msm_pair_multi(in->k, q1, q2, n, 1, &cfg, r1, r2, devs, ndevs) != MGPU_SUCCESS)
        chk_fail(c, "unchecked points: %s", mgpu_last_error());
    memcpy(r1, canary, sizeof r1);
    memcpy(r2, canary, sizeof r2);
    if (mgpu_msm_pair_multi(in->k, q1, q2, n, 0, &cfg, r1, r2, devs, ndevs) != MGPU_SUCCESS ||
        mgpu_msm_pair_multi(in->k, q1, q2, n, 0, &cfg, NULL, NULL, devs, ndevs) != MGPU_SUCCESS)
        chk_fail(c, "count 0: %s", mgpu_last_error());
    if (memcmp(r1, canary, sizeof r1) || memcmp(r2, canary, sizeof r2)) chk_fail(c, "count 0 wrote results");
    if (mgpu_msm_pair_multi(NULL, NULL, NULL, 0, 2, &cfg, r1, r2, devs, ndevs) != MGPU_SUCCESS)
        chk_fail(c, "n = 0: %s", mgpu_last_error());
    else if (mgpu_curve_to_affine(curve, r1 + 3 * W1 / 2, a, 0) != MGPU_SUCCESS || !is_zero_bytes(a, E1) ||
             mgpu_curve_to_affine(curve + 1, r2 + 3 * W2 / 2, a, 0) != MGPU_SUCCESS || !is_zero_bytes(a, E2))
        chk_fail(c, "n = 0 is not infinity in both groups");
#undef PM_BAD
    free(q1);
    free(q2);
}

/* Every case of the comment above over devs (label: for the report). */
static void pm_sweep(const pm_in *in, const char *label, const mgpu_device *devs, int ndevs)
{
    static const int counts[3] = { 2, 5, PM_B };
    const unsigned all = MGPU_MSM_SCALARS_MONTGOMERY | MGPU_MSM_POINTS_MONTGOMERY | MGPU_MSM_RESULT_MONTGOMERY;
    const size_t n = in->n;
    mgpu_msm_config cfg;
    char what[128];
    int i;
    chk c;
    chk_init(&c);
    memset(&cfg, 0, sizeof cfg);
    cfg.group = in->curve;
    snprintf(what, sizeof what, "count 1 of %zu (split)", n);
    pm_case(&c, what, in, devs, ndevs, in->k, in->p1, in->p2, n, 1, &cfg, in->w1, in->w2);
    pm_case(&c, "count 1 of 3 points", in, devs, ndevs, in->k, in->p1, in->p2, 3, 1, &cfg, in->w31, in->w32);
    for (i = 0; i < 3; i++) {
        cfg.flags = 0;
        snprintf(what, sizeof what, "count %d", counts[i]);
        pm_case(&c, what, in, devs, ndevs, in->k, in->p1, in->p2, PM_NB, counts[i], &cfg, in->wb1, in->wb2);
        cfg.flags = MGPU_MSM_SHARED_POINTS | (i == 2 ? MGPU_MSM_CHECK_POINTS : 0);
        cfg.group = in->curve + (i == 1);              /* the curve named by its G2 */
        snprintf(what, sizeof what, "count %d, SHARED_POINTS%s", counts[i], i == 2 ? ", CHECK_POINTS" : "");
        pm_case(&c, what, in, devs, ndevs, in->k, in->p1, in->p2, PM_NB, counts[i], &cfg, in->ws1, in->ws2);
        cfg.group = in->curve;
    }
    cfg.flags = all;
    pm_case(&c, "count 1, Montgomery everything", in, devs, ndevs, in->km, in->m1, in->m2, n, 1, &cfg, in->wm1, in->wm2);
    cfg.flags = MGPU_MSM_SCALARS_MONTGOMERY | MGPU_MSM_POINTS_MONTGOMERY | MGPU_MSM_CHECK_POINTS;
    pm_case(&c, "count 1, Montgomery inputs, CHECK_POINTS", in, devs, ndevs, in->km, in->m1, in->m2, n, 1, &cfg, in->w1,
            in->w2);
    cfg.flags = 0;
    cfg.precompute_factor = PM_F;
    pm_case(&c, "count 1, precompute factor 3", in, devs, ndevs, in->k, in->b1, in->b2, n, 1, &cfg, in->w1, in->w2);
    pm_case(&c, "count 2, precompute factor 3", in, devs, ndevs, in->k, in->bb1, in->bb2, PM_NB, 2, &cfg, in->wb1, in->wb2);
    cfg.flags = MGPU_MSM_SHARED_POINTS;
    pm_case(&c, "count 5, precompute factor 3, SHARED_POINTS", in, devs, ndevs, in->k, in->bb1, in->bb2, PM_NB, 5, &cfg,
            in->ws1, in->ws2);
    pm_errors(&c, in, devs, ndevs);
    report(c.good, "%s [curves] %s G1 + G2: mgpu_msm_pair_multi equal to two mgpu_msm_curve calls: one pair of %zu split, "
           "of 3 points, counts 2, 5, 9 (own and shared points, CHECK_POINTS), Montgomery forms, precomputed bases (split, "
           "own, shared); its errors%s%s", label, in->curve ? "BLS12-381" : "BN254", n, SEP(c));
}

/* On GPUs: inputs in GPU 0's memory over every GPU (checked there: a bad point found), a CPU
   device with them, results in device memory, GPU 0 and CPU device 0 together. */
static void pm_gpu_memory(const pm_in *in, const mgpu_device *devs, int ndevs)
{
    const size_t n = in->n, E1 = in->E1, E2 = in->E2, W2 = E2 / 8;
    const mgpu_device mixed[2] = { 0, cpus[0] };
    void *ds = NULL, *d1 = NULL, *d2 = NULL, *dr = NULL;
    uint64_t r1[18], r2[36], bad[24];
    mgpu_msm_config cfg;
    mgpu_result e;
    chk c;
    chk_init(&c);
    memset(&cfg, 0, sizeof cfg);
    cfg.group = in->curve;
    mgpu_set_device(0);
    if (mgpu_malloc(&ds, n * 32) != MGPU_SUCCESS || mgpu_malloc(&d1, n * E1) != MGPU_SUCCESS ||
        mgpu_malloc(&d2, n * E2) != MGPU_SUCCESS || mgpu_malloc(&dr, 36 * 8) != MGPU_SUCCESS) {
        chk_fail(&c, "mgpu_malloc: %s", mgpu_last_error());
    } else {
        mgpu_memcpy(ds, in->k, n * 32);
        mgpu_memcpy(d1, in->p1, n * E1);
        mgpu_memcpy(d2, in->p2, n * E2);
        cfg.flags = MGPU_MSM_CHECK_POINTS;
        pm_case(&c, "inputs in GPU 0's memory, CHECK_POINTS, split", in, devs, ndevs, ds, d1, d2, n, 1, &cfg, in->w1, in->w2);
        memcpy(bad, off_group[in->curve ? 2 : 0], E2);
        mgpu_memcpy((unsigned char *)d2 + 100 * E2, bad, E2);
        e = mgpu_msm_pair_multi(ds, d1, d2, n, 1, &cfg, r1, r2, devs, ndevs);
        if (e != MGPU_ERROR_NOT_IN_SUBGROUP || !strstr(mgpu_last_error(), "g2_points: points[100]"))
            chk_fail(&c, "a G2 point outside the subgroup in GPU 0's memory: %s (%s)", mgpu_result_string(e), mgpu_last_error());
        mgpu_memcpy((unsigned char *)d2 + 100 * E2, in->p2 + 100 * W2, E2);
        cfg.flags = 0;
        e = mgpu_msm_pair_multi(in->k, in->p1, d2, n, 1, &cfg, r1, r2, mixed, 2);
        if (e != MGPU_ERROR_WRONG_DEVICE || !strstr(mgpu_last_error(), "g2_points is memory of CUDA device"))
            chk_fail(&c, "g2_points in GPU memory with a CPU device: %s (%s)", mgpu_result_string(e), mgpu_last_error());
        e = mgpu_msm_pair_multi(in->k, in->p1, in->p2, n, 1, &cfg, dr, r2, devs, ndevs);
        if (e != MGPU_ERROR_INVALID_POINTER || !strstr(mgpu_last_error(), "g1_results is memory of CUDA device"))
            chk_fail(&c, "g1_results in GPU memory: %s (%s)", mgpu_result_string(e), mgpu_last_error());
    }
    if (ds) mgpu_free(ds);
    if (d1) mgpu_free(d1);
    if (d2) mgpu_free(d2);
    if (dr) mgpu_free(dr);
    pm_case(&c, "split over GPU 0 and CPU device 0", in, mixed, 2, in->k, in->p1, in->p2, n, 1, &cfg, in->w1, in->w2);
    cfg.flags = MGPU_MSM_SHARED_POINTS;
    pm_case(&c, "count 5 over GPU 0 and CPU device 0, SHARED_POINTS", in, mixed, 2, in->k, in->p1, in->p2, PM_NB, 5, &cfg,
            in->ws1, in->ws2);
    report(c.good, "[%d GPU%s] [curves] %s G1 + G2: mgpu_msm_pair_multi with inputs in GPU 0's memory (checked there, a "
           "bad G2 point found), refused with a CPU device and for results in device memory; split and spread over GPU 0 "
           "and CPU device 0%s%s", ndevs, ndevs > 1 ? "s" : "", in->curve ? "BLS12-381" : "BN254", SEP(c));
}

static void test_pair_multi(int curve)
{
    mgpu_device devs[MGPU_MAX_DEVICES];
    pm_in in;
    int k;
    chk c;
    chk_init(&c);
    pm_make(&c, curve, &in);
    if (!c.good) report(0, "[curves] %s G1 + G2: mgpu_msm_pair_multi's inputs%s", curve ? "BLS12-381" : "BN254", SEP(c));
    for (k = 1; k <= 4; k *= 2) {
        char label[64];
        snprintf(label, sizeof label, "[%d CPU device%s]", k, k > 1 ? "s" : "");
        pm_sweep(&in, label, cpus, k);
    }
    if (!ngpu) {
        const char *msg = "";
        mgpu_cuda_status(&msg);
        skip("mgpu_msm_pair_multi over GPUs (%s): %s", curve ? "BLS12-381" : "BN254", msg);
    } else {
        char label[64];
        for (k = 0; k < ngpu; k++) devs[k] = k;
        snprintf(label, sizeof label, "[%d GPU%s]", ngpu, ngpu > 1 ? "s" : "");
        pm_sweep(&in, label, devs, ngpu);
        pm_gpu_memory(&in, devs, ngpu);
    }
    pm_free(&in);
}

static void test_curve_errors(void)
{
    mgpu_bn254_scalar k[1];
    uint64_t P[24], j[36];
    mgpu_bn254_jacobian bj;
    mgpu_msm_config cfg;
    mgpu_result r1, r2, r3, r4;
    mgpu_curve_random_points(MGPU_MSM_BLS12_381_G1, P, 1, 7);
    set_u64(k[0].limb, 5);
    memset(&cfg, 0, sizeof cfg);
    cfg.group = 4;
    r1 = mgpu_msm_curve(k, P, 1, 1, &cfg, j, cpu_stream);
    cfg.group = -1;
    r2 = mgpu_msm_curve_multi(k, P, 1, 1, &cfg, j, cpus, 2);
    cfg.group = MGPU_MSM_BLS12_381_G1;
    r3 = mgpu_msm(k, (const mgpu_bn254_affine *)(const void *)P, 1, &cfg, &bj, cpu_stream);
    cfg.precompute_factor = 2;
    r4 = mgpu_msm_curve_precompute_bases(P, 1, &cfg, NULL, cpu_stream);
    report(r1 == MGPU_ERROR_INVALID_ARGUMENT && r2 == MGPU_ERROR_INVALID_ARGUMENT && r3 == MGPU_ERROR_INVALID_ARGUMENT &&
           r4 == MGPU_ERROR_INVALID_ARGUMENT && mgpu_msm_point_bytes(4) == 0 && mgpu_msm_point_bytes(3) == 192 &&
           mgpu_msm_result_bytes(1) == 192 && mgpu_curve_random_points(9, P, 1, 1) == MGPU_ERROR_INVALID_ARGUMENT,
           "[curves] errors: group 4 / -1 INVALID_ARGUMENT (%s, %s), a BN254 G1 call with another group %s, "
           "NULL bases for BLS12-381 G1 %s; sizes", mgpu_result_string(r1), mgpu_result_string(r2), mgpu_result_string(r3),
           mgpu_result_string(r4));
}

static int nsel;
static char **sel;
static int selected(const char *name)
{
    int i;
    for (i = 0; i < nsel; i++) if (!strcmp(sel[i], name)) return 1;
    return nsel == 0;
}

int main(int argc, char **argv)
{
    mgpu_desc desc;
    const char *cuda_msg = "";
    const unsigned long long seed = suite_seed();
    mgpu_bn254_jacobian res;
    mgpu_result r;
    int i;
    verbose = argc > 1 && !strcmp(argv[1], "-v");
    sel = argv + 1 + verbose;
    nsel = argc - 1 - verbose;
    quick = getenv("TEST_MSM_QUICK") && *getenv("TEST_MSM_QUICK");   /* smaller GPU cases (slow emulators) */
    rng_state = seed * 0x9E3779B97F4A7C15ull + 1;
    init_consts();
    printf("seed %llu (MGPU_TEST_SEED=%llu repeats this run)\n", seed, seed);

    r = mgpu_msm(NULL, NULL, 0, NULL, &res, NULL);
    report(r == MGPU_ERROR_NOT_INITIALIZED, "mgpu_msm before mgpu_init: %s", mgpu_result_string(r));

    memset(&desc, 0, sizeof desc);
    desc.cpu_devices = 4;
    if (mgpu_init(&desc) != MGPU_SUCCESS) { printf("FAIL mgpu_init: %s\n", mgpu_last_error()); return 1; }
    for (i = 0; i < 4; i++) cpus[i] = mgpu_cpu_device(i);
    mgpu_default_stream(cpus[0], &cpu_stream);
    ngpu = mgpu_cuda_status(&cuda_msg) == MGPU_SUCCESS && mgpu_default_backend() == MGPU_BACKEND_CUDA ? mgpu_device_count() : 0;
    tdevs[0].dev = cpus[0];
    snprintf(tdevs[0].label, sizeof tdevs[0].label, "cpu");
    for (i = 0; i < ngpu; i++) {
        tdevs[1 + i].dev = i;
        tdevs[1 + i].gpu = 1;
        snprintf(tdevs[1 + i].label, sizeof tdevs[1 + i].label, "gpu %d", i);
    }
    ntdev = 1 + ngpu;
    printf("test_msm: %d GPU(s)%s%s, 4 CPU devices\n", ngpu, ngpu ? "" : ": ", ngpu ? "" : cuda_msg);

    if (find_vectors(argv[0]) != 0) report(0, "tests/vectors not found next to %s or in the current folder", argv[0]);
    else {
        load_vector_files();
        neadd = load_json("bn256Add.json", eadd, 64, 128);
        nemul = load_json("bn256ScalarMul.json", emul, 64, 96);
        report(neadd == 16 && nemul == 19, "read the Ethereum vectors: %d bn256Add (16 expected), %d bn256ScalarMul (19 expected)",
               neadd, nemul);
    }
    if (selected("helpers")) test_helpers();
    for (i = 0; i < ntdev && selected("bad"); i++) {
        mgpu_device other = tdevs[i].gpu && ngpu > 1 ? (tdevs[i].dev + 1) % ngpu : -1;
        test_bad_inputs(&tdevs[i], other);   /* first: before anything enables peer access */
    }
    if (!ngpu) skip("CUDA cases (vectors, edge cases, forms, precompute, batches, memory kinds, bad inputs on every GPU): %s", cuda_msg);
    for (i = 0; i < ntdev; i++) {
        if (selected("vectors")) { test_vectors(&tdevs[i]); test_ethereum(&tdevs[i]); }
        if (selected("edges")) test_edges(&tdevs[i]);
        if (selected("forms")) test_forms(&tdevs[i]);
        if (selected("precompute")) test_precompute(&tdevs[i]);
        if (selected("batch")) test_batch(&tdevs[i]);
        if (selected("memory")) test_memory_kinds(&tdevs[i]);
        if (selected("memory")) test_memory_cap(&tdevs[i]);
    }
    if (selected("multi")) test_multi_cpu();
    if (selected("random")) test_random();
    if (selected("multi")) test_multi_gpu();
    if (selected("curves")) {
        test_curve_vectors();
        for (i = 0; i < 4; i++) {
            test_curve_random(i);
            test_curve_edges(i, cpus, 1, "cpu");
            {
                chk c;
                chk_init(&c);
                check_points_case(&c, i, cpus[0], 0, 300, 70, 290);
                report(c.good, "[cpu] [curves] %s: MGPU_MSM_CHECK_POINTS on 300 host points over the cores (valid; bad "
                       "at 290, at 70 and 290: off the curve, >= p%s; both forms)%s", group_names[i],
                       i ? ", outside the subgroup" : "", SEP(c));
            }
            test_curve_gpu(i);
            test_curve_precompute(i);
        }
        test_curve_errors();
    }
    if (selected("curves") || selected("pair")) {
        test_curve_pair(MGPU_MSM_BN254_G1);
        test_curve_pair(MGPU_MSM_BLS12_381_G1);
    }
    if (selected("pair") || selected("multi")) {
        test_pair_multi(MGPU_MSM_BN254_G1);
        test_pair_multi(MGPU_MSM_BLS12_381_G1);
    }
    if (selected("curves") || selected("encodings")) {
        for (i = 0; i < 4; i++) { test_curve_subgroup(i); test_curve_encodings(i); }
        test_eip2537_vectors();
        test_constantine_vectors();
    }
    for (i = 0; i < nvfiles; i++) { free(vfiles[i].s); free(vfiles[i].p); }
    mgpu_shutdown();
    return summary();
}
