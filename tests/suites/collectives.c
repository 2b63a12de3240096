/* tests/suites/collectives.c - tests of mgpu's multi-device operations :
   mgpu_split, mgpu_reduce_multi, mgpu_reduce_resident, mgpu_broadcast, mgpu_scatter,
   mgpu_gather, mgpu_allreduce and the tuning knobs.

   Every test runs in each configuration: cpu1 (1 CPU device), cpu4 (4 CPU devices) and
   cuda (every GPU, plus 2 CPU devices; skipped with mgpu_cuda_status's sentence when CUDA
   is unavailable). Results are checked against a reference computed here on fresh random
   data (seed printed; MGPU_TEST_SEED=N repeats it). One line per test and configuration:
   `ok name[cfg]`, `FAIL name[cfg]: file:line: what`, `skip name[cfg]: why`; the last line
   is `N passed, N failed, N skipped`; exit status 1 if any failed.

   Built and run by `make test-unit` (build/suite_collectives) and `make test-asan`.
   Arguments: substrings; only tests whose name[cfg] contains one of them run. */
#define _POSIX_C_SOURCE 200809L
#define MGPU_IMPLEMENTATION
#include "mgpu.h"
#define SUITE_CHECKS
#include "tests/suites/suite.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---------------------------------------------------------------- framework */
static const char *cur_cfg = "?";

/* The call must fail with `want`, name the mgpu function in mgpu_last_error(), and leave
   mgpu's allocation count as it was. */
static void check_err(const char *file, int line, const char *call, mgpu_result got, mgpu_result want, size_t allocs)
{
    char name[64];
    size_t i = 0;
    while (call[i] && call[i] != '(' && i < sizeof name - 1) { name[i] = call[i]; i++; }
    name[i] = 0;
    if (got != want)
        fail_at(file, line, "%s returned %s, expected %s [%s]", call, mgpu_result_string(got), mgpu_result_string(want),
                mgpu_last_error());
    else if (!strstr(mgpu_last_error(), name))
        fail_at(file, line, "%s: last error \"%s\" does not name %s", call, mgpu_last_error(), name);
    if (mgpu__g.nallocs != allocs)
        fail_at(file, line, "%s: %zu allocations before, %zu after", call, allocs, (size_t)mgpu__g.nallocs);
}
#define CHECK_ERR(call, want) do { size_t na_ = mgpu__g.nallocs; mgpu_result r_; \
    snprintf(mgpu__tls_error, sizeof mgpu__tls_error, "(none)"); r_ = (call); \
    check_err(__FILE__, __LINE__, #call, r_, (want), na_); } while (0)

static double rnd_unit(void) { return (double)(rnd() >> 11) * (1.0 / 9007199254740992.0); }

/* ---------------------------------------------------------------- devices and data */
static mgpu_device g_dev[MGPU_MAX_DEVICES];   /* the default devices of this configuration */
static int g_ndev;

static const mgpu_dtype all_types[6] = { MGPU_F32, MGPU_F64, MGPU_I32, MGPU_U32, MGPU_I64, MGPU_U64 };
static const mgpu_op all_ops[3] = { MGPU_OP_SUM, MGPU_OP_MIN, MGPU_OP_MAX };
static const char *tname(mgpu_dtype t)
{
    static const char *n[7] = { "?", "f32", "f64", "i32", "u32", "i64", "u64" };
    return n[(int)t >= 1 && (int)t <= 6 ? t : 0];
}
static const char *oname(mgpu_op o)
{
    static const char *n[4] = { "?", "sum", "min", "max" };
    return n[(int)o >= 1 && (int)o <= 3 ? o : 0];
}
static size_t tsize(mgpu_dtype t) { return mgpu_dtype_size(t); }
#define N_SIZES 5
static const size_t sizes[N_SIZES] = { 0, 1, 3, 1023, ((size_t)1 << 20) + 7 };

static int is_cuda(mgpu_device d)
{
    mgpu_device_info info;
    return mgpu_device_info_get(d, &info) == MGPU_SUCCESS && info.backend == MGPU_BACKEND_CUDA;
}

/* Random elements: floats in [-100, 100); signed integers small enough that sums do not
   overflow; unsigned ones full range (their sums wrap, which is defined). */
static void fill(mgpu_dtype t, void *p, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++) {
        unsigned char *e = (unsigned char *)p + i * tsize(t);
        switch (t) {
        case MGPU_F32: { float v = (float)(rnd_unit() * 200.0 - 100.0); memcpy(e, &v, 4); break; }
        case MGPU_F64: { double v = rnd_unit() * 200.0 - 100.0; memcpy(e, &v, 8); break; }
        case MGPU_I32: { int32_t v = (int32_t)(rnd() % 2001) - 1000; memcpy(e, &v, 4); break; }
        case MGPU_U32: { uint32_t v = (uint32_t)rnd(); memcpy(e, &v, 4); break; }
        case MGPU_I64: { int64_t v = (int64_t)(rnd() % ((uint64_t)1 << 41)) - ((int64_t)1 << 40); memcpy(e, &v, 8); break; }
        case MGPU_U64: { uint64_t v = rnd(); memcpy(e, &v, 8); break; }
        }
    }
}

/* acc = op(acc, x), written independently of the library (no NaN in the data). */
static void tfold(mgpu_dtype t, mgpu_op op, void *acc, const void *x)
{
#define TF(T) { T a, b; memcpy(&a, acc, sizeof a); memcpy(&b, x, sizeof b); \
        a = op == MGPU_OP_SUM ? (T)(a + b) : op == MGPU_OP_MIN ? (b < a ? b : a) : (b > a ? b : a); \
        memcpy(acc, &a, sizeof a); break; }
    switch (t) {
    case MGPU_F32: TF(float)
    case MGPU_F64: TF(double)
    case MGPU_U32: TF(uint32_t)
    case MGPU_U64: TF(uint64_t)
    case MGPU_I32: if (op == MGPU_OP_SUM) TF(uint32_t) else TF(int32_t)
    case MGPU_I64: if (op == MGPU_OP_SUM) TF(uint64_t) else TF(int64_t)
    }
#undef TF
}

static void identity(mgpu_dtype t, mgpu_op op, void *out)
{
    uint32_t f = op == MGPU_OP_MIN ? 0x7f800000u : 0xff800000u;                       /* +-inf */
    uint64_t d = op == MGPU_OP_MIN ? 0x7ff0000000000000ull : 0xfff0000000000000ull;
    memset(out, 0, 8);
    if (op == MGPU_OP_SUM) return;
    switch (t) {
    case MGPU_F32: memcpy(out, &f, 4); break;
    case MGPU_F64: memcpy(out, &d, 8); break;
    case MGPU_I32: { int32_t v = op == MGPU_OP_MIN ? INT32_MAX : INT32_MIN; memcpy(out, &v, 4); break; }
    case MGPU_U32: { uint32_t v = op == MGPU_OP_MIN ? UINT32_MAX : 0; memcpy(out, &v, 4); break; }
    case MGPU_I64: { int64_t v = op == MGPU_OP_MIN ? INT64_MAX : INT64_MIN; memcpy(out, &v, 8); break; }
    case MGPU_U64: { uint64_t v = op == MGPU_OP_MIN ? UINT64_MAX : 0; memcpy(out, &v, 8); break; }
    }
}

/* The exact reduction (integers, min, max) or, for float sums, the sum in long double and
   the sum of magnitudes (the error bound's scale). */
static void reference(mgpu_dtype t, mgpu_op op, const void *p, size_t n, unsigned char *exact, long double *sum,
                      long double *mag)
{
    size_t i, es = tsize(t);
    identity(t, op, exact);
    *sum = 0; *mag = 0;
    for (i = 0; i < n; i++) {
        const unsigned char *e = (const unsigned char *)p + i * es;
        tfold(t, op, exact, e);
        if (t == MGPU_F32) { float v; memcpy(&v, e, 4); *sum += v; *mag += v < 0 ? -v : v; }
        if (t == MGPU_F64) { double v; memcpy(&v, e, 8); *sum += v; *mag += v < 0 ? -v : v; }
    }
}

/* A reduction result against the reference: bit-exact, except float sums within a bound
   of the pairwise / double-accumulated error. */
