/* tests/suites/reduce.c - tests of mgpu_reduce_async, mgpu_reduce and mgpu_combine_async.

   Plain C99 with its own main; it holds the implementation. Built and run by
   `make test-unit` (build/suite_reduce) and `make test-asan`.
   Runs everything on 1 and then on 4 CPU devices (mgpu_desc.cpu_devices), checking the CPU
   device against the test's own references; when CUDA is available, every GPU is checked
   against the CPU device on the same fresh random data (and the 2^28 f32 accuracy case;
   the CPU device does 2^24; TEST_REDUCE_QUICK=1: 2^22, for compute-sanitizer). MGPU_TEST_SEED=N
   repeats a run's data. Prints ok / FAIL /
   skip lines and last `N passed, N failed, N skipped`; exits 1 if anything failed. */
#define MGPU_IMPLEMENTATION
#include "mgpu.h"
#include "tests/suites/suite.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- data */
#define NBIG (((size_t)1 << 20) + 7)
#define NHOST (NBIG + 8)                /* elements of each host buffer (8 bytes each) */
static const size_t sizes[] = { 0, 1, 2, 3, 1023, 1024, 4097, NBIG };
#define NSIZES (sizeof sizes / sizeof sizes[0])
static const char *const tname[7] = { "?", "f32", "f64", "i32", "u32", "i64", "u64" };
static const char *const oname[4] = { "?", "sum", "min", "max" };
static unsigned char *hb, *hy, *hx, *he, *hg;   /* host buffers of NHOST * 8 bytes */

static int is_float(mgpu_dtype t) { return t == MGPU_F32 || t == MGPU_F64; }

/* Floats uniform in [-1, 1); integers with every bit random (so sums wrap). */
static void fill(void *p, size_t n, mgpu_dtype t)
{
    size_t i, size = mgpu_dtype_size(t);
    for (i = 0; i < n; i++) {
        uint64_t r = rnd();
        if (t == MGPU_F32) {
            float f = (float)(((double)(r >> 40) - 8388608.0) / 8388608.0);
            memcpy((unsigned char *)p + i * 4, &f, 4);
        } else if (t == MGPU_F64) {
            double d = ((double)(r >> 11) - 4503599627370496.0) / 4503599627370496.0;
            memcpy((unsigned char *)p + i * 8, &d, 8);
        } else {
            memcpy((unsigned char *)p + i * size, &r, size);
        }
    }
}
static void put_float(void *p, size_t i, mgpu_dtype t, double v)
{
    if (t == MGPU_F32) { float f = (float)v; memcpy((unsigned char *)p + i * 4, &f, 4); }
    else memcpy((unsigned char *)p + i * 8, &v, 8);
}
static double get_float(const void *p, size_t i, mgpu_dtype t)
{
    if (t == MGPU_F32) { float f; memcpy(&f, (const unsigned char *)p + i * 4, 4); return f; }
    else { double d; memcpy(&d, (const unsigned char *)p + i * 8, 8); return d; }
}
static uint64_t get_bits(const void *p, size_t size)
{
    uint64_t u = 0;
    memcpy(&u, p, size);
    return u;
}

/* ---------------------------------------------------------------- references */
typedef struct expect {
    unsigned char bits[8];              /* the exact answer (min, max, integer sums) */
    double value;                       /* float sums: the value, checked with a tolerance */
    double sumabs;                      /* sum of |x|: scales the tolerance of float sums */
    int nan;                            /* the answer is a NaN */
} expect;

/* Float min/max written independently of the library: NaN wins, -0 < +0. */
static double ref_min(double a, double b)
{
    if (a != a || b != b) return NAN;
    if (b < a || (b == a && signbit(b))) return b;
    return a;
}
static double ref_max(double a, double b)
{
    if (a != a || b != b) return NAN;
    if (b > a || (b == a && !signbit(b))) return b;
    return a;
}

#define REF_INT(T, U, TMIN, TMAX) { \
    const T *x = (const T *)src; \
    U s = 0; \
    T m = op == MGPU_OP_MIN ? (TMAX) : (TMIN); \
    for (i = 0; i < n; i++) { \
        s = (U)(s + (U)x[i]); \
        if (op == MGPU_OP_MIN ? x[i] < m : x[i] > m) m = x[i]; \
    } \
    if (op == MGPU_OP_SUM) memcpy(e->bits, &s, sizeof s); else memcpy(e->bits, &m, sizeof m); \
    break; }

static void ref_reduce(const void *src, size_t n, mgpu_dtype t, mgpu_op op, expect *e)
{
    size_t i;
    memset(e, 0, sizeof *e);
    switch (t) {
    case MGPU_F32: case MGPU_F64: {
        double s = 0, c = 0, m = op == MGPU_OP_MIN ? INFINITY : -INFINITY;
        for (i = 0; i < n; i++) {
            double x = get_float(src, i, t), u = s + x;
            if (x != x) e->nan = 1;
            e->sumabs += fabs(x);
            if (fabs(s) >= fabs(x)) c += (s - u) + x; else c += (x - u) + s;   /* Neumaier */
            s = u;
            m = op == MGPU_OP_MIN ? ref_min(m, x) : ref_max(m, x);
        }
        e->value = op == MGPU_OP_SUM ? s + c : m;
        if (e->nan) e->value = NAN;
        put_float(e->bits, 0, t, e->value);
        break;
    }
    case MGPU_I32: REF_INT(int32_t, uint32_t, INT32_MIN, INT32_MAX)
    case MGPU_U32: REF_INT(uint32_t, uint32_t, 0u, UINT32_MAX)
    case MGPU_I64: REF_INT(int64_t, uint64_t, INT64_MIN, INT64_MAX)
    case MGPU_U64: REF_INT(uint64_t, uint64_t, (uint64_t)0, UINT64_MAX)
    }
}

/* got against e: float sums within 1e-6 relative (f32) or 1e-12 of sum|x| (f64); NaN
   against NaN; everything else bit for bit. */
static int check(mgpu_dtype t, mgpu_op op, const void *got, const expect *e, char *why, size_t cap)
{
    size_t size = mgpu_dtype_size(t);
    if (is_float(t)) {
        double g = get_float(got, 0, t);
        if (e->nan) {
            if (g != g) return 1;
            snprintf(why, cap, "got %.17g, expected NaN", g);
            return 0;
        }
        if (op == MGPU_OP_SUM) {
            double tol = t == MGPU_F32 ? 1e-6 * fabs(e->value) + 1e-12 * e->sumabs : 1e-12 * e->sumabs;
            if (fabs(g - e->value) <= tol) return 1;
            snprintf(why, cap, "got %.17g, expected %.17g (tolerance %.3g)", g, e->value, tol);
            return 0;
        }
    }
    if (!memcmp(got, e->bits, size)) return 1;
    snprintf(why, cap, "got 0x%llx, expected 0x%llx", (unsigned long long)get_bits(got, size),
             (unsigned long long)get_bits(e->bits, size));
    return 0;
}

