/* bench_util.h - shared helpers for the mgpu benchmarks (the programs of bench/).

   The peer baselines call the CUDA driver API directly, with cuda.h's own prototypes.
   By default the entry points are taken from the same libcuda.so.1 that mgpu opens (dlopen
   plus dlsym of the exact symbol that cuda.h maps each name to, e.g. cuMemcpyHtoD ->
   cuMemcpyHtoD_v2), so a binary starts on a machine without a driver and can skip with
   exit 77. Build with -DBENCH_LINK_CUDA (make bench BENCH_LINK_CUDA=1) to call the linked
   -lcuda symbols instead; such a binary needs libcuda.so.1 to start at all. */
#ifndef BENCH_UTIL_H
#define BENCH_UTIL_H

/* cuda.h uses anonymous unions, which -std=c99 -pedantic rejects. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpedantic"
#include <cuda.h>
#pragma GCC diagnostic pop
#include <dlfcn.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "mgpu.h"

#define BENCH_SKIP 77
/* Helpers each program may or may not use. */
#define BENCH_FN static __attribute__((unused))

/* ------------------------------------------------------------------ raw driver entry points */
#define BENCH_CU_FUNCS(X) \
    X(cuInit) X(cuGetErrorName) X(cuDriverGetVersion) X(cuDeviceGet) X(cuDeviceGetCount) X(cuDeviceCanAccessPeer) \
    X(cuDevicePrimaryCtxRetain) X(cuDevicePrimaryCtxRelease) X(cuCtxSetCurrent) X(cuCtxGetCurrent) \
    X(cuCtxEnablePeerAccess) X(cuCtxSynchronize) \
    X(cuStreamCreate) X(cuStreamDestroy) X(cuStreamSynchronize) \
    X(cuEventCreate) X(cuEventDestroy) X(cuEventRecord) X(cuEventSynchronize) X(cuEventElapsedTime) \
    X(cuMemcpyPeerAsync) X(cuMemcpyHtoDAsync) X(cuMemcpyDtoHAsync) X(cuMemcpyHtoD) X(cuMemcpyDtoH) \
    X(cuMemsetD8) X(cuMemsetD8Async) X(cuMemHostAlloc) X(cuMemFreeHost) X(cuMemAlloc) X(cuMemFree) \
    X(cuModuleLoadData) X(cuModuleUnload) X(cuModuleGetFunction) X(cuLaunchKernel)

#define BENCH_STR_(x) #x
#define BENCH_STR(x) BENCH_STR_(x)

#ifdef BENCH_LINK_CUDA
#define CU(name) name
#else
/* One pointer per entry point, typed from cuda.h's declaration. The argument is
   macro-expanded first, so versioned names (cuMemcpyHtoD -> cuMemcpyHtoD_v2) match. */
#define BENCH_X_FIELD(name) __typeof__(&name) name;
static struct { BENCH_CU_FUNCS(BENCH_X_FIELD) int unused_; } bench_cu;
#define CU(name) bench_cu.name
#endif

/* Loads the entry points; 0 on success, else writes why into err. */
BENCH_FN int bench_cuda_load(char *err, size_t cap)
{
#ifdef BENCH_LINK_CUDA
    (void)err; (void)cap;
    return 0;
#else
    const char *path = getenv("MGPU_CUDA_PATH");     /* the library mgpu opened */
    void *h;
    if (!path || !*path) path = "libcuda.so.1";
    h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h) { snprintf(err, cap, "dlopen(%s): %s", path, dlerror()); return -1; }
#define BENCH_X_LOAD(name) \
    if (!(*(void **)&bench_cu.name = dlsym(h, BENCH_STR(name)))) { \
        snprintf(err, cap, "%s has no %s", path, BENCH_STR(name)); return -1; }
    BENCH_CU_FUNCS(BENCH_X_LOAD)
#undef BENCH_X_LOAD
    return 0;                            /* the handle stays open for the process */
#endif
}

BENCH_FN const char *bench_cu_name(CUresult e)
{
    const char *s = NULL;
    if (CU(cuGetErrorName)(e, &s) != CUDA_SUCCESS || !s) return "CUDA_ERROR_?";
    return s;
}

/* Any failure ends the benchmark: a number measured after an error is worthless. */
#define CK(call) do { CUresult e_ = (call); if (e_ != CUDA_SUCCESS) { \
    fprintf(stderr, "%s:%d: %s failed: %s (%d)\n", __FILE__, __LINE__, #call, bench_cu_name(e_), (int)e_); \
    exit(1); } } while (0)