static int result_ok(mgpu_dtype t, mgpu_op op, const void *got, const unsigned char *exact, long double sum, long double mag,
                     char *why, size_t cap)
{
    if (op == MGPU_OP_SUM && (t == MGPU_F32 || t == MGPU_F64)) {
        long double g, tol = (t == MGPU_F32 ? 1e-6L : 1e-13L) * mag + (t == MGPU_F32 ? 1e-30L : 1e-300L);
        if (t == MGPU_F32) { float f; memcpy(&f, got, 4); g = f; } else { double d; memcpy(&d, got, 8); g = d; }
        if (g - sum > tol || sum - g > tol) {
            snprintf(why, cap, "sum %.10Lg, expected %.10Lg (+-%.3Lg)", g, sum, tol);
            return 0;
        }
        return 1;
    }
    if (memcmp(got, exact, tsize(t))) {
        uint64_t a = 0, b = 0;
        memcpy(&a, got, tsize(t));
        memcpy(&b, exact, tsize(t));
        snprintf(why, cap, "got bits 0x%llx, expected 0x%llx", (unsigned long long)a, (unsigned long long)b);
        return 0;
    }
    return 1;
}

/* Memory of device d (bytes may be 0: one byte then). */
static void *dalloc(mgpu_device d, size_t bytes)
{
    void *p = NULL;
    if (mgpu_set_device(d) != MGPU_SUCCESS || mgpu_malloc(&p, bytes ? bytes : 1) != MGPU_SUCCESS) {
        fail_at(__FILE__, __LINE__, "allocating %zu bytes on device %d: %s", bytes, d, mgpu_last_error());
        p = NULL;
    }
    mgpu_set_device(g_dev[0]);
    return p;
}
static void dfree(void *p) { if (p) CHECK_OK(mgpu_free(p)); }
static void upload(void *dst, const void *src, size_t bytes) { if (bytes) CHECK_OK(mgpu_memcpy(dst, src, bytes)); }
static void download(void *dst, const void *src, size_t bytes) { if (bytes) CHECK_OK(mgpu_memcpy(dst, src, bytes)); }

static void set_chunk(size_t bytes, int copy)
{
    mgpu_collective_tuning tu;
    memset(&tu, 0, sizeof tu);
    tu.chunk_bytes = bytes;
    tu.allreduce_copy = copy;
    CHECK_OK(mgpu_collective_tuning_set(&tu));
}

/* ---------------------------------------------------------------- split */
static int same_ranges(const mgpu_range *a, const mgpu_range *b, int n)
{
    int i;
    for (i = 0; i < n; i++)
        if (a[i].device != b[i].device || a[i].offset != b[i].offset || a[i].count != b[i].count) return 0;
    return 1;
}

static void check_tiling(const mgpu_range *r, const mgpu_device *devs, int nd, size_t n, size_t align, const char *what)
{
    size_t off = 0;
    int i;
    for (i = 0; i < nd; i++) {
        if (r[i].device != devs[i]) fail_at(__FILE__, __LINE__, "%s: range %d is for device %d", what, i, r[i].device);
        if (r[i].offset != off) fail_at(__FILE__, __LINE__, "%s: range %d starts at %zu, not %zu", what, i, r[i].offset, off);
        if (align > 1 && r[i].offset % align && r[i].count)
            fail_at(__FILE__, __LINE__, "%s: range %d starts at %zu, not a multiple of %zu", what, i, r[i].offset, align);
        if (align > 1 && r[i].count % align && r[i].offset + r[i].count != n)
            fail_at(__FILE__, __LINE__, "%s: range %d has %zu elements and is not the last", what, i, r[i].count);
        off += r[i].count;
    }
    if (off != n) fail_at(__FILE__, __LINE__, "%s: ranges cover %zu of %zu", what, off, n);
}

static void test_split_even(void)
{
    static const size_t ns[] = { 0, 1, 3, 7, 1000, 1023, ((size_t)1 << 20) + 7 };
    static const size_t aligns[] = { 0, 1, 4, 64, 1000 };
    mgpu_range r[MGPU_MAX_DEVICES];
    unsigned a, k;
    int i;
    for (k = 0; k < sizeof ns / sizeof ns[0]; k++)
        for (a = 0; a < sizeof aligns / sizeof aligns[0]; a++) {
            size_t n = ns[k], al = aligns[a] ? aligns[a] : 1, units = (n + al - 1) / al, lo = units / (size_t)g_ndev;
            char what[64];
            snprintf(what, sizeof what, "even n=%zu align=%zu", n, al);
            REQUIRE_OK(mgpu_split(n, NULL, 0, MGPU_SPLIT_EVEN, NULL, 0, aligns[a], r));
            check_tiling(r, g_dev, g_ndev, n, al, what);
            for (i = 0; i < g_ndev; i++) {        /* floor or ceil of the units, extras first */
                size_t u = (r[i].count + al - 1) / al, want = lo + ((size_t)i < units % (size_t)g_ndev);
                if (u != want) fail_at(__FILE__, __LINE__, "%s: device %d has %zu units, expected %zu", what, i, u, want);
            }
        }
    /* An explicit list, in a different order, is honoured. */
    if (g_ndev >= 2) {
        mgpu_device rev[2];
        rev[0] = g_dev[1]; rev[1] = g_dev[0];
        REQUIRE_OK(mgpu_split(11, rev, 2, MGPU_SPLIT_EVEN, NULL, 0, 0, r));
        check_tiling(r, rev, 2, 11, 1, "even, reversed list");
        CHECK(r[0].count == 6 && r[1].count == 5);
    }
    /* devs NULL with ndev > 0: devices 0..ndev-1. */
    REQUIRE_OK(mgpu_split(10, NULL, 1, MGPU_SPLIT_EVEN, NULL, 0, 0, r));
    CHECK(r[0].device == 0 && r[0].count == 10);
}

static void test_split_weighted(void)
{
    double w[MGPU_MAX_DEVICES], total = 0;
    mgpu_range r[MGPU_MAX_DEVICES], r2[MGPU_MAX_DEVICES];
    size_t n = 1000003;
    int i;
    for (i = 0; i < g_ndev; i++) { w[i] = (double)(i + 1); total += w[i]; }
    REQUIRE_OK(mgpu_split(n, NULL, 0, MGPU_SPLIT_WEIGHTED, w, 0, 16, r));
    check_tiling(r, g_dev, g_ndev, n, 16, "weighted 1:2:3:..");
    for (i = 0; i < g_ndev; i++) {                /* within one unit of the exact share */
        double want = (double)n * w[i] / total, got = (double)r[i].count;
        if (got - want > 16.0 + 1e-6 || want - got > 16.0 + 1e-6)
            fail_at(__FILE__, __LINE__, "weighted: device %d has %zu, share %.1f", i, r[i].count, want);
    }
    /* Deterministic. */
    REQUIRE_OK(mgpu_split(n, NULL, 0, MGPU_SPLIT_WEIGHTED, w, 0, 16, r2));
    CHECK(same_ranges(r, r2, g_ndev));
    /* A zero weight gets nothing (and the others everything). */
    if (g_ndev >= 2) {
        w[0] = 0;
        REQUIRE_OK(mgpu_split(n, NULL, 0, MGPU_SPLIT_WEIGHTED, w, 0, 1, r));
        CHECK(r[0].count == 0);
        check_tiling(r, g_dev, g_ndev, n, 1, "weighted, first weight 0");
    }
    /* NULL: the devices' throughput weights; identical devices split evenly. */
    REQUIRE_OK(mgpu_split(n, NULL, 0, MGPU_SPLIT_WEIGHTED, NULL, 0, 1, r));
    check_tiling(r, g_dev, g_ndev, n, 1, "weighted by throughput");
    {
        mgpu_device_info a, b;
        int same = 1;
        for (i = 1; i < g_ndev; i++) {
            CHECK_OK(mgpu_device_info_get(g_dev[0], &a));
            CHECK_OK(mgpu_device_info_get(g_dev[i], &b));
            same &= a.throughput_weight == b.throughput_weight;
        }
        if (same) for (i = 0; i < g_ndev; i++) CHECK(r[i].count == n / (size_t)g_ndev + ((size_t)i < n % (size_t)g_ndev));
    }
}