/* y[i] = op(y[i], x[i]), written independently of the library. */
#define REF_COMBINE_INT(T, U) { \
    T *yy = (T *)y; \
    const T *xx = (const T *)x; \
    for (i = 0; i < n; i++) { \
        if (op == MGPU_OP_SUM) { U s = (U)((U)yy[i] + (U)xx[i]); memcpy(&yy[i], &s, sizeof s); } \
        else if (op == MGPU_OP_MIN ? xx[i] < yy[i] : xx[i] > yy[i]) yy[i] = xx[i]; \
    } \
    break; }
static void ref_combine(void *y, const void *x, size_t n, mgpu_dtype t, mgpu_op op)
{
    size_t i;
    switch (t) {
    case MGPU_F32: case MGPU_F64:
        for (i = 0; i < n; i++) {
            double a = get_float(y, i, t), b = get_float(x, i, t), r;
            if (op == MGPU_OP_SUM) {
                if (t == MGPU_F32) { float f = (float)a + (float)b; r = f; }
                else r = a + b;
            } else {
                r = op == MGPU_OP_MIN ? ref_min(a, b) : ref_max(a, b);
            }
            put_float(y, i, t, r);
        }
        break;
    case MGPU_I32: REF_COMBINE_INT(int32_t, uint32_t)
    case MGPU_U32: REF_COMBINE_INT(uint32_t, uint32_t)
    case MGPU_I64: REF_COMBINE_INT(int64_t, uint64_t)
    case MGPU_U64: REF_COMBINE_INT(uint64_t, uint64_t)
    }
}

/* The same elements: bit for bit, or both NaN. */
static long first_difference(const void *a, const void *b, size_t n, mgpu_dtype t)
{
    size_t i, size = mgpu_dtype_size(t);
    for (i = 0; i < n; i++) {
        const unsigned char *p = (const unsigned char *)a + i * size, *q = (const unsigned char *)b + i * size;
        if (memcmp(p, q, size) == 0) continue;
        if (is_float(t)) {
            double u = get_float(p, 0, t), v = get_float(q, 0, t);
            if (u != u && v != v) continue;
        }
        return (long)i;
    }
    return -1;
}

/* The expectation on a GPU: the CPU device's answer for the same data. */
static mgpu_result cpu_expect(mgpu_stream cs, const void *src, size_t n, mgpu_dtype t, mgpu_op op, expect *e)
{
    unsigned char v[8];
    mgpu_result r;
    ref_reduce(src, n, t, op, e);        /* sumabs and nan */
    r = mgpu_reduce(src, n, t, op, v, cs);
    if (r != MGPU_SUCCESS) return r;
    memcpy(e->bits, v, mgpu_dtype_size(t));
    if (is_float(t)) e->value = get_float(v, 0, t);
    return MGPU_SUCCESS;
}

static size_t live_allocations(void)
{
#ifdef MGPU_IMPL_INCLUDED
    size_t n;
    mgpu__mutex_lock(&mgpu__lock);
    n = mgpu__g.nallocs;
    mgpu__mutex_unlock(&mgpu__lock);
    return n;
#else
    return 0;
#endif
}

/* ---------------------------------------------------------------- every dtype x op x size */
/* dev: the device under test; cs: the CPU device's stream to compare with (NULL: compare
   with the test's references). Results go to device memory (async) and to pageable host
   memory (mgpu_reduce). */
static void reduce_sweep(mgpu_device dev, mgpu_stream cs, const char *label)
{
    mgpu_stream s = NULL;
    unsigned char *dsrc = NULL, *dres = NULL;
    int t, op;
    if (mgpu_set_device(dev) != MGPU_SUCCESS || mgpu_stream_create(&s) != MGPU_SUCCESS ||
        mgpu_malloc((void **)&dsrc, NHOST * 8) != MGPU_SUCCESS || mgpu_malloc((void **)&dres, 256) != MGPU_SUCCESS) {
        report(0, "%s reduce setup: %s", label, mgpu_last_error());
        goto done;
    }
    for (t = MGPU_F32; t <= MGPU_U64; t++)
        for (op = MGPU_OP_SUM; op <= MGPU_OP_MAX; op++) {
            mgpu_dtype dt = (mgpu_dtype)t;
            size_t size = mgpu_dtype_size(dt), si, off, maxoff = 16 / size, cases = 0;
            char why[1200] = "";
            int good = 1;
            for (si = 0; si < NSIZES && good; si++)
                for (off = 0; off < maxoff && good; off++) {
                    size_t n = sizes[si];
                    unsigned char got[8], got2[8];
                    expect e;
                    mgpu_result r;
                    char msg[400] = "";
                    fill(hb, n + off, dt);
                    if (cs) r = cpu_expect(cs, hb + off * size, n, dt, (mgpu_op)op, &e);
                    else { ref_reduce(hb + off * size, n, dt, (mgpu_op)op, &e); r = MGPU_SUCCESS; }
                    if (r == MGPU_SUCCESS) r = mgpu_memcpy(dsrc, hb, (n + off) * size);
                    memset(got, 0xA5, sizeof got);
                    memset(got2, 0x5A, sizeof got2);
                    if (r == MGPU_SUCCESS) r = mgpu_memset(dres, 0xA5, 8);
                    if (r == MGPU_SUCCESS) r = mgpu_reduce_async(dsrc + off * size, n, dt, (mgpu_op)op, dres, s);
                    if (r == MGPU_SUCCESS) r = mgpu_stream_synchronize(s);
                    if (r == MGPU_SUCCESS) r = mgpu_memcpy(got, dres, size);
                    if (r == MGPU_SUCCESS && !check(dt, (mgpu_op)op, got, &e, msg, sizeof msg)) r = MGPU_ERROR_CUDA;
                    if (r == MGPU_SUCCESS) r = mgpu_reduce(dsrc + off * size, n, dt, (mgpu_op)op, got2, s);
                    if (r == MGPU_SUCCESS && !check(dt, (mgpu_op)op, got2, &e, msg, sizeof msg)) {
                        r = MGPU_ERROR_CUDA;
                        strcat(msg, " (mgpu_reduce into host memory)");
                    }
                    if (r != MGPU_SUCCESS) {
                        good = 0;
                        snprintf(why, sizeof why, "n=%zu offset %zu: %s", n, off, msg[0] ? msg : mgpu_last_error());
                    }
                    cases++;
                }
            report(good, "%s reduce %s %s: %zu cases (n 0..2^20+7, src offsets 0..%zu)%s%s", label, tname[t], oname[op],
                   cases, maxoff - 1, good ? "" : ": ", why);
        }
done:
    mgpu_free(dsrc);
    mgpu_free(dres);
    if (s) mgpu_stream_destroy(s);
}

/* Float data with a NaN somewhere (first, last, random): every op gives NaN. Zeros of
   both signs: min is -0 and max is +0 whatever their order. */
