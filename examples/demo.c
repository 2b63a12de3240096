/* demo.c - a short guided tour of mgpu on whatever devices this machine has (`make demo`).

   1. the backend in use, and why CUDA is not used when it is not
   2. the device table
   3. the peer-access matrix
   4. one thread per device, each filling its slice of a host array
   5. a copy from device 0 to device 1, checked (with two devices or more)
   6. timing with events: axpy on device 0
   7. the direct path against the staged (pinned host) path between devices 0 and 1

   Without a GPU the tour runs on CPU devices: two of them unless MGPU_CPU_DEVICES says
   otherwise (mgpu_desc.cpu_devices = 2), and it says how a program of your own gets several
   (it gets one by default). It exits 0 whenever every step succeeds. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mgpu.h"

#define CHECK(call) do { mgpu_result r_ = (call); if (r_ != MGPU_SUCCESS) { \
    fprintf(stderr, "demo: %s failed: %s\n  %s\n", #call, mgpu_result_string(r_), mgpu_last_error()); \
    exit(1); } } while (0)
#define TRY(call) do { mgpu_result r_ = (call); if (r_ != MGPU_SUCCESS) return r_; } while (0)

static const char *path_name(mgpu_peer_path p)
{
    switch (p) {
    case MGPU_PEER_SAME_DEVICE: return "same device";
    case MGPU_PEER_DIRECT: return "direct (peer access over NVLink/PCIe)";
    case MGPU_PEER_STAGED: return "staged (through pinned host memory)";
    case MGPU_PEER_HOST: return "host (CPU devices share host memory)";
    }
    return "?";
}

static void step(int k, const char *title) { printf("\n[%d] %s\n", k, title); }

/* ---- step 4: one thread per device */
#define FILL_N ((size_t)1 << 22)
typedef struct fill_job { int ndev; uint32_t *host; } fill_job;

static mgpu_result fill(mgpu_device dev, int index, void *arg)
{
    const fill_job *j = (const fill_job *)arg;
    size_t first = FILL_N * (size_t)index / (size_t)j->ndev, last = FILL_N * (size_t)(index + 1) / (size_t)j->ndev;
    mgpu_stream s;
    uint32_t *buf;
    TRY(mgpu_stream_create(&s));
    TRY(mgpu_malloc((void **)&buf, (last - first) * sizeof *buf));
    TRY(mgpu_iota_u32(last - first, (uint32_t)first, buf, s));
    TRY(mgpu_memcpy_async(j->host + first, buf, (last - first) * sizeof *buf, s));
    TRY(mgpu_stream_synchronize(s));
    TRY(mgpu_free(buf));
    TRY(mgpu_stream_destroy(s));
    printf("    thread %d, device %d: wrote [%zu, %zu)\n", index, dev, first, last);
    return MGPU_SUCCESS;
}

/* Best of `reps` timed copies from src to dst on a new stream of device b, in GB/s. */
static double time_copy(void *dst, const void *src, size_t bytes, unsigned flags, mgpu_device b, int reps)
{
    mgpu_stream s;
    mgpu_event start, stop;
    float ms, best = 0.0f;
    int i;
    CHECK(mgpu_set_device(b));
    CHECK(mgpu_stream_create(&s));
    CHECK(mgpu_event_create(&start));
    CHECK(mgpu_event_create(&stop));
    CHECK(mgpu_copy_peer_async(dst, src, bytes, flags, s));     /* warm-up: enables access, makes buffers */
    CHECK(mgpu_stream_synchronize(s));
    for (i = 0; i < reps; i++) {
        CHECK(mgpu_event_record(start, s));
        CHECK(mgpu_copy_peer_async(dst, src, bytes, flags, s));
        CHECK(mgpu_event_record(stop, s));
        CHECK(mgpu_event_synchronize(stop));
        CHECK(mgpu_event_elapsed_ms(start, stop, &ms));
        if (i == 0 || ms < best) best = ms;
    }
    CHECK(mgpu_event_destroy(start));
    CHECK(mgpu_event_destroy(stop));
    CHECK(mgpu_stream_destroy(s));
    if (best <= 0.0f) best = 1e-3f;                          /* CPU event clocks are coarse */
    return (double)bytes / ((double)best * 1e-3) / 1e9;
}