static void test_split_memory(void)
{
    mgpu_range r[MGPU_MAX_DEVICES];
    size_t cap[MGPU_MAX_DEVICES], total = 0, elem, n;
    mgpu_device_info info;
    int i;
    /* An element a hundredth of the device's free memory: each device holds about 100. */
    REQUIRE_OK(mgpu_device_info_get(g_dev[0], &info));
    elem = info.free_memory / 100;
    REQUIRE(elem > 0);
    for (i = 0; i < g_ndev; i++) {
        REQUIRE_OK(mgpu_device_info_get(g_dev[i], &info));
        cap[i] = info.free_memory / elem;
        total += cap[i];
    }
    n = total / 2;
    REQUIRE_OK(mgpu_split(n, NULL, 0, MGPU_SPLIT_MEMORY_AWARE, NULL, elem, 1, r));
    check_tiling(r, g_dev, g_ndev, n, 1, "memory-aware, half full");
    for (i = 0; i < g_ndev; i++)                  /* free memory moves a little between calls */
        if (r[i].count > cap[i] + cap[i] / 20 + 1)
            fail_at(__FILE__, __LINE__, "device %d got %zu elements of %zu bytes, room for about %zu", i, r[i].count, elem, cap[i]);
    CHECK_ERR(mgpu_split(total * 3, NULL, 0, MGPU_SPLIT_MEMORY_AWARE, NULL, elem, 1, r), MGPU_ERROR_OUT_OF_MEMORY);
    /* Weights push more onto device 0 than fits: the rest moves to the others. */
    if (g_ndev >= 2) {
        double w[MGPU_MAX_DEVICES];
        for (i = 0; i < g_ndev; i++) w[i] = i == 0 ? 1000.0 : 1.0;
        n = total * 3 / 4;
        REQUIRE_OK(mgpu_split(n, NULL, 0, MGPU_SPLIT_MEMORY_AWARE, w, elem, 1, r));
        check_tiling(r, g_dev, g_ndev, n, 1, "memory-aware, device 0 favoured");
        CHECK(r[0].count <= cap[0] + cap[0] / 20 + 1);
        CHECK(r[0].count + cap[0] / 10 + 2 >= cap[0]);   /* device 0 is (about) full */
    }
    /* One element bigger than any device's free memory. */
    CHECK_ERR(mgpu_split(1, NULL, 0, MGPU_SPLIT_MEMORY_AWARE, NULL, info.free_memory * 4 + 1, 1, r), MGPU_ERROR_OUT_OF_MEMORY);
    REQUIRE_OK(mgpu_split(0, NULL, 0, MGPU_SPLIT_MEMORY_AWARE, NULL, SIZE_MAX, 1, r));
}

static void test_split_bad(void)
{
    mgpu_range r[MGPU_MAX_DEVICES], keep;
    mgpu_device bad[2], dup[2];
    double w[MGPU_MAX_DEVICES];
    double zero = 0.0;
    int i;
    for (i = 0; i < g_ndev; i++) w[i] = 1.0;
    bad[0] = g_dev[0]; bad[1] = 999;
    dup[0] = g_dev[0]; dup[1] = g_dev[0];
    r[0].device = 77; r[0].offset = 78; r[0].count = 79;
    keep = r[0];
    CHECK_ERR(mgpu_split(10, NULL, 0, MGPU_SPLIT_EVEN, NULL, 0, 1, NULL), MGPU_ERROR_INVALID_ARGUMENT);
    CHECK_ERR(mgpu_split(10, bad, 2, MGPU_SPLIT_EVEN, NULL, 0, 1, r), MGPU_ERROR_INVALID_DEVICE);
    CHECK_ERR(mgpu_split(10, dup, 2, MGPU_SPLIT_EVEN, NULL, 0, 1, r), MGPU_ERROR_INVALID_ARGUMENT);
    CHECK_ERR(mgpu_split(10, NULL, -1, MGPU_SPLIT_EVEN, NULL, 0, 1, r), MGPU_ERROR_INVALID_ARGUMENT);
    CHECK_ERR(mgpu_split(10, g_dev, 0, MGPU_SPLIT_EVEN, NULL, 0, 1, r), MGPU_ERROR_INVALID_ARGUMENT);
    CHECK_ERR(mgpu_split(10, NULL, MGPU_MAX_DEVICES + 1, MGPU_SPLIT_EVEN, NULL, 0, 1, r), MGPU_ERROR_INVALID_ARGUMENT);
    CHECK_ERR(mgpu_split(10, NULL, 0, (mgpu_split_strategy)0, NULL, 0, 1, r), MGPU_ERROR_INVALID_ARGUMENT);
    CHECK_ERR(mgpu_split(10, NULL, 0, (mgpu_split_strategy)99, NULL, 0, 1, r), MGPU_ERROR_INVALID_ARGUMENT);
    CHECK_ERR(mgpu_split(10, NULL, 0, MGPU_SPLIT_MEMORY_AWARE, NULL, 0, 1, r), MGPU_ERROR_INVALID_ARGUMENT);
    w[0] = -1.0;
    CHECK_ERR(mgpu_split(10, NULL, 0, MGPU_SPLIT_WEIGHTED, w, 0, 1, r), MGPU_ERROR_INVALID_ARGUMENT);
    w[0] = zero / zero;                              /* NaN */
    CHECK_ERR(mgpu_split(10, NULL, 0, MGPU_SPLIT_WEIGHTED, w, 0, 1, r), MGPU_ERROR_INVALID_ARGUMENT);
    w[0] = 1.0 / zero;                               /* inf */
    CHECK_ERR(mgpu_split(10, NULL, 0, MGPU_SPLIT_WEIGHTED, w, 0, 1, r), MGPU_ERROR_INVALID_ARGUMENT);
    for (i = 0; i < g_ndev; i++) w[i] = 0.0;
    CHECK_ERR(mgpu_split(10, NULL, 0, MGPU_SPLIT_WEIGHTED, w, 0, 1, r), MGPU_ERROR_INVALID_ARGUMENT);
    CHECK(same_ranges(&r[0], &keep, 1));           /* outputs untouched */
    /* Huge n with alignment: no overflow. */
    REQUIRE_OK(mgpu_split(SIZE_MAX, NULL, 0, MGPU_SPLIT_EVEN, NULL, 0, 1000, r));
    check_tiling(r, g_dev, g_ndev, SIZE_MAX, 1000, "n = SIZE_MAX");
    for (i = 0; i < g_ndev; i++) w[i] = 1e300;
    REQUIRE_OK(mgpu_split(SIZE_MAX, NULL, 0, MGPU_SPLIT_WEIGHTED, w, 0, 3, r));
    check_tiling(r, g_dev, g_ndev, SIZE_MAX, 3, "n = SIZE_MAX, huge weights");
}

/* ---------------------------------------------------------------- reductions */
static void test_reduce_multi(void)
{
    size_t k, big = sizes[N_SIZES - 1];
    unsigned ti, oi;
    unsigned char *host = (unsigned char *)malloc(big * 8), got[8], again[8], exact[8];
    void *pinned = NULL;
    long double sum, mag;
    char why[200];
    REQUIRE(host);
    if (mgpu_malloc_host(&pinned, big * 8) != MGPU_SUCCESS) { free(host); REQUIRE(0); }
    for (ti = 0; ti < 6; ti++)
        for (oi = 0; oi < 3; oi++)
            for (k = 0; k < N_SIZES; k++) {
                mgpu_dtype t = all_types[ti];
                mgpu_op op = all_ops[oi];
                size_t n = sizes[k];
                int variant;
                fill(t, host, n);
                reference(t, op, host, n, exact, &sum, &mag);
                memcpy(pinned, host, n * tsize(t));
                /* 0: pageable, default chunks; 1: pageable, 64 KiB chunks (many chunks, the
                   two pinned buffers reused); 2: pinned source, 64 KiB chunks. */
                for (variant = 0; variant < 3; variant++) {
                    const void *src = variant == 2 ? pinned : (const void *)host;
                    if (variant == 1 && k < N_SIZES - 1) continue;
                    set_chunk(variant ? 65536 : 0, 0);
                    memset(got, 0xAB, sizeof got);
                    CHECK_OK(mgpu_reduce_multi(src, n, t, op, got, NULL, 0, NULL));
                    if (!result_ok(t, op, got, exact, sum, mag, why, sizeof why))
                        fail_at(__FILE__, __LINE__, "%s %s n=%zu variant %d: %s", tname(t), oname(op), n, variant, why);
                    CHECK_OK(mgpu_reduce_multi(src, n, t, op, again, NULL, 0, NULL));
                    if (memcmp(got, again, tsize(t)))
                        fail_at(__FILE__, __LINE__, "%s %s n=%zu: two runs differ", tname(t), oname(op), n);
                }
            }
    set_chunk(0, 0);
    /* Explicit ranges (weighted 1:2:..) and a sub-list of devices. */
    {
        mgpu_range r[MGPU_MAX_DEVICES];
        double w[MGPU_MAX_DEVICES];
        int i;
        for (i = 0; i < g_ndev; i++) w[i] = i + 1.0;
        fill(MGPU_F64, host, big);
        reference(MGPU_F64, MGPU_OP_SUM, host, big, exact, &sum, &mag);
        CHECK_OK(mgpu_split(big, NULL, 0, MGPU_SPLIT_WEIGHTED, w, 0, 1, r));
        CHECK_OK(mgpu_reduce_multi(host, big, MGPU_F64, MGPU_OP_SUM, got, NULL, 0, r));
        if (!result_ok(MGPU_F64, MGPU_OP_SUM, got, exact, sum, mag, why, sizeof why)) fail_at(__FILE__, __LINE__, "ranges: %s", why);
        if (g_ndev >= 2) {
            mgpu_device sub[2];
            sub[0] = g_dev[g_ndev - 1]; sub[1] = g_dev[0];
            CHECK_OK(mgpu_reduce_multi(host, big, MGPU_F64, MGPU_OP_SUM, got, sub, 2, NULL));
            if (!result_ok(MGPU_F64, MGPU_OP_SUM, got, exact, sum, mag, why, sizeof why)) fail_at(__FILE__, __LINE__, "sub-list: %s", why);
        }
    }
    CHECK_OK(mgpu_free_host(pinned));
    free(host);
}

