/* bench/collectives_tune.c - all-reduce, broadcast and multi-device host reduction on every GPU,
   beside NCCL's ncclAllReduce when libnccl.so.2 can be opened (NCCL_LIB=path overrides).

   For f32 sum all-reduces of 256 MiB and 1 GiB per device it prints the time, algorithm
   bandwidth (bytes / time) and bus bandwidth (algbw * 2(n-1)/n, NCCL's busbw) of mgpu with
   each peer path (kernels reading peers directly: "load"; copy engine into scratch, then
   local combine: "copy") and several chunk sizes, then NCCL's, and the ratio of mgpu's
   best default-chunk result to NCCL. Target: mgpu >= 95% of NCCL at both sizes.
   Timing: host clock around `iters` back-to-back calls on one stream per device, after
   warm-up; the median of 5 such runs. Each configuration's result is checked (all devices
   equal, value as expected). NCCL_NVLS_ENABLE=0 is set unless already set.

   Exit: 0 ran and met the target, 3 ran and missed it (or no NCCL to compare with),
   77 no usable GPU, 1 error.
   Built by `make bench` as build/bench_collectives_tune.
   Arguments: --quick (fewer configurations), --iters N (default 10). */
#define _POSIX_C_SOURCE 200809L
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "mgpu.h"

#define MIB ((size_t)1 << 20)
#define RUNS 5

static int g_iters = 10;

#define CHECK(call) do { mgpu_result r_ = (call); if (r_ != MGPU_SUCCESS) { \
    fprintf(stderr, "bench_collectives: %s failed: %s\n  %s\n", #call, mgpu_result_string(r_), mgpu_last_error()); \
    exit(1); } } while (0)

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}
static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* ---- NCCL, loaded at run time (no header needed) */
typedef struct nccl_comm *nccl_comm_t;
static struct {
    int (*CommInitAll)(nccl_comm_t *comms, int ndev, const int *devlist);
    int (*CommDestroy)(nccl_comm_t comm);
    int (*AllReduce)(const void *send, void *recv, size_t count, int dtype, int op, nccl_comm_t comm, void *stream);
    int (*GroupStart)(void);
    int (*GroupEnd)(void);
    const char *(*GetErrorString)(int r);
} nccl;
#define NCCL_FLOAT32 7
#define NCCL_SUM 0

static int nccl_load(char *why, size_t cap)
{
    const char *names[3];
    void *h = NULL;
    int i, n = 0;
    if (getenv("NCCL_LIB")) names[n++] = getenv("NCCL_LIB");
    names[n++] = "libnccl.so.2";
    names[n++] = "libnccl.so";
    for (i = 0; i < n && !h; i++) h = dlopen(names[i], RTLD_NOW | RTLD_GLOBAL);
    if (!h) { snprintf(why, cap, "libnccl.so.2 not found (%s); set NCCL_LIB", dlerror()); return 0; }
    *(void **)&nccl.CommInitAll = dlsym(h, "ncclCommInitAll");
    *(void **)&nccl.CommDestroy = dlsym(h, "ncclCommDestroy");
    *(void **)&nccl.AllReduce = dlsym(h, "ncclAllReduce");
    *(void **)&nccl.GroupStart = dlsym(h, "ncclGroupStart");
    *(void **)&nccl.GroupEnd = dlsym(h, "ncclGroupEnd");
    *(void **)&nccl.GetErrorString = dlsym(h, "ncclGetErrorString");
    if (!nccl.CommInitAll || !nccl.AllReduce || !nccl.GroupStart || !nccl.GroupEnd || !nccl.CommDestroy) {
        snprintf(why, cap, "libnccl lacks ncclCommInitAll/ncclAllReduce/ncclGroupStart");
        return 0;
    }
    return 1;
}

/* ---- setup */
static int g_n;
static void *g_buf[MGPU_MAX_DEVICES];
static mgpu_stream g_s[MGPU_MAX_DEVICES];