/* ---- step 5: a checked copy from device 0 to device 1 */
static void copy_step(size_t bytes)
{
    unsigned char *src, *dst, *check;
    mgpu_peer_path path;
    size_t i, bad = 0;
    CHECK(mgpu_peer_path_get(0, 1, &path));
    printf("    path: %s\n", path_name(path));
    CHECK(mgpu_set_device(0));
    CHECK(mgpu_malloc((void **)&src, bytes));
    CHECK(mgpu_memset(src, 0x5a, bytes));
    CHECK(mgpu_set_device(1));
    CHECK(mgpu_malloc((void **)&dst, bytes));
    CHECK(mgpu_memset(dst, 0, bytes));
    CHECK(mgpu_copy_peer(dst, src, bytes, 0));
    check = (unsigned char *)malloc(bytes);
    if (!check) { fprintf(stderr, "demo: out of memory\n"); exit(1); }
    CHECK(mgpu_memcpy(check, dst, bytes));
    for (i = 0; i < bytes; i++) bad += check[i] != 0x5a;
    printf("    copied %zu MiB from device 0 to device 1: %s\n", bytes >> 20, bad ? "WRONG" : "verified");
    free(check);
    CHECK(mgpu_free(src));
    CHECK(mgpu_free(dst));
    if (bad) exit(1);
}

/* ---- step 6: events around 20 axpy launches on device 0's default stream */
static void timing_step(size_t m)
{
    float *x, *y, ms = 0.0f;
    mgpu_event start, stop;
    int k;
    CHECK(mgpu_set_device(0));
    CHECK(mgpu_malloc((void **)&x, m * sizeof *x));
    CHECK(mgpu_malloc((void **)&y, m * sizeof *y));
    CHECK(mgpu_memset(x, 0, m * sizeof *x));
    CHECK(mgpu_memset(y, 0, m * sizeof *y));
    CHECK(mgpu_event_create(&start));
    CHECK(mgpu_event_create(&stop));
    CHECK(mgpu_axpy_f32(m, 1.0f, x, y, NULL));                 /* warm-up: loads the module */
    CHECK(mgpu_event_record(start, NULL));
    for (k = 0; k < 20; k++) CHECK(mgpu_axpy_f32(m, 0.5f, x, y, NULL));
    CHECK(mgpu_event_record(stop, NULL));
    CHECK(mgpu_event_synchronize(stop));
    CHECK(mgpu_event_elapsed_ms(start, stop, &ms));
    if (ms <= 0.0f) ms = 1e-3f;                                /* CPU event clocks are coarse */
    printf("    %zu floats: %.3f ms per axpy, %.1f GB/s effective (reads x and y, writes y)\n", m,
           (double)ms / 20, 20.0 * 3.0 * (double)(m * sizeof(float)) / ((double)ms * 1e-3) / 1e9);
    CHECK(mgpu_event_destroy(start));
    CHECK(mgpu_event_destroy(stop));
    CHECK(mgpu_free(x));
    CHECK(mgpu_free(y));
}

/* ---- step 7: the default path against MGPU_COPY_FORCE_STAGED, 0 -> 1 */
static void paths_step(size_t bytes, int gpu)
{
    void *src, *dst;
    unsigned char *check;
    mgpu_peer_path path;
    double fast, staged;
    size_t i, bad = 0;
    CHECK(mgpu_peer_path_get(0, 1, &path));
    CHECK(mgpu_set_device(0));
    CHECK(mgpu_malloc(&src, bytes));
    CHECK(mgpu_memset(src, 1, bytes));
    CHECK(mgpu_set_device(1));
    CHECK(mgpu_malloc(&dst, bytes));
    fast = time_copy(dst, src, bytes, 0, 1, 5);
    CHECK(mgpu_memset(dst, 0, bytes));                         /* so the check sees the staged copies */
    staged = time_copy(dst, src, bytes, MGPU_COPY_FORCE_STAGED, 1, 5);
    check = (unsigned char *)malloc(bytes);
    if (!check) { fprintf(stderr, "demo: out of memory\n"); exit(1); }
    CHECK(mgpu_memcpy(check, dst, bytes));
    for (i = 0; i < bytes; i++) bad += check[i] != 1;
    free(check);
    printf("    %zu MiB, %-28s %8.1f GB/s\n", bytes >> 20, path == MGPU_PEER_DIRECT ? "flags 0 (direct path):" :
           path == MGPU_PEER_STAGED ? "flags 0 (staged path):" : "flags 0 (host path):", fast);
    printf("    %zu MiB, %-28s %8.1f GB/s\n", bytes >> 20, "MGPU_COPY_FORCE_STAGED:", staged);
    if (!gpu) printf("    (CPU devices: both are plain host copies)\n");
    else if (path != MGPU_PEER_DIRECT) printf("    (no peer access between 0 and 1: both take the staged path)\n");
    printf("    data after the forced-staged copies: %s\n", bad ? "WRONG" : "verified");
    CHECK(mgpu_free(src));
    CHECK(mgpu_free(dst));
    if (bad) exit(1);
}