static void test_reduce_resident(void)
{
    size_t big = sizes[N_SIZES - 1], counts[MGPU_MAX_DEVICES];
    void *bufs[MGPU_MAX_DEVICES];
    unsigned char *host = (unsigned char *)malloc(big * 8 * 2), got[8], exact[8];
    long double sum, mag;
    unsigned ti, oi, k;
    char why[200];
    int i;
    REQUIRE(host);
    for (i = 0; i < g_ndev; i++) bufs[i] = dalloc(g_dev[i], big * 8);
    for (i = 0; i < g_ndev; i++) if (!bufs[i]) goto out;
    for (ti = 0; ti < 6; ti++)
        for (oi = 0; oi < 3; oi++)
            for (k = 0; k < N_SIZES; k++) {
                mgpu_dtype t = all_types[ti];
                mgpu_op op = all_ops[oi];
                size_t total = 0, es = tsize(t);
                /* Device i holds sizes[k] >> i elements (the last one none, with 2+ devices). */
                for (i = 0; i < g_ndev; i++) {
                    counts[i] = (g_ndev > 1 && i == g_ndev - 1) ? 0 : sizes[k] >> i;
                    fill(t, host + total * es, counts[i]);
                    upload(bufs[i], host + total * es, counts[i] * es);
                    total += counts[i];
                }
                reference(t, op, host, total, exact, &sum, &mag);
                memset(got, 0xAB, sizeof got);
                CHECK_OK(mgpu_reduce_resident((const void *const *)bufs, counts, t, op, got, NULL, 0, NULL));
                if (!result_ok(t, op, got, exact, sum, mag, why, sizeof why))
                    fail_at(__FILE__, __LINE__, "%s %s n=%zu: %s", tname(t), oname(op), sizes[k], why);
            }
    /* On streams of our own. */
    {
        mgpu_stream s[MGPU_MAX_DEVICES];
        size_t total = 0;
        for (i = 0; i < g_ndev; i++) {
            CHECK_OK(mgpu_set_device(g_dev[i]));
            CHECK_OK(mgpu_stream_create(&s[i]));
            counts[i] = 5000 + (size_t)i;
            fill(MGPU_I64, host + total * 8, counts[i]);
            CHECK_OK(mgpu_memcpy_async(bufs[i], host + total * 8, counts[i] * 8, s[i]));
            total += counts[i];
        }
        CHECK_OK(mgpu_set_device(g_dev[0]));
        reference(MGPU_I64, MGPU_OP_SUM, host, total, exact, &sum, &mag);
        CHECK_OK(mgpu_reduce_resident((const void *const *)bufs, counts, MGPU_I64, MGPU_OP_SUM, got, NULL, 0, s));
        CHECK(!memcmp(got, exact, 8));
        for (i = 0; i < g_ndev; i++) CHECK_OK(mgpu_stream_destroy(s[i]));
    }
out:
    for (i = 0; i < g_ndev; i++) dfree(bufs[i]);
    free(host);
}

/* ---------------------------------------------------------------- broadcast, scatter, gather */
static void test_broadcast(void)
{
    static const size_t bytes_list[] = { 0, 1, 1023, 4 * (((size_t)1 << 20) + 7) };
    size_t big = bytes_list[3];
    void *bufs[MGPU_MAX_DEVICES];
    unsigned char *want = (unsigned char *)malloc(big + 16), *back = (unsigned char *)malloc(big + 16);
    unsigned b, variant;
    int i, root;
    REQUIRE(want && back);
    for (i = 0; i < g_ndev; i++) bufs[i] = dalloc(g_dev[i], big);
    for (i = 0; i < g_ndev; i++) if (!bufs[i]) goto out;
    for (variant = 0; variant < 2; variant++)        /* default chunks; 4 KiB chunks */
        for (b = 0; b < sizeof bytes_list / sizeof bytes_list[0]; b++)
            for (root = 0; root < g_ndev; root++) {
                size_t bytes = bytes_list[b];
                if (variant && b < 3) continue;
                set_chunk(variant ? 4096 : 0, 0);
                for (i = 0; i < g_ndev; i++) {    /* garbage everywhere, the data at the root */
                    fill(MGPU_U32, want, (bytes + 3) / 4);
                    upload(bufs[i], want, bytes);
                }
                fill(MGPU_U64, want, (bytes + 7) / 8);
                upload(bufs[root], want, bytes);
                if (variant == 0 && root % 2 == 0) {
                    CHECK_OK(mgpu_broadcast(bufs, bytes, root, NULL, 0));
                } else {
                    mgpu_stream s[MGPU_MAX_DEVICES];
                    for (i = 0; i < g_ndev; i++) { CHECK_OK(mgpu_set_device(g_dev[i])); CHECK_OK(mgpu_stream_create(&s[i])); }
                    CHECK_OK(mgpu_set_device(g_dev[0]));
                    CHECK_OK(mgpu_broadcast_async(bufs, bytes, root, NULL, 0, s));
                    for (i = 0; i < g_ndev; i++) { CHECK_OK(mgpu_stream_synchronize(s[i])); CHECK_OK(mgpu_stream_destroy(s[i])); }
                }
                for (i = 0; i < g_ndev; i++) {
                    memset(back, 0, bytes);
                    download(back, bufs[i], bytes);
                    if (memcmp(back, want, bytes))
                        fail_at(__FILE__, __LINE__, "broadcast of %zu bytes from list index %d: device %d differs%s",
                                bytes, root, g_dev[i], variant ? " (4 KiB chunks)" : "");
                }
            }
out:
    set_chunk(0, 0);
    for (i = 0; i < g_ndev; i++) dfree(bufs[i]);
    free(want);
    free(back);
}