static void sync_all(void)
{
    int d;
    for (d = 0; d < g_n; d++) CHECK(mgpu_stream_synchronize(g_s[d]));
}

/* Fills device d's buffer with d + 1 (sums of small integers are exact). */
static void set_values(size_t count)
{
    int d;
    size_t i, block = 1 << 16;
    float *h = (float *)malloc(block * sizeof *h);
    if (!h) exit(1);
    for (d = 0; d < g_n; d++) {
        for (i = 0; i < block; i++) h[i] = (float)(d + 1);
        for (i = 0; i < count; i += block) {
            size_t m = count - i < block ? count - i : block;
            CHECK(mgpu_memcpy((float *)g_buf[d] + i, h, m * sizeof *h));
        }
    }
    free(h);
}

/* After one all-reduce of set_values: every element n(n+1)/2 on every device (sampled). */
static int check_values(size_t count, const char *what)
{
    float want = (float)(g_n * (g_n + 1) / 2), v;
    size_t probe[5];
    int d, k;
    probe[0] = 0; probe[1] = count / 3; probe[2] = count / 2 + 1; probe[3] = count - 1; probe[4] = count / 4 * 3;
    for (d = 0; d < g_n; d++)
        for (k = 0; k < 5; k++) {
            CHECK(mgpu_memcpy(&v, (float *)g_buf[d] + probe[k], sizeof v));
            if (v != want) {
                printf("  WRONG RESULT (%s): device %d element %zu = %g, expected %g\n", what, d, probe[k], v, want);
                return 0;
            }
        }
    return 1;
}

static double time_mgpu(size_t count)
{
    double t[RUNS], t0;
    int r, i;
    for (i = 0; i < 3; i++) CHECK(mgpu_allreduce_async(g_buf, count, MGPU_F32, MGPU_OP_SUM, NULL, 0, g_s));
    sync_all();
    for (r = 0; r < RUNS; r++) {
        t0 = now_s();
        for (i = 0; i < g_iters; i++) CHECK(mgpu_allreduce_async(g_buf, count, MGPU_F32, MGPU_OP_SUM, NULL, 0, g_s));
        sync_all();
        t[r] = (now_s() - t0) / g_iters;
    }
    qsort(t, RUNS, sizeof t[0], cmp_double);
    return t[RUNS / 2];
}

static double time_nccl(nccl_comm_t *comms, size_t count, int *ok)
{
    double t[RUNS], t0;
    int r, i, d, e;
    void *cu[MGPU_MAX_DEVICES];
    for (d = 0; d < g_n; d++) CHECK(mgpu_native_stream(g_s[d], &cu[d]));
    *ok = 1;
    for (r = -1; r < RUNS; r++) {
        t0 = now_s();
        for (i = 0; i < (r < 0 ? 3 : g_iters); i++) {
            nccl.GroupStart();
            for (d = 0; d < g_n; d++)
                if ((e = nccl.AllReduce(g_buf[d], g_buf[d], count, NCCL_FLOAT32, NCCL_SUM, comms[d], cu[d])) != 0) {
                    printf("  ncclAllReduce: error %d (%s)\n", e, nccl.GetErrorString ? nccl.GetErrorString(e) : "?");
                    *ok = 0;
                }
            nccl.GroupEnd();
        }
        sync_all();
        if (r >= 0) t[r] = (now_s() - t0) / g_iters;
    }
    qsort(t, RUNS, sizeof t[0], cmp_double);
    return t[RUNS / 2];
}

static void print_row(const char *name, size_t bytes, double s)
{
    double alg = (double)bytes / s / 1e9, bus = alg * 2.0 * (g_n - 1) / g_n;
    printf("  %-34s %8.3f ms  algbw %7.1f GB/s  busbw %7.1f GB/s\n", name, s * 1e3, alg, bus);
}