static void special_values(mgpu_device dev, const char *label)
{
    static const size_t ns[] = { 1, 4097, NBIG };
    unsigned char *dsrc = NULL;
    int t, op, good = 1;
    size_t k, where;
    char why[1200] = "";
    if (mgpu_set_device(dev) != MGPU_SUCCESS || mgpu_malloc((void **)&dsrc, NBIG * 8) != MGPU_SUCCESS) {
        report(0, "%s special values setup: %s", label, mgpu_last_error());
        return;
    }
    for (t = MGPU_F32; t <= MGPU_F64; t++)
        for (k = 0; k < 3; k++)
            for (where = 0; where < 3; where++)
                for (op = MGPU_OP_SUM; op <= MGPU_OP_MAX; op++) {
                    mgpu_dtype dt = (mgpu_dtype)t;
                    size_t n = ns[k], at = where == 0 ? 0 : where == 1 ? n - 1 : (size_t)(rnd() % n);
                    unsigned char got[8];
                    mgpu_result r;
                    fill(hb, n, dt);
                    put_float(hb, at, dt, NAN);
                    r = mgpu_memcpy(dsrc, hb, n * mgpu_dtype_size(dt));
                    if (r == MGPU_SUCCESS) r = mgpu_reduce(dsrc, n, dt, (mgpu_op)op, got, NULL);
                    if (r != MGPU_SUCCESS || get_float(got, 0, dt) == get_float(got, 0, dt)) {
                        if (good) snprintf(why, sizeof why, "%s %s n=%zu NaN at %zu: %s", tname[t], oname[op], n, at,
                                           r != MGPU_SUCCESS ? mgpu_last_error() : "not NaN");
                        good = 0;
                    }
                }
    report(good, "%s NaN propagates (f32, f64; sum, min, max)%s%s", label, good ? "" : ": ", why);
    good = 1;
    for (t = MGPU_F32; t <= MGPU_F64; t++)
        for (k = 0; k < 3; k++) {
            mgpu_dtype dt = (mgpu_dtype)t;
            size_t n = ns[k], i;
            unsigned char mn[8], mx[8];
            mgpu_result r;
            int any_neg = 0, any_pos = 0;
            for (i = 0; i < n; i++) {
                int neg = (rnd() & 1) != 0;
                put_float(hb, i, dt, neg ? -0.0 : 0.0);
                if (neg) any_neg = 1; else any_pos = 1;
            }
            r = mgpu_memcpy(dsrc, hb, n * mgpu_dtype_size(dt));
            if (r == MGPU_SUCCESS) r = mgpu_reduce(dsrc, n, dt, MGPU_OP_MIN, mn, NULL);
            if (r == MGPU_SUCCESS) r = mgpu_reduce(dsrc, n, dt, MGPU_OP_MAX, mx, NULL);
            if (r != MGPU_SUCCESS || get_float(mn, 0, dt) != 0 || get_float(mx, 0, dt) != 0 ||
                (signbit(get_float(mn, 0, dt)) != 0) != any_neg || (signbit(get_float(mx, 0, dt)) == 0) != any_pos) {
                if (good) snprintf(why, sizeof why, "%s n=%zu: %s", tname[t], n, r != MGPU_SUCCESS ? mgpu_last_error() : "wrong sign");
                good = 0;
            }
        }
    report(good, "%s min of {-0, +0} is -0, max is +0%s%s", label, good ? "" : ": ", why);
    mgpu_free(dsrc);
}

/* Repeated float sums give the same bits. */
static void determinism(mgpu_device dev, const char *label)
{
    unsigned char *dsrc = NULL;
    int t, rep, good = 1;
    if (mgpu_set_device(dev) != MGPU_SUCCESS || mgpu_malloc((void **)&dsrc, NBIG * 8) != MGPU_SUCCESS) {
        report(0, "%s determinism setup: %s", label, mgpu_last_error());
        return;
    }
    for (t = MGPU_F32; t <= MGPU_F64; t++) {
        unsigned char first[8], again[8];
        fill(hb, NBIG, (mgpu_dtype)t);
        if (mgpu_memcpy(dsrc, hb, NBIG * mgpu_dtype_size((mgpu_dtype)t)) != MGPU_SUCCESS ||
            mgpu_reduce(dsrc, NBIG, (mgpu_dtype)t, MGPU_OP_SUM, first, NULL) != MGPU_SUCCESS) { good = 0; break; }
        for (rep = 0; rep < 5; rep++)
            if (mgpu_reduce(dsrc, NBIG, (mgpu_dtype)t, MGPU_OP_SUM, again, NULL) != MGPU_SUCCESS ||
                memcmp(first, again, mgpu_dtype_size((mgpu_dtype)t)) != 0) good = 0;
    }
    report(good, "%s f32 and f64 sums of 2^20+7 elements: the same bits 6 times", label);
    mgpu_free(dsrc);
}

/* The result at an address that is not a multiple of its size: device memory and host
   memory, asynchronously and waiting. */
static void misaligned_result(mgpu_device dev, mgpu_stream cs, const char *label)
{
    static const size_t ns[] = { 3, NBIG };
    unsigned char *dsrc = NULL, *dres = NULL, host[32];
    size_t k;
    int t, good = 1;
    char why[1200] = "";
    mgpu_result r = mgpu_set_device(dev);
    if (r == MGPU_SUCCESS) r = mgpu_malloc((void **)&dsrc, NBIG * 8);
    if (r == MGPU_SUCCESS) r = mgpu_malloc((void **)&dres, 64);
    for (t = MGPU_F32; t <= MGPU_U64 && r == MGPU_SUCCESS && good; t++)
        for (k = 0; k < 2 && r == MGPU_SUCCESS && good; k++) {
            mgpu_dtype dt = (mgpu_dtype)t;
            mgpu_op op = t % 2 ? MGPU_OP_SUM : MGPU_OP_MAX;
            size_t n = ns[k], size = mgpu_dtype_size(dt), at;
            expect e;
            fill(hb, n, dt);
            r = mgpu_memcpy(dsrc, hb, n * size);
            if (r == MGPU_SUCCESS) {
                if (cs) r = cpu_expect(cs, hb, n, dt, op, &e);
                else ref_reduce(hb, n, dt, op, &e);
            }
            for (at = 1; at < 4 && r == MGPU_SUCCESS && good; at += 2) {
                memset(host, 0, sizeof host);
                r = mgpu_reduce_async(dsrc, n, dt, op, dres + at, NULL);
                if (r == MGPU_SUCCESS) r = mgpu_device_synchronize(dev);
                if (r == MGPU_SUCCESS) r = mgpu_memcpy(host + 8, dres + at, size);
                if (r == MGPU_SUCCESS && !check(dt, op, host + 8, &e, why, sizeof why)) good = 0;
                if (r == MGPU_SUCCESS && good) r = mgpu_reduce(dsrc, n, dt, op, host + at, NULL);
                if (r == MGPU_SUCCESS && good && !check(dt, op, host + at, &e, why, sizeof why)) good = 0;
                if (r == MGPU_SUCCESS && good) r = mgpu_reduce_async(dsrc, n, dt, op, host + 16 + at, NULL);
                if (r == MGPU_SUCCESS && good) r = mgpu_device_synchronize(dev);
                if (r == MGPU_SUCCESS && good && !check(dt, op, host + 16 + at, &e, why, sizeof why)) good = 0;
            }
        }
    report(r == MGPU_SUCCESS && good, "%s results at misaligned addresses (device and host memory)%s%s", label,
           r == MGPU_SUCCESS && good ? "" : ": ", r == MGPU_SUCCESS ? why : mgpu_last_error());
    mgpu_free(dsrc);
    mgpu_free(dres);
}