#define MK(call) do { mgpu_result r_ = (call); if (r_ != MGPU_SUCCESS) { \
    fprintf(stderr, "%s:%d: %s failed: %s: %s\n", __FILE__, __LINE__, #call, mgpu_result_string(r_), \
            mgpu_last_error()); exit(1); } } while (0)

BENCH_FN CUdeviceptr bench_dptr(const void *p) { return (CUdeviceptr)(uintptr_t)p; }

/* ------------------------------------------------------------------ start-up and skipping */
/* mgpu_init, then the reason CUDA is not usable (exit 77) or the driver entry points.
   Returns 0 to go on, else the exit status. */
BENCH_FN int bench_start(const char *prog, int min_gpus)
{
    const char *msg = "";
    char err[600];
    mgpu_result r = mgpu_init(NULL), st;
    if (r != MGPU_SUCCESS) {
        int skip = r == MGPU_ERROR_NO_DRIVER || r == MGPU_ERROR_DRIVER_TOO_OLD || r == MGPU_ERROR_NO_DEVICE;
        printf("%s: %s: %s\n", prog, skip ? "skipped" : "mgpu_init failed", mgpu_last_error());
        return skip ? BENCH_SKIP : 1;
    }
    st = mgpu_cuda_status(&msg);
    if (st != MGPU_SUCCESS || mgpu_default_backend() != MGPU_BACKEND_CUDA) {
        printf("%s: skipped: %s\n", prog, msg && *msg ? msg : mgpu_result_string(st));
        mgpu_shutdown();
        return BENCH_SKIP;
    }
    if (mgpu_device_count() < min_gpus) {
        printf("%s: skipped: needs %d GPUs, mgpu sees %d (%s)\n", prog, min_gpus, mgpu_device_count(), msg);
        mgpu_shutdown();
        return BENCH_SKIP;
    }
    if (bench_cuda_load(err, sizeof err) != 0) {
        printf("%s: cannot load the driver for the raw baselines: %s\n", prog, err);
        mgpu_shutdown();
        return 1;
    }
    CK(CU(cuInit)(0));
    return 0;
}

/* The primary context mgpu uses for device dev (retained once more here). */
BENCH_FN CUcontext bench_primary_ctx(mgpu_device dev, CUdevice *out_dev)
{
    mgpu_device_info info;
    CUdevice d;
    CUcontext c;
    MK(mgpu_device_info_get(dev, &info));
    CK(CU(cuDeviceGet)(&d, info.ordinal));
    CK(CU(cuDevicePrimaryCtxRetain)(&c, d));
    if (out_dev) *out_dev = d;
    return c;
}

/* ------------------------------------------------------------------ time, statistics */
BENCH_FN double bench_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

BENCH_FN int bench_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

BENCH_FN int bench_cmp_size(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return (x > y) - (x < y);
}