static void test_scatter_gather(void)
{
    size_t n = sizes[N_SIZES - 1], k;
    mgpu_range r[MGPU_MAX_DEVICES];
    void *parts[MGPU_MAX_DEVICES];
    uint32_t *host = (uint32_t *)malloc(n * 4), *back = (uint32_t *)malloc(n * 4);
    void *dsrc = NULL, *ddst = NULL;
    int i, s;
    REQUIRE(host && back);
    for (i = 0; i < g_ndev; i++) parts[i] = NULL;
    for (k = 0; k < N_SIZES; k++) {
        size_t m = sizes[k];
        for (s = 0; s < 3; s++) {                    /* even; weighted 1:2:..; a device gets 0 */
            double w[MGPU_MAX_DEVICES];
            for (i = 0; i < g_ndev; i++) w[i] = s == 1 ? i + 1.0 : (s == 2 && i == 0 && g_ndev > 1) ? 0.0 : 1.0;
            REQUIRE_OK(mgpu_split(m, NULL, 0, s ? MGPU_SPLIT_WEIGHTED : MGPU_SPLIT_EVEN, w, 0, 4, r));
            for (i = 0; i < g_ndev; i++) parts[i] = r[i].count ? dalloc(g_dev[i], r[i].count * 4) : NULL;
            fill(MGPU_U32, host, m);
            memset(back, 0, m * 4);
            CHECK_OK(mgpu_scatter(host, 4, r, g_ndev, parts));
            CHECK_OK(mgpu_gather(back, 4, r, g_ndev, (const void *const *)parts));
            if (memcmp(back, host, m * 4)) fail_at(__FILE__, __LINE__, "host round trip of %zu elements, split %d", m, s);
            for (i = 0; i < g_ndev; i++) {         /* each part holds its slice */
                uint32_t first = 0;
                if (!r[i].count) continue;
                download(&first, parts[i], 4);
                CHECK(first == host[r[i].offset]);
            }
            /* From and to device memory of the first device, on streams. */
            if (m) {
                mgpu_stream st[MGPU_MAX_DEVICES];
                dsrc = dalloc(g_dev[0], m * 4);
                ddst = dalloc(g_dev[0], m * 4);
                if (dsrc && ddst) {
                    upload(dsrc, host, m * 4);
                    for (i = 0; i < g_ndev; i++) { CHECK_OK(mgpu_set_device(g_dev[i])); CHECK_OK(mgpu_stream_create(&st[i])); }
                    CHECK_OK(mgpu_set_device(g_dev[0]));
                    for (i = 0; i < g_ndev; i++) if (parts[i]) CHECK_OK(mgpu_memset(parts[i], 0, r[i].count * 4));
                    CHECK_OK(mgpu_scatter_async(dsrc, 4, r, g_ndev, parts, st));
                    for (i = 0; i < g_ndev; i++) CHECK_OK(mgpu_stream_synchronize(st[i]));
                    CHECK_OK(mgpu_gather_async(ddst, 4, r, g_ndev, (const void *const *)parts, st));
                    for (i = 0; i < g_ndev; i++) { CHECK_OK(mgpu_stream_synchronize(st[i])); CHECK_OK(mgpu_stream_destroy(st[i])); }
                    memset(back, 0, m * 4);
                    download(back, ddst, m * 4);
                    if (memcmp(back, host, m * 4)) fail_at(__FILE__, __LINE__, "device round trip of %zu elements, split %d", m, s);
                }
                dfree(dsrc); dfree(ddst);
                dsrc = ddst = NULL;
            }
            for (i = 0; i < g_ndev; i++) { dfree(parts[i]); parts[i] = NULL; }
        }
    }
    free(host);
    free(back);
}

/* ---------------------------------------------------------------- all-reduce */
/* The documented result: element e of slice r (even split, 256-byte boundaries) is
   op(...op(b_r[e], b_{r+1}[e])..., b_{r+N-1}[e]). */
static void allreduce_reference(mgpu_dtype t, mgpu_op op, unsigned char *const *in, int N, size_t n,
                                const mgpu_device *list, unsigned char *out)
{
    mgpu_range sl[MGPU_MAX_DEVICES];
    size_t es = tsize(t), e;
    int r, k;
    if (mgpu_split(n, list, N, MGPU_SPLIT_EVEN, NULL, 0, 256 / es, sl) != MGPU_SUCCESS) {
        fail_at(__FILE__, __LINE__, "mgpu_split: %s", mgpu_last_error());
        return;
    }
    for (r = 0; r < N; r++)
        for (e = sl[r].offset; e < sl[r].offset + sl[r].count; e++) {
            memcpy(out + e * es, in[r] + e * es, es);
            for (k = 1; k < N; k++) tfold(t, op, out + e * es, in[(r + k) % N] + e * es);
        }
}

/* One all-reduce of n elements over list[0..N) (a mode: 0 sync, 1 async on our streams),
   checked bit for bit against the documented order and across devices. */
static void allreduce_once(mgpu_dtype t, mgpu_op op, size_t n, const mgpu_device *list, int N, int mode, const char *what)
{
    unsigned char *in[MGPU_MAX_DEVICES], *want, *back;
    void *bufs[MGPU_MAX_DEVICES];
    size_t es = tsize(t), bytes = n * es;
    int i, ok = 1;
    want = (unsigned char *)malloc(bytes + 1);
    back = (unsigned char *)malloc(bytes + 1);
    for (i = 0; i < N; i++) { in[i] = (unsigned char *)malloc(bytes + 1); bufs[i] = dalloc(list[i], bytes); }
    for (i = 0; i < N; i++) if (!in[i] || !bufs[i]) ok = 0;
    if (!want || !back || !ok) { fail_at(__FILE__, __LINE__, "out of memory"); goto out; }
    for (i = 0; i < N; i++) { fill(t, in[i], n); upload(bufs[i], in[i], bytes); }
    if (N == 1) memcpy(want, in[0], bytes);
    else allreduce_reference(t, op, in, N, n, list, want);
    if (mode == 0) {
        CHECK_OK(mgpu_allreduce(bufs, n, t, op, list, N));
    } else {
        mgpu_stream s[MGPU_MAX_DEVICES];
        for (i = 0; i < N; i++) { CHECK_OK(mgpu_set_device(list[i])); CHECK_OK(mgpu_stream_create(&s[i])); }
        CHECK_OK(mgpu_set_device(g_dev[0]));
        CHECK_OK(mgpu_allreduce_async(bufs, n, t, op, list, N, s));
        for (i = 0; i < N; i++) { CHECK_OK(mgpu_stream_synchronize(s[i])); CHECK_OK(mgpu_stream_destroy(s[i])); }
    }
    for (i = 0; i < N; i++) {
        download(back, bufs[i], bytes);
        if (memcmp(back, want, bytes)) {
            size_t e = 0;
            while (e < n && !memcmp(back + e * es, want + e * es, es)) e++;
            fail_at(__FILE__, __LINE__, "%s: %s %s n=%zu: device %d differs at element %zu", what, tname(t), oname(op), n, list[i], e);
            break;
        }
    }
out:
    for (i = 0; i < N; i++) { free(in[i]); dfree(bufs[i]); }
    free(want);
    free(back);
}

static void test_allreduce(void)
{
    unsigned ti, oi, k;
    for (ti = 0; ti < 6; ti++)
        for (oi = 0; oi < 3; oi++)
            for (k = 0; k < N_SIZES; k++)
                allreduce_once(all_types[ti], all_ops[oi], sizes[k], g_dev, g_ndev, k % 2, "all devices");
}

static void test_allreduce_variants(void)
{
    mgpu_device sub[MGPU_MAX_DEVICES];
    int i;
    size_t big = sizes[N_SIZES - 1];
    /* Small chunks: many pipeline steps; then the copy path (scratch, double-buffered). */
    set_chunk(4096, 0);
    allreduce_once(MGPU_F32, MGPU_OP_SUM, big, g_dev, g_ndev, 1, "4 KiB chunks");
    allreduce_once(MGPU_I32, MGPU_OP_MAX, 5000, g_dev, g_ndev, 0, "4 KiB chunks");
    set_chunk(4096, 1);
    allreduce_once(MGPU_F32, MGPU_OP_SUM, big, g_dev, g_ndev, 1, "copy path, 4 KiB chunks");
    allreduce_once(MGPU_F64, MGPU_OP_MIN, 1023, g_dev, g_ndev, 0, "copy path, 4 KiB chunks");
    set_chunk(0, 1);
    allreduce_once(MGPU_U64, MGPU_OP_SUM, big, g_dev, g_ndev, 0, "copy path");
    set_chunk(0, 0);
    /* A permuted list and a sub-list. */
    for (i = 0; i < g_ndev; i++) sub[i] = g_dev[(i * 3 + 1) % g_ndev];
    if (g_ndev % 3) allreduce_once(MGPU_F64, MGPU_OP_SUM, 100003, sub, g_ndev, 1, "permuted list");
    if (g_ndev >= 3) {
        sub[0] = g_dev[2]; sub[1] = g_dev[0];
        allreduce_once(MGPU_F32, MGPU_OP_SUM, 77777, sub, 2, 0, "devices {2, 0}");
    }
    /* GPUs and a CPU device together (copies between them; no peer loads). */
    if (is_cuda(g_dev[0]) && mgpu_cpu_device_count() > 0) {
        mgpu_device mixed[3];
        int nm = 0;
        mixed[nm++] = g_dev[0];
        mixed[nm++] = mgpu_cpu_device(0);
        if (g_ndev > 1) mixed[nm++] = g_dev[1];
        allreduce_once(MGPU_F32, MGPU_OP_SUM, 300001, mixed, nm, 1, "GPUs and a CPU device");
        allreduce_once(MGPU_I32, MGPU_OP_MIN, 1023, mixed, nm, 0, "GPUs and a CPU device");
    }
}

