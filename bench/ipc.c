/* bench_ipc - a device-to-device copy from memory another process exported against the same
   copy from this process's own memory, on device 0 (two processes on one GPU).

   A child process (forked before mgpu_init) allocates --bytes on its device 0, fills it and
   exports it (mgpu_ipc_export_memory); this process opens the handle on its device 0 and
   times mgpu_memcpy_async of the whole buffer from the imported memory into its own, and
   the same copy from a buffer of its own, alternating, with events; --reps of each after a
   warm-up; medians. The copied bytes are checked. Target (issue 15): the imported copy at
   >= 0.95 of the in-process one. --pool: both source buffers are pool memory
   (mgpu_malloc_async), so the export goes through the pool's file descriptor (passed over
   the exporter's Unix socket) instead of the driver's legacy cuIpc handle.
   Usage: bench_ipc [--bytes 1G] [--reps 11] [--pool]
   Exit: 0 target met, 3 missed, 77 no GPU (CPU devices only), 1 error, 2 bad arguments. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "mgpu.h"

#define FILL 0x5A
#define FAIL(...) do { fprintf(stderr, __VA_ARGS__); fprintf(stderr, ": %s\n", mgpu_last_error()); return 1; } while (0)

/* Device memory: from the device's pool or not. */
static mgpu_result allocate(void **p, size_t bytes, int pool)
{
    mgpu_result r = pool ? mgpu_malloc_async(p, bytes, NULL) : mgpu_malloc(p, bytes);
    return r == MGPU_SUCCESS ? mgpu_stream_synchronize(NULL) : r;
}

/* The exporter: allocates, fills, sends the handle, then waits until the other side is done. */
static int exporter(size_t bytes, int pool, int to_parent, int from_parent)
{
    mgpu_ipc_handle h;
    void *p;
    char c;
    memset(&h, 0, sizeof h);
    if (mgpu_init(NULL) != MGPU_SUCCESS || mgpu_default_backend() != MGPU_BACKEND_CUDA ||
        allocate(&p, bytes, pool) != MGPU_SUCCESS || mgpu_memset(p, FILL, bytes) != MGPU_SUCCESS ||
        mgpu_ipc_export_memory(p, &h) != MGPU_SUCCESS) {
        memset(&h, 0, sizeof h);         /* an empty handle says "no GPU memory to share" */
        p = NULL;
    }
    if (write(to_parent, &h, sizeof h) != (ssize_t)sizeof h) return 1;
    while (read(from_parent, &c, 1) > 0) {}
    if (p) mgpu_free(p);
    mgpu_shutdown();
    return 0;
}