/* ---------------------------------------------------------------- combine */
static void combine_sweep(mgpu_device dev, mgpu_stream cs, const char *label)
{
    static const size_t ns[] = { 0, 1, 3, 1023, 4097, NBIG };
    static const size_t offs[3][2] = { { 0, 0 }, { 1, 1 }, { 0, 1 } };   /* (y, x) offsets */
    mgpu_stream s = NULL;
    unsigned char *dy = NULL, *dx = NULL;
    int t, op;
    if (mgpu_set_device(dev) != MGPU_SUCCESS || mgpu_stream_create(&s) != MGPU_SUCCESS ||
        mgpu_malloc((void **)&dy, NHOST * 8) != MGPU_SUCCESS || mgpu_malloc((void **)&dx, NHOST * 8) != MGPU_SUCCESS) {
        report(0, "%s combine setup: %s", label, mgpu_last_error());
        goto done;
    }
    for (t = MGPU_F32; t <= MGPU_U64; t++)
        for (op = MGPU_OP_SUM; op <= MGPU_OP_MAX; op++) {
            mgpu_dtype dt = (mgpu_dtype)t;
            size_t size = mgpu_dtype_size(dt), k, o, cases = 0;
            int good = 1;
            char why[1200] = "";
            for (k = 0; k < sizeof ns / sizeof ns[0] && good; k++)
                for (o = 0; o < 3 && good; o++) {
                    size_t n = ns[k], yo = offs[o][0], xo = offs[o][1];
                    mgpu_result r = MGPU_SUCCESS;
                    long bad;
                    fill(hy, n + yo, dt);
                    fill(hx, n + xo, dt);
                    if (is_float(dt) && n > 2) {  /* NaNs in both operands */
                        put_float(hx, xo + (size_t)(rnd() % n), dt, NAN);
                        put_float(hy, yo + (size_t)(rnd() % n), dt, NAN);
                    }
                    memcpy(he, hy, (n + yo) * size);
                    if (cs) r = mgpu_combine_async(he + yo * size, hx + xo * size, n, dt, (mgpu_op)op, cs);
                    else ref_combine(he + yo * size, hx + xo * size, n, dt, (mgpu_op)op);
                    if (r == MGPU_SUCCESS) r = mgpu_memcpy(dy, hy, (n + yo) * size);
                    if (r == MGPU_SUCCESS) r = mgpu_memcpy(dx, hx, (n + xo) * size);
                    if (r == MGPU_SUCCESS) r = mgpu_combine_async(dy + yo * size, dx + xo * size, n, dt, (mgpu_op)op, s);
                    if (r == MGPU_SUCCESS) r = mgpu_stream_synchronize(s);
                    if (r == MGPU_SUCCESS) r = mgpu_memcpy(hg, dy, (n + yo) * size);
                    if (r != MGPU_SUCCESS) {
                        good = 0;
                        snprintf(why, sizeof why, "n=%zu offsets y+%zu x+%zu: %s", n, yo, xo, mgpu_last_error());
                    } else if ((bad = first_difference(hg, he, n + yo, dt)) >= 0) {
                        good = 0;
                        snprintf(why, sizeof why, "n=%zu offsets y+%zu x+%zu: element %ld is 0x%llx, expected 0x%llx", n, yo,
                                 xo, bad, (unsigned long long)get_bits(hg + (size_t)bad * size, size),
                                 (unsigned long long)get_bits(he + (size_t)bad * size, size));
                    }
                    cases++;
                }
            report(good, "%s combine %s %s: %zu cases (n 0..2^20+7, y/x offsets 0/0 1/1 0/1)%s%s", label, tname[t],
                   oname[op], cases, good ? "" : ": ", why);
        }
done:
    mgpu_free(dy);
    mgpu_free(dx);
    if (s) mgpu_stream_destroy(s);
}

/* ---------------------------------------------------------------- bad input */
static int expect_err(mgpu_result got, mgpu_result want, const char *fn, const char *words, const char *what)
{
    const char *msg = mgpu_last_error();
    int good = got == want && strstr(msg, fn) != NULL && (!words || strstr(msg, words) != NULL);
    report(good, "%s -> %s%s%s%s", what, mgpu_result_string(want), good ? "" : " (got ", good ? "" : mgpu_result_string(got),
           good ? "" : ")");
    if (!good) printf("     last error: %s\n", msg);
    return good;
}

/* dev: the device whose default stream is used; other: a device whose memory dev cannot
   read (-1: none); host_bad: whether plain host memory is unreadable (a GPU). */