/* ---------------------------------------------------------------- bad inputs */
static void test_bad_inputs(void)
{
    void *bufs[MGPU_MAX_DEVICES], *wrong[MGPU_MAX_DEVICES], *nullbuf[MGPU_MAX_DEVICES];
    mgpu_device bad[2], dup[2];
    mgpu_stream s[MGPU_MAX_DEVICES], swapped[MGPU_MAX_DEVICES];
    mgpu_range r[MGPU_MAX_DEVICES], holes[MGPU_MAX_DEVICES];
    size_t counts[MGPU_MAX_DEVICES], big = (SIZE_MAX / 4) + 1;
    unsigned char res[8], keep[8];
    float host[64];
    int i;
    for (i = 0; i < g_ndev; i++) { bufs[i] = dalloc(g_dev[i], 4096); nullbuf[i] = bufs[i]; counts[i] = 16; }
    for (i = 0; i < g_ndev; i++) if (!bufs[i]) goto out;
    for (i = 0; i < g_ndev; i++) wrong[i] = bufs[(i + 1) % g_ndev];
    for (i = 0; i < g_ndev; i++) { CHECK_OK(mgpu_set_device(g_dev[i])); CHECK_OK(mgpu_stream_create(&s[i])); }
    CHECK_OK(mgpu_set_device(g_dev[0]));
    for (i = 0; i < g_ndev; i++) swapped[i] = s[(i + 1) % g_ndev];
    nullbuf[0] = NULL;
    bad[0] = g_dev[0]; bad[1] = 999;
    dup[0] = g_dev[0]; dup[1] = g_dev[0];
    memset(host, 0, sizeof host);
    CHECK_OK(mgpu_split(64, NULL, 0, MGPU_SPLIT_EVEN, NULL, 0, 1, r));
    memcpy(holes, r, sizeof r);
    holes[0].count += 1;                              /* no longer tiles [0, 64) */
    memset(res, 0x3C, sizeof res);
    memcpy(keep, res, sizeof res);

    /* mgpu_reduce_multi */
    CHECK_ERR(mgpu_reduce_multi(host, 64, MGPU_F32, MGPU_OP_SUM, NULL, NULL, 0, NULL), MGPU_ERROR_INVALID_ARGUMENT);
    CHECK_ERR(mgpu_reduce_multi(NULL, 64, MGPU_F32, MGPU_OP_SUM, res, NULL, 0, NULL), MGPU_ERROR_INVALID_ARGUMENT);
    CHECK_ERR(mgpu_reduce_multi(host, 64, (mgpu_dtype)99, MGPU_OP_SUM, res, NULL, 0, NULL), MGPU_ERROR_INVALID_ARGUMENT);
    CHECK_ERR(mgpu_reduce_multi(host, 64, MGPU_F32, (mgpu_op)0, res, NULL, 0, NULL), MGPU_ERROR_INVALID_ARGUMENT);
    CHECK_ERR(mgpu_reduce_multi(host, big, MGPU_F32, MGPU_OP_SUM, res, NULL, 0, NULL), MGPU_ERROR_SIZE_OVERFLOW);
    CHECK_ERR(mgpu_reduce_multi(host, 64, MGPU_F32, MGPU_OP_SUM, res, bad, 2, NULL), MGPU_ERROR_INVALID_DEVICE);
    CHECK_ERR(mgpu_reduce_multi(host, 64, MGPU_F32, MGPU_OP_SUM, res, dup, 2, NULL), MGPU_ERROR_INVALID_ARGUMENT);
    CHECK_ERR(mgpu_reduce_multi(host, 64, MGPU_F32, MGPU_OP_SUM, res, NULL, 0, holes), MGPU_ERROR_INVALID_ARGUMENT);
    CHECK_ERR(mgpu_reduce_multi(host, 63, MGPU_F32, MGPU_OP_SUM, res, NULL, 0, r), MGPU_ERROR_INVALID_ARGUMENT);
    CHECK_ERR(mgpu_reduce_multi((char *)host + 1, 8, MGPU_F32, MGPU_OP_SUM, res, NULL, 0, NULL), MGPU_ERROR_INVALID_ARGUMENT);
    CHECK_ERR(mgpu_reduce_multi(bufs[0], 2000, MGPU_F32, MGPU_OP_SUM, res, NULL, 0, NULL),
              is_cuda(g_dev[0]) ? MGPU_ERROR_INVALID_POINTER : MGPU_ERROR_INVALID_ARGUMENT);   /* GPU memory; past the end */
    if (is_cuda(g_dev[0])) {                          /* the result must be host memory */
        CHECK_ERR(mgpu_reduce_multi(host, 64, MGPU_F32, MGPU_OP_SUM, bufs[0], NULL, 0, NULL), MGPU_ERROR_INVALID_POINTER);
        CHECK_ERR(mgpu_reduce_resident((const void *const *)bufs, counts, MGPU_F32, MGPU_OP_SUM, bufs[0], NULL, 0, NULL),
                  MGPU_ERROR_INVALID_POINTER);
    }
    CHECK(!memcmp(res, keep, sizeof res));

    /* mgpu_reduce_resident */
    CHECK_ERR(mgpu_reduce_resident(NULL, counts, MGPU_F32, MGPU_OP_SUM, res, NULL, 0, NULL), MGPU_ERROR_INVALID_ARGUMENT);
    CHECK_ERR(mgpu_reduce_resident((const void *const *)bufs, NULL, MGPU_F32, MGPU_OP_SUM, res, NULL, 0, NULL), MGPU_ERROR_INVALID_ARGUMENT);
    CHECK_ERR(mgpu_reduce_resident((const void *const *)nullbuf, counts, MGPU_F32, MGPU_OP_SUM, res, NULL, 0, NULL), MGPU_ERROR_INVALID_ARGUMENT);
    CHECK_ERR(mgpu_reduce_resident((const void *const *)bufs, counts, MGPU_U64, (mgpu_op)7, res, NULL, 0, NULL), MGPU_ERROR_INVALID_ARGUMENT);
    CHECK_ERR(mgpu_reduce_resident((const void *const *)bufs, counts, MGPU_F32, MGPU_OP_SUM, res, bad, 2, NULL), MGPU_ERROR_INVALID_DEVICE);
    counts[0] = big;
    CHECK_ERR(mgpu_reduce_resident((const void *const *)bufs, counts, MGPU_F32, MGPU_OP_SUM, res, NULL, 0, NULL), MGPU_ERROR_SIZE_OVERFLOW);
    counts[0] = 2000;                                 /* 8000 bytes of a 4096-byte buffer */
    CHECK_ERR(mgpu_reduce_resident((const void *const *)bufs, counts, MGPU_F32, MGPU_OP_SUM, res, NULL, 0, NULL), MGPU_ERROR_INVALID_ARGUMENT);
    counts[0] = 16;
    if (g_ndev >= 2) {
        CHECK_ERR(mgpu_reduce_resident((const void *const *)wrong, counts, MGPU_F32, MGPU_OP_SUM, res, NULL, 0, NULL), MGPU_ERROR_WRONG_DEVICE);
        CHECK_ERR(mgpu_reduce_resident((const void *const *)bufs, counts, MGPU_F32, MGPU_OP_SUM, res, NULL, 0, swapped), MGPU_ERROR_WRONG_DEVICE);
    }
    CHECK(!memcmp(res, keep, sizeof res));

    /* mgpu_allreduce(_async) */
    CHECK_ERR(mgpu_allreduce(NULL, 16, MGPU_F32, MGPU_OP_SUM, NULL, 0), MGPU_ERROR_INVALID_ARGUMENT);
    CHECK_ERR(mgpu_allreduce(nullbuf, 16, MGPU_F32, MGPU_OP_SUM, NULL, 0), MGPU_ERROR_INVALID_ARGUMENT);
    CHECK_ERR(mgpu_allreduce(bufs, 16, (mgpu_dtype)0, MGPU_OP_SUM, NULL, 0), MGPU_ERROR_INVALID_ARGUMENT);
    CHECK_ERR(mgpu_allreduce(bufs, 16, MGPU_F32, (mgpu_op)4, NULL, 0), MGPU_ERROR_INVALID_ARGUMENT);
    CHECK_ERR(mgpu_allreduce(bufs, big, MGPU_F32, MGPU_OP_SUM, NULL, 0), MGPU_ERROR_SIZE_OVERFLOW);
    CHECK_ERR(mgpu_allreduce(bufs, 2000, MGPU_F32, MGPU_OP_SUM, NULL, 0), MGPU_ERROR_INVALID_ARGUMENT);   /* past the end */
    CHECK_ERR(mgpu_allreduce(bufs, 16, MGPU_F32, MGPU_OP_SUM, bad, 2), MGPU_ERROR_INVALID_DEVICE);
    CHECK_ERR(mgpu_allreduce(bufs, 16, MGPU_F32, MGPU_OP_SUM, dup, 2), MGPU_ERROR_INVALID_ARGUMENT);
    CHECK_ERR(mgpu_allreduce(bufs, 16, MGPU_F32, MGPU_OP_SUM, NULL, -3), MGPU_ERROR_INVALID_ARGUMENT);
    {
        void *mis[MGPU_MAX_DEVICES];
        for (i = 0; i < g_ndev; i++) mis[i] = (char *)bufs[i] + 2;
        CHECK_ERR(mgpu_allreduce(mis, 16, MGPU_F32, MGPU_OP_SUM, NULL, 0), MGPU_ERROR_INVALID_ARGUMENT);   /* misaligned */
    }
    if (g_ndev >= 2) {
        CHECK_ERR(mgpu_allreduce(wrong, 16, MGPU_F32, MGPU_OP_SUM, NULL, 0), MGPU_ERROR_WRONG_DEVICE);
        CHECK_ERR(mgpu_allreduce_async(bufs, 16, MGPU_F32, MGPU_OP_SUM, NULL, 0, swapped), MGPU_ERROR_WRONG_DEVICE);
    }
    if (!is_cuda(g_dev[0]) && g_ndev >= 2) {         /* host memory two CPU devices share */
        void *ov[MGPU_MAX_DEVICES];
        for (i = 0; i < g_ndev; i++) ov[i] = host + 4 * i;    /* 16 floats each, 4 apart */
        CHECK_ERR(mgpu_allreduce(ov, 16, MGPU_F32, MGPU_OP_SUM, NULL, 0), MGPU_ERROR_INVALID_ARGUMENT);
        CHECK_ERR(mgpu_broadcast(ov, 64, 0, NULL, 0), MGPU_ERROR_INVALID_ARGUMENT);
    }
    if (is_cuda(g_dev[0])) {                          /* pageable host memory a GPU cannot reach */
        void *hp[MGPU_MAX_DEVICES];
        for (i = 0; i < g_ndev; i++) hp[i] = host;
        CHECK_ERR(mgpu_allreduce(hp, 16, MGPU_F32, MGPU_OP_SUM, NULL, 0), MGPU_ERROR_INVALID_POINTER);
    }

    /* mgpu_broadcast(_async) */
    CHECK_ERR(mgpu_broadcast(NULL, 64, 0, NULL, 0), MGPU_ERROR_INVALID_ARGUMENT);
    CHECK_ERR(mgpu_broadcast(bufs, 64, -1, NULL, 0), MGPU_ERROR_INVALID_ARGUMENT);
    CHECK_ERR(mgpu_broadcast(bufs, 64, g_ndev, NULL, 0), MGPU_ERROR_INVALID_ARGUMENT);
    CHECK_ERR(mgpu_broadcast(bufs, 64, 0, bad, 2), MGPU_ERROR_INVALID_DEVICE);
    CHECK_ERR(mgpu_broadcast(nullbuf, 64, 0, NULL, 0), MGPU_ERROR_INVALID_ARGUMENT);
    CHECK_ERR(mgpu_broadcast(bufs, 5000, 0, NULL, 0), MGPU_ERROR_INVALID_ARGUMENT);
    if (g_ndev >= 2) {
        CHECK_ERR(mgpu_broadcast(wrong, 64, 0, NULL, 0), MGPU_ERROR_WRONG_DEVICE);
        CHECK_ERR(mgpu_broadcast_async(bufs, 64, 0, NULL, 0, swapped), MGPU_ERROR_WRONG_DEVICE);
    }

    /* mgpu_scatter / mgpu_gather */
    CHECK_ERR(mgpu_scatter(host, 4, NULL, g_ndev, bufs), MGPU_ERROR_INVALID_ARGUMENT);
    CHECK_ERR(mgpu_scatter(host, 4, r, g_ndev, NULL), MGPU_ERROR_INVALID_ARGUMENT);
    CHECK_ERR(mgpu_scatter(NULL, 4, r, g_ndev, bufs), MGPU_ERROR_INVALID_ARGUMENT);
    CHECK_ERR(mgpu_scatter(host, 0, r, g_ndev, bufs), MGPU_ERROR_INVALID_ARGUMENT);
    CHECK_ERR(mgpu_scatter(host, 4, r, 0, bufs), MGPU_ERROR_INVALID_ARGUMENT);
    CHECK_ERR(mgpu_gather(host, 4, r, g_ndev, (const void *const *)nullbuf), MGPU_ERROR_INVALID_ARGUMENT);
    holes[0] = r[0];
    holes[0].device = 999;
    CHECK_ERR(mgpu_scatter(host, 4, holes, g_ndev, bufs), MGPU_ERROR_INVALID_DEVICE);
    holes[0] = r[0];
    holes[0].count = SIZE_MAX;
    CHECK_ERR(mgpu_scatter(host, 4, holes, g_ndev, bufs), MGPU_ERROR_SIZE_OVERFLOW);
    holes[0] = r[0];
    holes[0].count = 4096;                            /* 16 KiB into a 4 KiB buffer */
    CHECK_ERR(mgpu_gather(host, 4, holes, 1, (const void *const *)bufs), MGPU_ERROR_INVALID_ARGUMENT);
    holes[0].count = 1000;
    holes[0].offset = 0;                              /* 4000 bytes from a 4096-byte allocation at +200 */
    CHECK_ERR(mgpu_scatter((char *)bufs[0] + 200, 4, holes, 1, bufs), MGPU_ERROR_INVALID_ARGUMENT);
    if (g_ndev >= 2) {
        CHECK_ERR(mgpu_scatter(host, 4, r, g_ndev, wrong), MGPU_ERROR_WRONG_DEVICE);
        CHECK_ERR(mgpu_gather_async(host, 4, r, g_ndev, (const void *const *)bufs, swapped), MGPU_ERROR_WRONG_DEVICE);
    }

    /* tuning */
    {
        mgpu_collective_tuning tu, got;
        memset(&tu, 0, sizeof tu);
        tu.chunk_bytes = 100;
        CHECK_ERR(mgpu_collective_tuning_set(&tu), MGPU_ERROR_INVALID_ARGUMENT);
        tu.chunk_bytes = 0;
        tu.allreduce_copy = 2;
        CHECK_ERR(mgpu_collective_tuning_set(&tu), MGPU_ERROR_INVALID_ARGUMENT);
        CHECK_ERR(mgpu_collective_tuning_get(NULL), MGPU_ERROR_INVALID_ARGUMENT);
        CHECK_OK(mgpu_collective_tuning_get(&got));
        CHECK(got.chunk_bytes == 0 && got.allreduce_copy == 0);
    }
    for (i = 0; i < g_ndev; i++) CHECK_OK(mgpu_stream_destroy(s[i]));
out:
    for (i = 0; i < g_ndev; i++) dfree(bufs[i]);
}