int main(int argc, char **argv)
{
    static const size_t sizes[2] = { 256 * MIB, 1024 * MIB };
    static const size_t chunks_all[] = { 0, 4 * MIB, 8 * MIB, 16 * MIB, 32 * MIB, 64 * MIB };
    mgpu_desc desc;
    nccl_comm_t comms[MGPU_MAX_DEVICES];
    char why[512];
    int d, k, c, quick = 0, have_nccl, worst = 0, devlist[MGPU_MAX_DEVICES];
    double best_default[2] = { 0, 0 }, nccl_time[2] = { 0, 0 };
    for (k = 1; k < argc; k++) {
        if (!strcmp(argv[k], "--quick")) quick = 1;
        else if (!strcmp(argv[k], "--iters") && k + 1 < argc) g_iters = atoi(argv[++k]);
        else { fprintf(stderr, "usage: %s [--quick] [--iters N]\n", argv[0]); return 2; }
    }
    if (g_iters < 1) g_iters = 1;
    setenv("NCCL_NVLS_ENABLE", "0", 0);
    memset(&desc, 0, sizeof desc);
    desc.backend = MGPU_BACKEND_CUDA;
    if (mgpu_init(&desc) != MGPU_SUCCESS) { printf("bench_collectives: skipped: %s\n", mgpu_last_error()); return 77; }
    g_n = mgpu_device_count();
    printf("bench_collectives: %d GPU(s)\n", g_n);
    for (d = 0; d < g_n; d++) {
        mgpu_device_info info;
        int j;
        CHECK(mgpu_device_info_get(d, &info));
        printf("  device %d: %s, peers:", d, info.name);
        for (j = 0; j < g_n; j++) {
            mgpu_peer_path p;
            CHECK(mgpu_peer_path_get(d, j, &p));
            printf(" %s", j == d ? "-" : p == MGPU_PEER_DIRECT ? "P2P" : "staged");
        }
        printf("\n");
    }
    if (g_n < 2) printf("  (one GPU: all-reduce is a no-op; numbers are meaningless)\n");
    for (d = 0; d < g_n; d++) {
        CHECK(mgpu_set_device(d));
        CHECK(mgpu_stream_create_flags(&g_s[d], MGPU_STREAM_NON_BLOCKING));
        CHECK(mgpu_malloc(&g_buf[d], sizes[1]));
        devlist[d] = d;
    }
    CHECK(mgpu_set_device(0));
    have_nccl = nccl_load(why, sizeof why);
    if (have_nccl && nccl.CommInitAll(comms, g_n, devlist) != 0) {
        snprintf(why, sizeof why, "ncclCommInitAll failed");
        have_nccl = 0;
    }

    for (k = 0; k < 2; k++) {
        size_t bytes = sizes[k], count = bytes / 4;
        int mode;
        printf("\nall-reduce, f32 sum, %zu MiB per device:\n", bytes / MIB);
        for (mode = 0; mode < 2; mode++)
            for (c = 0; c < (int)(sizeof chunks_all / sizeof chunks_all[0]); c++) {
                mgpu_collective_tuning tu;
                char name[64];
                double s;
                if (quick && c != 0 && chunks_all[c] != 16 * MIB) continue;
                memset(&tu, 0, sizeof tu);
                tu.chunk_bytes = chunks_all[c];
                tu.allreduce_copy = mode;
                CHECK(mgpu_collective_tuning_set(&tu));
                set_values(count);
                CHECK(mgpu_allreduce_async(g_buf, count, MGPU_F32, MGPU_OP_SUM, NULL, 0, g_s));
                sync_all();
                if (c) snprintf(name, sizeof name, "mgpu %s, chunk %zu MiB", mode ? "copy" : "load", chunks_all[c] / MIB);
                else snprintf(name, sizeof name, "mgpu %s, default chunk", mode ? "copy" : "load");
                if (!check_values(count, name)) { worst = 1; continue; }
                s = time_mgpu(count);
                print_row(name, bytes, s);
                if (c == 0 && (best_default[k] == 0 || s < best_default[k])) best_default[k] = s;
            }
        CHECK(mgpu_collective_tuning_set(NULL));
        if (have_nccl) {
            int ok;
            set_values(count);
            nccl_time[k] = time_nccl(comms, count, &ok);
            if (ok) print_row("NCCL ncclAllReduce", bytes, nccl_time[k]);
            else nccl_time[k] = 0;
        }
    }

    /* Broadcast and host reductions, for the record. */
    {
        double t0, s;
        int i;
        printf("\nbroadcast of 1 GiB from device 0 (chain):\n");
        CHECK(mgpu_broadcast_async(g_buf, sizes[1], 0, NULL, 0, g_s));
        sync_all();
        t0 = now_s();
        for (i = 0; i < 5; i++) CHECK(mgpu_broadcast_async(g_buf, sizes[1], 0, NULL, 0, g_s));
        sync_all();
        s = (now_s() - t0) / 5;
        printf("  %-34s %8.3f ms  %7.1f GB/s per device\n", "mgpu_broadcast_async", s * 1e3, sizes[1] / s / 1e9);
    }
    {
        void *host = NULL;
        float sum;
        double t0, s;
        printf("\nmgpu_reduce_multi of a 1 GiB f32 host array over all GPUs:\n");
        if (mgpu_malloc_host(&host, sizes[1]) == MGPU_SUCCESS) {
            memset(host, 0, sizes[1]);
            CHECK(mgpu_reduce_multi(host, sizes[1] / 4, MGPU_F32, MGPU_OP_SUM, &sum, NULL, 0, NULL));
            t0 = now_s();
            CHECK(mgpu_reduce_multi(host, sizes[1] / 4, MGPU_F32, MGPU_OP_SUM, &sum, NULL, 0, NULL));
            s = now_s() - t0;
            printf("  %-34s %8.3f ms  %7.1f GB/s\n", "pinned source", s * 1e3, sizes[1] / s / 1e9);
            CHECK(mgpu_free_host(host));
        }
        host = malloc(sizes[1]);
        if (host) {
            memset(host, 0, sizes[1]);
            t0 = now_s();
            CHECK(mgpu_reduce_multi(host, sizes[1] / 4, MGPU_F32, MGPU_OP_SUM, &sum, NULL, 0, NULL));
            s = now_s() - t0;
            printf("  %-34s %8.3f ms  %7.1f GB/s\n", "pageable source", s * 1e3, sizes[1] / s / 1e9);
            free(host);
        }
    }

    printf("\nsummary:");
    if (!have_nccl || !nccl_time[0] || !nccl_time[1]) {
        printf(" no NCCL to compare with (%s); mgpu default busbw %.1f / %.1f GB/s at 256 MiB / 1 GiB\n",
               have_nccl ? "NCCL failed" : why, sizes[0] / best_default[0] / 1e9 * 2.0 * (g_n - 1) / g_n,
               sizes[1] / best_default[1] / 1e9 * 2.0 * (g_n - 1) / g_n);
        if (!worst) worst = 3;
    } else {
        for (k = 0; k < 2; k++) {
            double ratio = nccl_time[k] / best_default[k];
            printf(" %zu MiB: mgpu/NCCL busbw %.1f%%%s;", sizes[k] / MIB, 100.0 * ratio, ratio >= 0.95 ? "" : " (target 95% MISSED)");
            if (ratio < 0.95 && !worst) worst = 3;
        }
        printf("\n");
    }
    if (have_nccl) for (d = 0; d < g_n; d++) nccl.CommDestroy(comms[d]);
    for (d = 0; d < g_n; d++) { CHECK(mgpu_free(g_buf[d])); CHECK(mgpu_stream_destroy(g_s[d])); }
    CHECK(mgpu_shutdown());
    return worst;
}