int main(void)
{
    mgpu_desc desc;
    const char *why = "";
    int n, a, b, *matrix, gpu;
    size_t i;

    /* ---- 1. backend */
    memset(&desc, 0, sizeof desc);
    if (!getenv("MGPU_CPU_DEVICES")) desc.cpu_devices = 2;   /* a two-device tour even without a GPU */
    CHECK(mgpu_init(&desc));
    n = mgpu_device_count();
    gpu = mgpu_default_backend() == MGPU_BACKEND_CUDA;
    printf("mgpu %s demo\n", mgpu_version());
    step(1, "backend");
    if (mgpu_cuda_status(&why) == MGPU_SUCCESS) {
        printf("    CUDA in use: %s\n", why);
    } else {
        printf("    CUDA is unavailable (%s):\n      %s\n", mgpu_result_string(mgpu_cuda_status(&why)), why);
        printf("    the tour runs on %d CPU device(s) with the same API\n", n);
        if (!getenv("MGPU_CPU_DEVICES"))
            printf("    (this demo asks for 2 with mgpu_desc.cpu_devices = 2; your own program gets 1 unless\n"
                   "     you set MGPU_CPU_DEVICES=N in its environment or mgpu_desc.cpu_devices = N)\n");
    }

    /* ---- 2. devices */
    step(2, "devices of the default backend");
    for (a = 0; a < n; a++) {
        mgpu_device_info in;
        CHECK(mgpu_device_info_get(a, &in));
        if (in.backend == MGPU_BACKEND_CUDA)
            printf("    %d: %-26s cc %d.%d, %3d SMs, %6.1f GiB, %s\n", a, in.name, in.cc_major, in.cc_minor,
                   in.multiprocessors, (double)in.total_memory / (1 << 30), in.pci_bus_id);
        else
            printf("    %d: %-26s %d hardware threads, %.1f GiB host memory\n", a, in.name, in.multiprocessors,
                   (double)in.total_memory / (1 << 30));
    }
    if (gpu) printf("    and %d CPU device(s), from index %d (mgpu_cpu_device(0))\n", mgpu_cpu_device_count(),
                    mgpu_cpu_device(0));

    /* ---- 3. peer matrix */
    step(3, "peer access (row can read/write column's memory directly)");
    matrix = (int *)malloc((size_t)n * (size_t)n * sizeof *matrix);
    if (!matrix) { fprintf(stderr, "demo: out of memory\n"); return 1; }
    CHECK(mgpu_peer_matrix(matrix, n));
    for (a = 0; a < n; a++) {
        printf("    %2d:", a);
        for (b = 0; b < n; b++) printf(" %c", a == b ? '-' : matrix[a * n + b] ? 'y' : 'n');
        printf("\n");
    }
    free(matrix);

    /* ---- 4. one thread per device */
    step(4, "mgpu_run_on_devices: one thread per device, each fills its slice");
    {
        fill_job j;
        size_t bad = 0;
        j.ndev = n;
        CHECK(mgpu_malloc_host((void **)&j.host, FILL_N * sizeof *j.host));
        memset(j.host, 0xff, FILL_N * sizeof *j.host);
        CHECK(mgpu_run_on_devices(NULL, n, fill, &j));
        for (i = 0; i < FILL_N; i++) bad += j.host[i] != (uint32_t)i;
        printf("    gathered %zu values: %s\n", FILL_N, bad ? "WRONG" : "all correct");
        CHECK(mgpu_free_host(j.host));
        if (bad) return 1;
    }

    step(5, "copy device 0 -> device 1 with mgpu_copy_peer");
    if (n >= 2) copy_step((size_t)64 << 20);
    else printf("    the default backend has one device: nothing to copy between\n");

    step(6, "timing with events: 20 x axpy on device 0");
    timing_step(gpu ? (size_t)1 << 26 : (size_t)1 << 22);

    step(7, "direct vs staged copy 0 -> 1 (best of 5, events on device 1's stream)");
    if (n >= 2) paths_step(gpu ? (size_t)256 << 20 : (size_t)32 << 20, gpu);
    else printf("    needs two devices\n");

    CHECK(mgpu_shutdown());
    printf("\ndemo finished: every step succeeded\n");
    if (!gpu && !getenv("MGPU_CPU_DEVICES"))
        printf("without a GPU a program gets 1 CPU device by default: run it as MGPU_CPU_DEVICES=4 ./prog\n"
               "(or set mgpu_desc.cpu_devices = 4 before mgpu_init) to see 4, as this demo saw 2\n");
    return 0;
}