/* Successful calls leave no allocation behind (scratch is returned; CPU devices cache
   nothing). After one warm-up round, GPUs too (cached pinned staging and the reduction
   workspaces of mgpu's internal streams then exist). */
static void test_no_leaks(void)
{
    size_t n = 300007, before;
    void *bufs[MGPU_MAX_DEVICES];
    float *host = (float *)malloc(n * 4), res;
    int round, i;
    REQUIRE(host);
    for (i = 0; i < g_ndev; i++) bufs[i] = dalloc(g_dev[i], n * 4);
    for (i = 0; i < g_ndev; i++) if (!bufs[i]) goto out;
    fill(MGPU_F32, host, n);
    for (round = 0; round < 2; round++) {
        before = mgpu__g.nallocs;
        set_chunk(round ? 65536 : 0, round);
        CHECK_OK(mgpu_reduce_multi(host, n, MGPU_F32, MGPU_OP_SUM, &res, NULL, 0, NULL));
        CHECK_OK(mgpu_allreduce(bufs, n, MGPU_F32, MGPU_OP_MAX, NULL, 0));
        CHECK_OK(mgpu_broadcast(bufs, n * 4, 0, NULL, 0));
        set_chunk(0, 0);
        if (round == 1 || !is_cuda(g_dev[0]))
            if (mgpu__g.nallocs != before)
                fail_at(__FILE__, __LINE__, "round %d: %zu allocations before, %zu after", round, before, (size_t)mgpu__g.nallocs);
    }
out:
    for (i = 0; i < g_ndev; i++) dfree(bufs[i]);
    free(host);
}