/* Median of v[0..n) (v is sorted in place). */
BENCH_FN double bench_median(double *v, int n)
{
    if (n <= 0) return 0.0;
    qsort(v, (size_t)n, sizeof *v, bench_cmp_double);
    return (n & 1) ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* ------------------------------------------------------------------ random data */
static uint64_t bench_seed_state;
BENCH_FN void bench_seed(void)
{
    bench_seed_state = (uint64_t)bench_now_ns() ^ ((uint64_t)getpid() << 32) ^ 0x9E3779B97F4A7C15ull;
}
BENCH_FN uint64_t bench_splitmix(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}
/* Fresh random bytes (a new stream each call; never all zeros). */
BENCH_FN void bench_fill_random(void *p, size_t bytes)
{
    unsigned char *b = (unsigned char *)p;
    uint64_t s = bench_splitmix(&bench_seed_state), x;
    size_t i = 0;
    for (; i + 8 <= bytes; i += 8) { x = bench_splitmix(&s); memcpy(b + i, &x, 8); }
    if (i < bytes) { x = bench_splitmix(&s); memcpy(b + i, &x, bytes - i); }
    if (bytes) b[0] |= 1;                /* at least one byte is non-zero */
}

/* ------------------------------------------------------------------ sizes */
/* "4K", "64KiB", "1M", "16MB", "1G", "4096": binary units. 0 on a parse error. */
BENCH_FN size_t bench_parse_size(const char *s)
{
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    unsigned long long mul = 1;
    if (end == s) return 0;
    switch (*end) {
    case 'k': case 'K': mul = 1ull << 10; end++; break;
    case 'm': case 'M': mul = 1ull << 20; end++; break;
    case 'g': case 'G': mul = 1ull << 30; end++; break;
    default: break;
    }
    if (*end == 'i' || *end == 'I') end++;
    if (*end == 'b' || *end == 'B') end++;
    if (*end) return 0;
    if (v > (unsigned long long)SIZE_MAX / mul) return 0;
    return (size_t)(v * mul);
}

/* "2^k" with k in kmin..kmax, or a size as bench_parse_size reads it. 0 on a parse error. */
BENCH_FN size_t bench_parse_count(const char *s, int kmin, int kmax)
{
    if (s[0] == '2' && s[1] == '^') {
        char *end;
        long k = strtol(s + 2, &end, 10);
        if (*end || k < kmin || k > kmax) return 0;
        return (size_t)1 << k;
    }
    return bench_parse_size(s);
}

/* A comma-separated list of at most cap counts or sizes into out: each entry read by
   bench_parse_count(entry, kmin, kmax) (kmax 0: by bench_parse_size alone), non-zero, a
   multiple of mult and at most max (0: any). Returns how many, or -1 for an empty list or
   after "<prog>: bad <what> '<entry>'" on stderr. */
BENCH_FN int bench_parse_list(const char *prog, const char *what, const char *v, size_t *out, int cap, int kmin, int kmax,
                              size_t mult, size_t max)
{
    char buf[512], *tok, *save = NULL;
    int n = 0;
    snprintf(buf, sizeof buf, "%s", v);
    for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        size_t s = kmax ? bench_parse_count(tok, kmin, kmax) : bench_parse_size(tok);
        if (!s || s % mult || (max && s > max) || n == cap) { fprintf(stderr, "%s: bad %s '%s'\n", prog, what, tok); return -1; }
        out[n++] = s;
    }
    return n ? n : -1;
}

/* n as "2^k" when it is a power of two, else in decimal. */
BENCH_FN const char *bench_n_str(size_t n, char *buf, size_t cap)
{
    int k;
    for (k = 0; k < 64; k++)
        if (n == (size_t)1 << k) { snprintf(buf, cap, "2^%d", k); return buf; }
    snprintf(buf, cap, "%zu", n);
    return buf;
}

/* Appends to a fixed buffer (a summary line); never runs past it. */
BENCH_FN void bench_append(char *buf, size_t cap, size_t *len, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
BENCH_FN void bench_append(char *buf, size_t cap, size_t *len, const char *fmt, ...)
{
    va_list ap;
    int k;
    if (*len >= cap) return;
    va_start(ap, fmt);
    k = vsnprintf(buf + *len, cap - *len, fmt, ap);
    va_end(ap);
    if (k > 0) *len = *len + (size_t)k < cap ? *len + (size_t)k : cap;
}

BENCH_FN const char *bench_size_str(size_t bytes, char *buf, size_t cap)
{
    if (bytes >= (1u << 30) && bytes % (1u << 30) == 0) snprintf(buf, cap, "%zu GiB", bytes >> 30);
    else if (bytes >= (1u << 20) && bytes % (1u << 20) == 0) snprintf(buf, cap, "%zu MiB", bytes >> 20);
    else if (bytes >= (1u << 10) && bytes % (1u << 10) == 0) snprintf(buf, cap, "%zu KiB", bytes >> 10);
    else snprintf(buf, cap, "%zu B", bytes);
    return buf;
}

/* Device names, as the benchmarks print them at the top. */
BENCH_FN void bench_print_devices(void)
{
    int d, n = mgpu_device_count();
    const char *msg = "";
    mgpu_cuda_status(&msg);
    printf("mgpu %s; %s\n", mgpu_version(), msg);
    for (d = 0; d < n; d++) {
        mgpu_device_info in;
        MK(mgpu_device_info_get(d, &in));
        printf("  device %d: %s  cc %d.%d, %d SMs, %.1f GiB, PCI %s\n", d, in.name, in.cc_major, in.cc_minor,
               in.multiprocessors, (double)in.total_memory / (double)(1u << 30), in.pci_bus_id);
    }
}

#endif /* BENCH_UTIL_H */