static void bad_inputs(mgpu_device dev, mgpu_device other, const char *label)
{
    float *buf = NULL, res = 42.0f;          /* buf: 65 floats, 260 bytes */
    double resd[2];
    char what[200];
    size_t before;
    static float host[8];
    if (mgpu_set_device(dev) != MGPU_SUCCESS || mgpu_malloc((void **)&buf, 65 * sizeof(float)) != MGPU_SUCCESS ||
        mgpu_memset(buf, 0, 65 * sizeof(float)) != MGPU_SUCCESS) {
        report(0, "%s bad input setup: %s", label, mgpu_last_error());
        return;
    }
    before = live_allocations();
#define BAD(call, want, fn, words, desc) do { snprintf(what, sizeof what, "%s %s", label, desc); \
    expect_err(call, want, fn, words, what); } while (0)
    BAD(mgpu_reduce_async(NULL, 5, MGPU_F32, MGPU_OP_SUM, &res, NULL), MGPU_ERROR_INVALID_ARGUMENT, "mgpu_reduce_async",
        "src is NULL", "reduce: NULL src, n = 5");
    BAD(mgpu_reduce_async(buf, 5, MGPU_F32, MGPU_OP_SUM, NULL, NULL), MGPU_ERROR_INVALID_ARGUMENT, "mgpu_reduce_async",
        "result is NULL", "reduce: NULL result");
    BAD(mgpu_reduce(buf, 5, MGPU_F32, MGPU_OP_SUM, NULL, NULL), MGPU_ERROR_INVALID_ARGUMENT, "mgpu_reduce",
        "result is NULL", "mgpu_reduce: NULL result");
    BAD(mgpu_reduce(buf, 5, (mgpu_dtype)0, MGPU_OP_SUM, &res, NULL), MGPU_ERROR_INVALID_ARGUMENT, "mgpu_reduce",
        "unknown dtype", "reduce: dtype 0");
    BAD(mgpu_reduce(buf, 5, (mgpu_dtype)7, MGPU_OP_SUM, &res, NULL), MGPU_ERROR_INVALID_ARGUMENT, "mgpu_reduce",
        "unknown dtype", "reduce: dtype 7");
    BAD(mgpu_reduce(buf, 5, MGPU_F32, (mgpu_op)0, &res, NULL), MGPU_ERROR_INVALID_ARGUMENT, "mgpu_reduce",
        "unknown op", "reduce: op 0");
    BAD(mgpu_reduce(buf, 5, MGPU_F32, (mgpu_op)4, &res, NULL), MGPU_ERROR_INVALID_ARGUMENT, "mgpu_reduce",
        "unknown op", "reduce: op 4");
    BAD(mgpu_reduce_async(buf, SIZE_MAX / 2, MGPU_F32, MGPU_OP_SUM, &res, NULL), MGPU_ERROR_SIZE_OVERFLOW,
        "mgpu_reduce_async", "overflow", "reduce: n = SIZE_MAX / 2 of f32");
    BAD(mgpu_reduce_async(buf, SIZE_MAX / 8 + 1, MGPU_U64, MGPU_OP_MAX, resd, NULL), MGPU_ERROR_SIZE_OVERFLOW,
        "mgpu_reduce_async", "overflow", "reduce: n = SIZE_MAX / 8 + 1 of u64");
    BAD(mgpu_reduce_async((char *)buf + 1, 4, MGPU_F32, MGPU_OP_SUM, &res, NULL), MGPU_ERROR_INVALID_ARGUMENT,
        "mgpu_reduce_async", "aligned", "reduce: src not aligned to its elements");
    BAD(mgpu_reduce_async(buf, 66, MGPU_F32, MGPU_OP_SUM, &res, NULL), MGPU_ERROR_INVALID_ARGUMENT,
        "mgpu_reduce_async", "past the end", "reduce: src runs past its allocation");
    BAD(mgpu_reduce_async(buf, 4, MGPU_F64, MGPU_OP_SUM, buf + 64, NULL), MGPU_ERROR_INVALID_ARGUMENT,
        "mgpu_reduce_async", "past the end", "reduce: result runs past its allocation");
    if (!mgpu__is_cuda(dev)) {
        skip("%s reduce: host memory a GPU cannot read -> INVALID_POINTER: device %d is a CPU device", label, dev);
    } else {
        BAD(mgpu_reduce_async(host, 4, MGPU_F32, MGPU_OP_SUM, buf, NULL), MGPU_ERROR_INVALID_POINTER,
            "mgpu_reduce_async", "host memory", "reduce: src in pageable host memory on a GPU");
    }
    if (other < 0) {
        skip("%s reduce: src on a device this one cannot read -> WRONG_DEVICE: no such device here", label);
    } else {
        float *ob = NULL;
        if (mgpu_set_device(other) != MGPU_SUCCESS || mgpu_malloc((void **)&ob, 64) != MGPU_SUCCESS) {
            report(0, "%s WRONG_DEVICE setup: %s", label, mgpu_last_error());
        } else {
            mgpu_set_device(dev);
            BAD(mgpu_reduce_async(ob, 4, MGPU_F32, MGPU_OP_SUM, buf, NULL), MGPU_ERROR_WRONG_DEVICE,
                "mgpu_reduce_async", "device", "reduce: src on another device");
            BAD(mgpu_combine_async(buf, ob, 4, MGPU_F32, MGPU_OP_SUM, NULL), MGPU_ERROR_WRONG_DEVICE,
                "mgpu_combine_async", "device", "combine: x on another device");
        }
        mgpu_set_device(dev);
        mgpu_free(ob);
    }
    BAD(mgpu_combine_async(NULL, buf, 4, MGPU_F32, MGPU_OP_SUM, NULL), MGPU_ERROR_INVALID_ARGUMENT,
        "mgpu_combine_async", "NULL", "combine: NULL y");
    BAD(mgpu_combine_async(buf, NULL, 4, MGPU_F32, MGPU_OP_SUM, NULL), MGPU_ERROR_INVALID_ARGUMENT,
        "mgpu_combine_async", "NULL", "combine: NULL x");
    BAD(mgpu_combine_async(buf, buf + 8, 4, (mgpu_dtype)9, MGPU_OP_SUM, NULL), MGPU_ERROR_INVALID_ARGUMENT,
        "mgpu_combine_async", "unknown dtype", "combine: dtype 9");
    BAD(mgpu_combine_async(buf, buf + 8, 4, MGPU_F32, (mgpu_op)-1, NULL), MGPU_ERROR_INVALID_ARGUMENT,
        "mgpu_combine_async", "unknown op", "combine: op -1");
    BAD(mgpu_combine_async(buf, buf + 8, SIZE_MAX / 4 + 1, MGPU_I32, MGPU_OP_SUM, NULL), MGPU_ERROR_SIZE_OVERFLOW,
        "mgpu_combine_async", "overflow", "combine: n = SIZE_MAX / 4 + 1 of i32");
    BAD(mgpu_combine_async(buf, buf + 2, 4, MGPU_F32, MGPU_OP_SUM, NULL), MGPU_ERROR_INVALID_ARGUMENT,
        "mgpu_combine_async", "overlap", "combine: x and y overlap");
    BAD(mgpu_combine_async(buf, (char *)buf + 34, 4, MGPU_F32, MGPU_OP_SUM, NULL), MGPU_ERROR_INVALID_ARGUMENT,
        "mgpu_combine_async", "aligned", "combine: x not aligned to its elements");
    BAD(mgpu_combine_async(buf, buf + 40, 26, MGPU_F32, MGPU_OP_SUM, NULL), MGPU_ERROR_INVALID_ARGUMENT,
        "mgpu_combine_async", "past the end", "combine: x runs past its allocation");
#undef BAD
    report(res == 42.0f, "%s rejected calls leave the result untouched", label);
#ifdef MGPU_IMPL_INCLUDED
    report(live_allocations() == before, "%s rejected calls allocate nothing (%zu allocations before, %zu after)", label,
           before, live_allocations());
#else
    skip("%s rejected calls allocate nothing: needs the implementation in this file", label);
#endif
    {   /* n = 0: the identity, src may be NULL; combine of nothing does nothing */
        float mn = 0, mx = 0, sm = 1;
        int32_t imn = 0, imx = 0;
        uint64_t umx = 1;
        int good = mgpu_reduce(NULL, 0, MGPU_F32, MGPU_OP_MIN, &mn, NULL) == MGPU_SUCCESS &&
                   mgpu_reduce(NULL, 0, MGPU_F32, MGPU_OP_MAX, &mx, NULL) == MGPU_SUCCESS &&
                   mgpu_reduce(NULL, 0, MGPU_F32, MGPU_OP_SUM, &sm, NULL) == MGPU_SUCCESS &&
                   mgpu_reduce(NULL, 0, MGPU_I32, MGPU_OP_MIN, &imn, NULL) == MGPU_SUCCESS &&
                   mgpu_reduce(NULL, 0, MGPU_I32, MGPU_OP_MAX, &imx, NULL) == MGPU_SUCCESS &&
                   mgpu_reduce(NULL, 0, MGPU_U64, MGPU_OP_MAX, &umx, NULL) == MGPU_SUCCESS &&
                   mgpu_combine_async(NULL, NULL, 0, MGPU_F64, MGPU_OP_MAX, NULL) == MGPU_SUCCESS;
        good = good && mn == INFINITY && mx == -INFINITY && sm == 0 && !signbit(sm) && imn == INT32_MAX &&
               imx == INT32_MIN && umx == 0;
        report(good, "%s n = 0 with src NULL: identities (+inf, -inf, 0, INT32_MAX, INT32_MIN, 0)", label);
    }
    mgpu_free(buf);
}