static int cmp_float(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

static size_t parse_bytes(const char *s)
{
    char *end;
    double v = strtod(s, &end);
    if (*end == 'K') v *= 1024.0; else if (*end == 'M') v *= 1048576.0; else if (*end == 'G') v *= 1073741824.0;
    else if (*end) return 0;
    return v >= 1 ? (size_t)v : 0;
}

int main(int argc, char **argv)
{
    size_t bytes = (size_t)1 << 30, i;
    int reps = 11, r, down[2], up[2], status = 0, bad = 0, pool = 0;
    float imported_ms[101], local_ms[101], ms;
    mgpu_ipc_handle h, none;
    mgpu_device_info info;
    mgpu_stream s;
    mgpu_event e0, e1;
    unsigned char probe[4096];
    void *remote = NULL, *local, *dst;
    double gb_imported, gb_local;
    pid_t pid;
    for (r = 1; r < argc; r++) {
        if (!strcmp(argv[r], "--bytes") && r + 1 < argc) bytes = parse_bytes(argv[++r]);
        else if (!strcmp(argv[r], "--reps") && r + 1 < argc) reps = atoi(argv[++r]);
        else if (!strcmp(argv[r], "--pool")) pool = 1;
        else { fprintf(stderr, "usage: bench_ipc [--bytes 1G] [--reps 11] [--pool]\n"); return 2; }
    }
    if (bytes < sizeof probe || reps < 1 || reps > 101) { fprintf(stderr, "bench_ipc: bad --bytes or --reps\n"); return 2; }
    if (pipe(down) != 0 || pipe(up) != 0) return 1;
    if ((pid = fork()) == 0) { close(down[1]); close(up[0]); _exit(exporter(bytes, pool, up[1], down[0])); }
    close(down[0]);
    close(up[1]);
    if (read(up[0], &h, sizeof h) != (ssize_t)sizeof h) memset(&h, 0, sizeof h);
    memset(&none, 0, sizeof none);
    if (mgpu_init(NULL) != MGPU_SUCCESS || mgpu_default_backend() != MGPU_BACKEND_CUDA || !memcmp(&h, &none, sizeof h)) {
        printf("bench_ipc: skipped: no GPU (%s)\n", mgpu_last_error());
        close(down[1]);
        waitpid(pid, &status, 0);
        return 77;
    }
    if (mgpu_device_info_get(0, &info) != MGPU_SUCCESS) FAIL("mgpu_device_info_get");
    if (mgpu_ipc_open_memory(&h, &remote) != MGPU_SUCCESS) FAIL("mgpu_ipc_open_memory");
    if (allocate(&local, bytes, pool) != MGPU_SUCCESS || mgpu_malloc(&dst, bytes) != MGPU_SUCCESS ||
        mgpu_memset(local, FILL, bytes) != MGPU_SUCCESS || mgpu_stream_create(&s) != MGPU_SUCCESS ||
        mgpu_event_create(&e0) != MGPU_SUCCESS || mgpu_event_create(&e1) != MGPU_SUCCESS) FAIL("set-up");
    for (r = -1; r < reps; r++) {        /* r = -1: warm-up */
        int k;
        for (k = 0; k < 2; k++) {
            const void *src = k ? local : remote;
            if (mgpu_memset(dst, 0, bytes) != MGPU_SUCCESS || mgpu_event_record(e0, s) != MGPU_SUCCESS ||
                mgpu_memcpy_async(dst, src, bytes, s) != MGPU_SUCCESS || mgpu_event_record(e1, s) != MGPU_SUCCESS ||
                mgpu_stream_synchronize(s) != MGPU_SUCCESS || mgpu_event_elapsed_ms(e0, e1, &ms) != MGPU_SUCCESS)
                FAIL("copy");
            if (r >= 0) (k ? local_ms : imported_ms)[r] = ms;
            if (mgpu_memcpy(probe, (const unsigned char *)dst + bytes - sizeof probe, sizeof probe) != MGPU_SUCCESS)
                FAIL("mgpu_memcpy");
            for (i = 0; i < sizeof probe; i++) bad |= probe[i] != FILL;
        }
    }
    qsort(imported_ms, (size_t)reps, sizeof(float), cmp_float);
    qsort(local_ms, (size_t)reps, sizeof(float), cmp_float);
    gb_imported = (double)bytes / (imported_ms[reps / 2] * 1e-3) / 1e9;
    gb_local = (double)bytes / (local_ms[reps / 2] * 1e-3) / 1e9;
    printf("bench_ipc: %s, %.0f MiB device-to-device copy, median of %d, %s memory\n", info.name,
           (double)bytes / 1048576.0, reps, pool ? "pool (fd export)" : "mgpu_malloc (cuIpc)");
    printf("  from another process's memory (IPC)  %8.3f ms  %7.1f GB/s\n", imported_ms[reps / 2], gb_imported);
    printf("  from this process's memory           %8.3f ms  %7.1f GB/s\n", local_ms[reps / 2], gb_local);
    printf("  ratio %.3f (target >= 0.95)%s\n", gb_imported / gb_local, bad ? "; COPIED DATA WRONG" : "");
    mgpu_ipc_close_memory(remote);
    mgpu_free(local);
    mgpu_free(dst);
    mgpu_shutdown();
    close(down[1]);                      /* the exporter may free its memory now */
    waitpid(pid, &status, 0);
    if (bad) return 1;
    return gb_imported >= 0.95 * gb_local ? 0 : 3;
}