/* Two threads run collectives at once on disjoint device pairs (serialized inside). */
typedef struct conc_job { mgpu_device pair[MGPU_MAX_DEVICES][2]; int failed[MGPU_MAX_DEVICES]; } conc_job;
static mgpu_result conc_worker(mgpu_device dev, int index, void *arg)
{
    conc_job *j = (conc_job *)arg;
    size_t n = 50001, i;
    void *bufs[2] = { NULL, NULL };
    int32_t *h = (int32_t *)malloc(n * 4), *back = (int32_t *)malloc(n * 4);
    int k, round;
    mgpu_result r = MGPU_SUCCESS;
    (void)dev;
    if (!h || !back) { free(h); free(back); return MGPU_ERROR_OUT_OF_MEMORY; }
    for (k = 0; k < 2 && r == MGPU_SUCCESS; k++) {
        r = mgpu_set_device(j->pair[index][k]);
        if (r == MGPU_SUCCESS) r = mgpu_malloc(&bufs[k], n * 4);
    }
    for (round = 0; round < 20 && r == MGPU_SUCCESS; round++) {
        for (k = 0; k < 2 && r == MGPU_SUCCESS; k++) {
            for (i = 0; i < n; i++) h[i] = (int32_t)(i % 1000) * (k + 1) + round;
            r = mgpu_memcpy(bufs[k], h, n * 4);
        }
        if (r == MGPU_SUCCESS) r = mgpu_allreduce(bufs, n, MGPU_I32, MGPU_OP_SUM, j->pair[index], 2);
        for (k = 0; k < 2 && r == MGPU_SUCCESS; k++) {
            r = mgpu_memcpy(back, bufs[k], n * 4);
            for (i = 0; i < n && r == MGPU_SUCCESS; i++)
                if (back[i] != (int32_t)(i % 1000) * 3 + 2 * round) j->failed[index] = 1;
        }
    }
    for (k = 0; k < 2; k++) if (bufs[k]) mgpu_free(bufs[k]);
    free(h);
    free(back);
    return r;
}

static void test_concurrent(void)
{
    conc_job j;
    mgpu_device runners[2];
    if (g_ndev < 4) SKIP("needs 4 devices");
    memset(&j, 0, sizeof j);
    j.pair[0][0] = g_dev[0]; j.pair[0][1] = g_dev[1];
    j.pair[1][0] = g_dev[2]; j.pair[1][1] = g_dev[3];
    runners[0] = g_dev[0]; runners[1] = g_dev[2];
    CHECK_OK(mgpu_run_on_devices(runners, 2, conc_worker, &j));
    CHECK(!j.failed[0] && !j.failed[1]);
}

/* Calls before mgpu_init. */
static void test_not_initialized(void)
{
    void *bufs[1] = { NULL };
    mgpu_range r[1];
    float x = 0, res;
    CHECK(mgpu_split(1, NULL, 1, MGPU_SPLIT_EVEN, NULL, 0, 1, r) == MGPU_ERROR_NOT_INITIALIZED);
    CHECK(mgpu_allreduce(bufs, 1, MGPU_F32, MGPU_OP_SUM, NULL, 0) == MGPU_ERROR_NOT_INITIALIZED);
    CHECK(mgpu_reduce_multi(&x, 1, MGPU_F32, MGPU_OP_SUM, &res, NULL, 0, NULL) == MGPU_ERROR_NOT_INITIALIZED);
    CHECK(mgpu_broadcast(bufs, 1, 0, NULL, 0) == MGPU_ERROR_NOT_INITIALIZED);
}

/* ---------------------------------------------------------------- runner */
typedef struct ttest { const char *name; void (*fn)(void); } ttest;
static const ttest tests[] = {
    { "split_even", test_split_even },
    { "split_weighted", test_split_weighted },
    { "split_memory", test_split_memory },
    { "split_bad", test_split_bad },
    { "reduce_multi", test_reduce_multi },
    { "reduce_resident", test_reduce_resident },
    { "broadcast", test_broadcast },
    { "scatter_gather", test_scatter_gather },
    { "allreduce", test_allreduce },
    { "allreduce_variants", test_allreduce_variants },
    { "bad_inputs", test_bad_inputs },
    { "no_leaks", test_no_leaks },
    { "concurrent", test_concurrent },
};

static int selected(const char *label, int argc, char **argv)
{
    int i;
    if (argc < 2) return 1;
    for (i = 1; i < argc; i++) if (strstr(label, argv[i])) return 1;
    return 0;
}

/* The line of the test just run. */
static void finish(const char *label)
{
    if (cur_skipped) skip("%s: %s", label, cur_skip);
    else if (cur_failed) report(0, "%s: %s", label, cur_msg);
    else report(1, "%s", label);
}

int main(int argc, char **argv)
{
    static const struct { const char *label; mgpu_backend backend; int cpus; } cfgs[] = {
        { "cpu1", MGPU_BACKEND_CPU, 1 }, { "cpu4", MGPU_BACKEND_CPU, 4 }, { "cuda", MGPU_BACKEND_CUDA, 2 }
    };
    const char *env = getenv("MGPU_TEST_SEED");
    uint64_t seed = env ? strtoull(env, NULL, 10) : (uint64_t)time(NULL);
    unsigned c, t;
    char label[128];
    printf("seed %llu (MGPU_TEST_SEED=%llu repeats it)\n", (unsigned long long)seed, (unsigned long long)seed);
    for (c = 0; c < sizeof cfgs / sizeof cfgs[0]; c++) {
        mgpu_desc d;
        mgpu_result r;
        int i;
        memset(&d, 0, sizeof d);
        d.backend = cfgs[c].backend;
        d.cpu_devices = cfgs[c].cpus;
        cur_cfg = cfgs[c].label;
        r = mgpu_init(&d);
        if (r != MGPU_SUCCESS) printf("note %s: mgpu_init: %s\n", cfgs[c].label, mgpu_last_error());
        for (t = 0; t < sizeof tests / sizeof tests[0]; t++) {
            snprintf(label, sizeof label, "%s[%s]", tests[t].name, cur_cfg);
            if (!selected(label, argc, argv)) continue;
            cur_failed = cur_skipped = 0;
            cur_msg[0] = cur_skip[0] = 0;
            rng_state = seed * 0x9E3779B97F4A7C15ull + (uint64_t)(c * 131 + t + 1) * 0xD1B54A32D192ED03ull;
            if (!rng_state) rng_state = 1;
            if (r != MGPU_SUCCESS) {
                cur_skipped = 1;
                snprintf(cur_skip, sizeof cur_skip, "mgpu_init returned %s (see the note above)", mgpu_result_string(r));
                if (cfgs[c].backend != MGPU_BACKEND_CUDA) { cur_skipped = 0; cur_failed = 1; snprintf(cur_msg, sizeof cur_msg, "%s", cur_skip); }
                finish(label);
                continue;
            }
            g_ndev = mgpu_device_count();
            for (i = 0; i < g_ndev; i++) g_dev[i] = i;
            mgpu_set_device(0);
            tests[t].fn();
            mgpu_collective_tuning_set(NULL);
            finish(label);
        }
        if (r == MGPU_SUCCESS) mgpu_shutdown();
    }
    snprintf(label, sizeof label, "not_initialized[once]");
    if (selected(label, argc, argv)) {
        cur_failed = cur_skipped = 0;
        cur_msg[0] = 0;
        test_not_initialized();
        finish(label);
    }
    return summary();
}