/* ---------------------------------------------------------------- accuracy */
/* n uniform [0, 1) floats summed as f32 within 1e-6 of their float64 sum. */
static void accuracy(mgpu_device dev, size_t n, const char *label)
{
    const size_t chunk = (size_t)1 << 20;
    float *d = NULL, *h = (float *)(void *)hb;
    double s = 0, c = 0, ref, rel;
    float got = 0;
    size_t at, i;
    mgpu_result r;
    if (mgpu_set_device(dev) != MGPU_SUCCESS) { report(0, "%s accuracy: %s", label, mgpu_last_error()); return; }
    r = mgpu_malloc((void **)&d, n * sizeof(float));
    if (r == MGPU_ERROR_OUT_OF_MEMORY) { skip("%s f32 sum accuracy at n = %zu: not enough memory", label, n); return; }
    for (at = 0; r == MGPU_SUCCESS && at < n; at += chunk) {
        size_t m = n - at < chunk ? n - at : chunk;
        for (i = 0; i < m; i++) {
            float f = (float)(rnd() >> 40) * (1.0f / 16777216.0f);
            double u = s + f;
            h[i] = f;
            if (fabs(s) >= f) c += (s - u) + f; else c += (f - u) + s;
            s = u;
        }
        r = mgpu_memcpy(d + at, h, m * sizeof(float));
    }
    ref = s + c;
    if (r == MGPU_SUCCESS) r = mgpu_reduce(d, n, MGPU_F32, MGPU_OP_SUM, &got, NULL);
    rel = fabs((double)got - ref) / ref;
    report(r == MGPU_SUCCESS && rel <= 1e-6, "%s f32 sum of %zu uniform [0,1) values: %.9g vs float64 %.9g, relative "
           "error %.2e (<= 1e-6)%s%s", label, n, (double)got, ref, rel, r == MGPU_SUCCESS ? "" : ": ",
           r == MGPU_SUCCESS ? "" : mgpu_last_error());
    mgpu_free(d);
}

/* ---------------------------------------------------------------- concurrency */
typedef struct conc {
    const float *src[4];
    size_t n;
    unsigned char want[4][4];
    int mismatches[4];
    int own_stream;
} conc;

/* Thread i reduces its array 10 times on its own stream (or all on the default one):
   into pageable memory (mgpu_reduce), device memory, and pageable memory asynchronously. */
static mgpu_result conc_fn(mgpu_device dev, int i, void *arg)
{
    conc *c = (conc *)arg;
    mgpu_stream s = NULL;
    float *dv = NULL, v = 0, v2 = 0, v3 = 0;
    mgpu_result r = MGPU_SUCCESS;
    int k;
    (void)dev;
    if (c->own_stream) r = mgpu_stream_create(&s);
    if (r == MGPU_SUCCESS) r = mgpu_malloc((void **)&dv, sizeof(float));
    for (k = 0; k < 10 && r == MGPU_SUCCESS; k++) {
        r = mgpu_reduce(c->src[i], c->n, MGPU_F32, MGPU_OP_SUM, &v, s);
        if (r == MGPU_SUCCESS) r = mgpu_reduce_async(c->src[i], c->n, MGPU_F32, MGPU_OP_SUM, dv, s);
        if (r == MGPU_SUCCESS) r = mgpu_reduce_async(c->src[i], c->n, MGPU_F32, MGPU_OP_SUM, &v3, s);
        if (r == MGPU_SUCCESS) r = mgpu_stream_synchronize(s);
        if (r == MGPU_SUCCESS) r = mgpu_memcpy(&v2, dv, sizeof v2);
        if (r == MGPU_SUCCESS && (memcmp(&v, c->want[i], 4) || memcmp(&v2, c->want[i], 4) || memcmp(&v3, c->want[i], 4)))
            c->mismatches[i]++;
    }
    mgpu_free(dv);
    if (s) mgpu_stream_destroy(s);
    return r;
}

static void concurrency(mgpu_device dev, const char *label)
{
    conc c;
    mgpu_device devs[4];
    float *d[4] = { NULL, NULL, NULL, NULL };
    int i, own, good = 1;
    mgpu_result r = mgpu_set_device(dev);
    memset(&c, 0, sizeof c);
    c.n = NBIG;
    for (i = 0; i < 4 && r == MGPU_SUCCESS; i++) {
        devs[i] = dev;
        fill(hb, NBIG, MGPU_F32);
        r = mgpu_malloc((void **)&d[i], NBIG * sizeof(float));
        if (r == MGPU_SUCCESS) r = mgpu_memcpy(d[i], hb, NBIG * sizeof(float));
        if (r == MGPU_SUCCESS) r = mgpu_reduce(d[i], NBIG, MGPU_F32, MGPU_OP_SUM, c.want[i], NULL);
        c.src[i] = d[i];
    }
    for (own = 1; own >= 0 && r == MGPU_SUCCESS; own--) {
        memset(c.mismatches, 0, sizeof c.mismatches);
        c.own_stream = own;
        r = mgpu_run_on_devices(devs, 4, conc_fn, &c);
        for (i = 0; i < 4; i++) good &= c.mismatches[i] == 0;
        report(r == MGPU_SUCCESS && good, "%s 4 threads reducing at once, each on %s%s%s", label,
               own ? "its own stream" : "the default stream", r == MGPU_SUCCESS ? "" : ": ",
               r == MGPU_SUCCESS ? (good ? "" : "") : mgpu_last_error());
    }
    if (r != MGPU_SUCCESS && good) report(0, "%s concurrency setup: %s", label, mgpu_last_error());
    mgpu_set_device(dev);
    for (i = 0; i < 4; i++) mgpu_free(d[i]);
}

/* Streams made and destroyed one after another: their workspaces do not pile up. */
static void stream_churn(mgpu_device dev, const char *label)
{
    float *d = NULL;
    unsigned char want[4];
    size_t before, after;
    int i, good = 1;
    mgpu_result r = mgpu_set_device(dev);
    fill(hb, NBIG, MGPU_F32);
    if (r == MGPU_SUCCESS) r = mgpu_malloc((void **)&d, NBIG * sizeof(float));
    if (r == MGPU_SUCCESS) r = mgpu_memcpy(d, hb, NBIG * sizeof(float));
    if (r == MGPU_SUCCESS) r = mgpu_reduce(d, NBIG, MGPU_F32, MGPU_OP_SUM, want, NULL);
    before = live_allocations();
    for (i = 0; i < 40 && r == MGPU_SUCCESS; i++) {
        mgpu_stream s = NULL;
        float v = 0;
        r = mgpu_stream_create(&s);
        if (r == MGPU_SUCCESS) r = mgpu_reduce(d, NBIG, MGPU_F32, MGPU_OP_SUM, &v, s);
        if (r == MGPU_SUCCESS && memcmp(&v, want, 4)) good = 0;
        if (s) mgpu_stream_destroy(s);
    }
    after = live_allocations();
    report(r == MGPU_SUCCESS && good && after <= before + 20, "%s 40 streams made, used and destroyed: right sums, "
           "%zu allocations before, %zu after%s%s", label, before, after, r == MGPU_SUCCESS ? "" : ": ",
           r == MGPU_SUCCESS ? "" : mgpu_last_error());
    mgpu_free(d);
}

/* ---------------------------------------------------------------- GPU-only cases */
/* The result in every kind of memory: device, pinned, managed, pageable (async and
   waiting), another GPU's (copied, then direct once peer access is on); and a CPU stream
   writing a GPU's memory. */
static void result_kinds(mgpu_device dev, mgpu_device other, mgpu_stream cs, const char *label)
{
    static const size_t ns[] = { 1023, NBIG };
    float *d = NULL, *pinned = NULL, *managed = NULL, *ores = NULL;
    size_t k;
    mgpu_result r = mgpu_set_device(dev);
    if (r == MGPU_SUCCESS) r = mgpu_malloc((void **)&d, NBIG * sizeof(float));
    if (r == MGPU_SUCCESS) r = mgpu_malloc_host((void **)&pinned, sizeof(float));
    if (r == MGPU_SUCCESS) r = mgpu_malloc_managed((void **)&managed, sizeof(float));
    if (r != MGPU_SUCCESS) { report(0, "%s result kinds setup: %s", label, mgpu_last_error()); goto done; }
    for (k = 0; k < 2; k++) {
        size_t n = ns[k];
        expect e;
        float v = 0;
        int good;
        char why[1200] = "";
        fill(hb, n, MGPU_F32);
        r = mgpu_memcpy(d, hb, n * sizeof(float));
        if (r == MGPU_SUCCESS) r = cpu_expect(cs, hb, n, MGPU_F32, MGPU_OP_SUM, &e);
#define KIND(desc, call, readback) do { \
        *pinned = -1; *managed = -1; v = -1; \
        if (r == MGPU_SUCCESS) r = (call); \
        if (r == MGPU_SUCCESS) r = mgpu_device_synchronize(dev); \
        if (r == MGPU_SUCCESS) { readback; } \
        good = r == MGPU_SUCCESS && check(MGPU_F32, MGPU_OP_SUM, &v, &e, why, sizeof why); \
        report(good, "%s f32 sum n=%zu into %s%s%s", label, n, desc, good ? "" : ": ", \
               r == MGPU_SUCCESS ? why : mgpu_last_error()); \
        r = MGPU_SUCCESS; } while (0)
        KIND("pinned host memory", mgpu_reduce_async(d, n, MGPU_F32, MGPU_OP_SUM, pinned, NULL), v = *pinned);
        KIND("managed memory", mgpu_reduce_async(d, n, MGPU_F32, MGPU_OP_SUM, managed, NULL), v = *managed);
        KIND("pageable host memory (async)", mgpu_reduce_async(d, n, MGPU_F32, MGPU_OP_SUM, &v, NULL), (void)0);
        KIND("pageable host memory (mgpu_reduce)", mgpu_reduce(d, n, MGPU_F32, MGPU_OP_SUM, &v, NULL), (void)0);
        KIND("pinned host memory (mgpu_reduce)", mgpu_reduce(d, n, MGPU_F32, MGPU_OP_SUM, pinned, NULL), v = *pinned);
        KIND("this GPU's memory from a CPU device's stream", mgpu_reduce_async(hb, n, MGPU_F32, MGPU_OP_SUM, d + n - 1, cs),
             r = mgpu_memcpy(&v, d + n - 1, sizeof v));
        r = mgpu_memcpy(d, hb, n * sizeof(float));     /* the last case overwrote an element */
        if (other >= 0) {
            int can = 0;
            if (!ores) {
                mgpu_set_device(other);
                r = mgpu_malloc((void **)&ores, sizeof(float));
                mgpu_set_device(dev);
            }
            KIND("another GPU's memory (copied there)", mgpu_reduce_async(d, n, MGPU_F32, MGPU_OP_SUM, ores, NULL),
                 r = mgpu_memcpy(&v, ores, sizeof v));
            mgpu_can_access_peer(dev, other, &can);
            if (!can) {
                skip("%s f32 sum n=%zu into a peer's memory directly: devices %d and %d have no peer access", label, n, dev, other);
            } else {
                r = mgpu_enable_peer_access(dev, other);
                KIND("another GPU's memory (peer access on: written directly)",
                     mgpu_reduce_async(d, n, MGPU_F32, MGPU_OP_SUM, ores, NULL), r = mgpu_memcpy(&v, ores, sizeof v));
            }
        }
#undef KIND
    }
    if (other < 0) skip("%s result in another GPU's memory: one GPU", label);
done:
    mgpu_set_device(dev);
    mgpu_free(d);
    mgpu_free_host(pinned);
    mgpu_free(managed);
    mgpu_free(ores);
}

/* Cross-device steps with peer access: reduce a peer's array, combine a peer's array in. */
static void peer_cases(mgpu_device dev, mgpu_device other, mgpu_stream cs, const char *label)
{
    unsigned char *ox = NULL, *dy = NULL;
    int can = 0, t, good = 1;
    char why[1200] = "";
    mgpu_result r;
    mgpu_can_access_peer(dev, other, &can);
    if (!can) { skip("%s peer reduce and combine: device %d cannot access device %d", label, dev, other); return; }
    r = mgpu_enable_peer_access(dev, other);
    if (r == MGPU_SUCCESS) r = mgpu_set_device(other);
    if (r == MGPU_SUCCESS) r = mgpu_malloc((void **)&ox, NBIG * 8);
    if (r == MGPU_SUCCESS) r = mgpu_set_device(dev);
    if (r == MGPU_SUCCESS) r = mgpu_malloc((void **)&dy, NBIG * 8);
    for (t = MGPU_F32; t <= MGPU_U64 && r == MGPU_SUCCESS && good; t++) {
        mgpu_dtype dt = (mgpu_dtype)t;
        size_t size = mgpu_dtype_size(dt);
        unsigned char got[8];
        expect e;
        fill(hx, NBIG, dt);
        fill(hy, NBIG, dt);
        r = mgpu_memcpy(ox, hx, NBIG * size);
        if (r == MGPU_SUCCESS) r = mgpu_memcpy(dy, hy, NBIG * size);
        if (r == MGPU_SUCCESS) r = cpu_expect(cs, hx, NBIG, dt, MGPU_OP_MAX, &e);
        if (r == MGPU_SUCCESS) r = mgpu_reduce(ox, NBIG, dt, MGPU_OP_MAX, got, NULL);
        if (r == MGPU_SUCCESS && !check(dt, MGPU_OP_MAX, got, &e, why, sizeof why)) good = 0;
        memcpy(he, hy, NBIG * size);
        if (r == MGPU_SUCCESS) r = mgpu_combine_async(he, hx, NBIG, dt, MGPU_OP_SUM, cs);
        if (r == MGPU_SUCCESS) r = mgpu_combine_async(dy, ox, NBIG, dt, MGPU_OP_SUM, NULL);
        if (r == MGPU_SUCCESS) r = mgpu_memcpy(hg, dy, NBIG * size);
        if (r == MGPU_SUCCESS && first_difference(hg, he, NBIG, dt) >= 0) {
            good = 0;
            snprintf(why, sizeof why, "combine %s differs", tname[t]);
        }
    }
    report(r == MGPU_SUCCESS && good, "%s max of device %d's array and y += its array on device %d (peer access)%s%s",
           label, other, dev, r == MGPU_SUCCESS && good ? "" : ": ", r == MGPU_SUCCESS ? why : mgpu_last_error());
    mgpu_free(ox);
    mgpu_free(dy);
}

/* ---------------------------------------------------------------- main */
int main(void)
{
    const unsigned long long seed = suite_seed();
    int cycle;
    float f = 0;
    rng_state = seed * 0x9E3779B97F4A7C15ull + 1;
    printf("seed %llu (MGPU_TEST_SEED=%llu repeats this run)\n", seed, seed);
    hb = (unsigned char *)malloc(NHOST * 8);
    hy = (unsigned char *)malloc(NHOST * 8);
    hx = (unsigned char *)malloc(NHOST * 8);
    he = (unsigned char *)malloc(NHOST * 8);
    hg = (unsigned char *)malloc(NHOST * 8);
    if (!hb || !hy || !hx || !he || !hg) { printf("out of memory\n"); return 1; }
    expect_err(mgpu_reduce(&f, 1, MGPU_F32, MGPU_OP_SUM, &f, NULL), MGPU_ERROR_NOT_INITIALIZED, "mgpu_reduce", NULL,
               "reduce before mgpu_init");

    for (cycle = 0; cycle < 2; cycle++) {
        mgpu_desc desc;
        const char *cuda_msg = "";
        mgpu_stream cs = NULL;
        int ncpu = cycle == 0 ? 1 : 4, i, ngpu;
        char label[64];
        memset(&desc, 0, sizeof desc);
        desc.cpu_devices = ncpu;
        if (mgpu_init(&desc) != MGPU_SUCCESS) { report(0, "mgpu_init with %d CPU devices: %s", ncpu, mgpu_last_error()); continue; }
        ngpu = mgpu_cuda_status(&cuda_msg) == MGPU_SUCCESS ? mgpu_device_count() : 0;
        printf("-- %d CPU device(s), %d GPU(s)\n", ncpu, ngpu);
        mgpu_default_stream(mgpu_cpu_device(0), &cs);

        for (i = 0; i < ncpu; i++) {
            mgpu_device d = mgpu_cpu_device(i);
            snprintf(label, sizeof label, "[cpu %d/%d]", i, ncpu);
            reduce_sweep(d, NULL, label);
            combine_sweep(d, NULL, label);
            special_values(d, label);
            misaligned_result(d, NULL, label);
        }
        snprintf(label, sizeof label, "[cpu 0/%d]", ncpu);
        determinism(mgpu_cpu_device(0), label);
        concurrency(mgpu_cpu_device(0), label);
        stream_churn(mgpu_cpu_device(0), label);
        bad_inputs(mgpu_cpu_device(0), ngpu ? 0 : -1, label);
        if (ncpu > 1) {   /* CPU devices share host memory: one reads another's */
            float *a = NULL, v = 0;
            int good;
            expect e;
            char why[1200] = "";
            mgpu_result r = mgpu_set_device(mgpu_cpu_device(3));
            fill(hb, 4097, MGPU_F32);
            if (r == MGPU_SUCCESS) r = mgpu_malloc((void **)&a, 4097 * sizeof(float));
            if (r == MGPU_SUCCESS) r = mgpu_memcpy(a, hb, 4097 * sizeof(float));
            ref_reduce(hb, 4097, MGPU_F32, MGPU_OP_SUM, &e);
            if (r == MGPU_SUCCESS) r = mgpu_reduce(a, 4097, MGPU_F32, MGPU_OP_SUM, &v, cs);
            good = r == MGPU_SUCCESS && check(MGPU_F32, MGPU_OP_SUM, &v, &e, why, sizeof why);
            report(good, "[cpu 0/4] reduces CPU device 3's memory%s%s", good ? "" : ": ",
                   r == MGPU_SUCCESS ? why : mgpu_last_error());
            mgpu_free(a);
        }
        if (cycle == 0) accuracy(mgpu_cpu_device(0), (size_t)1 << 24, "[cpu 0/1]");

        if (!ngpu) {
            skip("GPU cases (%d CPU devices): %s", ncpu, cuda_msg);
        } else if (cycle == 0) {
            for (i = 0; i < ngpu; i++) {
                mgpu_device other = ngpu > 1 ? (i + 1) % ngpu : -1;
                snprintf(label, sizeof label, "[gpu %d]", i);
                bad_inputs(i, other, label);          /* before any peer access is enabled */
                reduce_sweep(i, cs, label);
                combine_sweep(i, cs, label);
                special_values(i, label);
                misaligned_result(i, cs, label);
                determinism(i, label);
                concurrency(i, label);
                stream_churn(i, label);
                accuracy(i, getenv("TEST_REDUCE_QUICK") && *getenv("TEST_REDUCE_QUICK") ? (size_t)1 << 22 : (size_t)1 << 28, label);
            }
            for (i = 0; i < ngpu; i++) {              /* these enable peer access */
                mgpu_device other = ngpu > 1 ? (i + 1) % ngpu : -1;
                snprintf(label, sizeof label, "[gpu %d]", i);
                result_kinds(i, other, cs, label);
                if (other >= 0) peer_cases(i, other, cs, label);
                else skip("%s peer reduce and combine: one GPU", label);
            }
        } else {
            /* A second init cycle: kernels and workspaces of the first are gone. */
            for (i = 0; i < ngpu; i++) {
                snprintf(label, sizeof label, "[gpu %d, second init]", i);
                determinism(i, label);
                stream_churn(i, label);
            }
        }
        if (mgpu_shutdown() != MGPU_SUCCESS) report(0, "mgpu_shutdown: %s", mgpu_last_error());
    }
    free(hb); free(hy); free(hx); free(he); free(hg);
    return summary();
}
