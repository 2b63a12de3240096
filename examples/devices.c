/* devices.c - what mgpu sees on this machine.

   Prints the backend in use (and, when CUDA is not in use, mgpu_cuda_status's reason),
   every device of the default backend with its mgpu_device_info, the CPU devices, the
   peer-access matrix, the copy path mgpu_peer_path_get reports for each pair, and what
   mgpu_device_select returns for two criteria. Runs on GPUs or, without one, on CPU
   devices (try MGPU_CPU_DEVICES=4 or MGPU_DEVICE=cpu).

   Build and run: make examples && ./build/devices */
#include <stdio.h>
#include <stdlib.h>
#include "mgpu.h"

#define CHECK(call) do { mgpu_result r_ = (call); if (r_ != MGPU_SUCCESS) { \
    fprintf(stderr, "devices: %s failed: %s\n  %s\n", #call, mgpu_result_string(r_), mgpu_last_error()); \
    exit(1); } } while (0)

static const char *backend_name(mgpu_backend b)
{
    return b == MGPU_BACKEND_CUDA ? "cuda" : b == MGPU_BACKEND_CPU ? "cpu" : "auto";
}

static const char *path_name(mgpu_peer_path p)
{
    switch (p) {
    case MGPU_PEER_SAME_DEVICE: return "same";
    case MGPU_PEER_DIRECT: return "direct";
    case MGPU_PEER_STAGED: return "staged";
    case MGPU_PEER_HOST: return "host";
    }
    return "?";
}

static double gib(size_t bytes) { return (double)bytes / (1024.0 * 1024.0 * 1024.0); }

static void print_device(mgpu_device d)
{
    mgpu_device_info in;
    CHECK(mgpu_device_info_get(d, &in));
    printf("device %d: %s (%s, ordinal %d)\n", d, in.name, backend_name(in.backend), in.ordinal);
    printf("  memory       %.1f GiB total, %.1f GiB free\n", gib(in.total_memory), gib(in.free_memory));
    if (in.backend == MGPU_BACKEND_CUDA) {
        printf("  compute      %d SMs, compute capability %d.%d\n", in.multiprocessors, in.cc_major, in.cc_minor);
        printf("  clocks       %d MHz core, %d MHz memory, %d-bit memory bus\n", in.clock_khz / 1000,
               in.memory_clock_khz / 1000, in.memory_bus_width_bits);
    } else {
        printf("  compute      %d hardware threads, compute capability %d.%d (CPU)\n", in.multiprocessors,
               in.cc_major, in.cc_minor);
    }
    printf("  weights      bandwidth %.0f GB/s, throughput %.0f\n", in.memory_bandwidth_gbs, in.throughput_weight);
    printf("  PCI bus id   %s\n", in.pci_bus_id[0] ? in.pci_bus_id : "-");
    printf("  UUID         %s\n", in.uuid_string);
    printf("  features     managed memory %s, unified addressing %s, memory pools %s, "
           "%d async engine(s), P2P %s\n", in.managed_memory ? "yes" : "no", in.unified_addressing ? "yes" : "no",
           in.memory_pools ? "yes" : "no", in.async_engines, in.p2p_supported ? "yes" : "no");
}

static void print_selection(const char *what, const mgpu_device_criteria *c)
{
    mgpu_device out[MGPU_MAX_DEVICES];
    int count = 0, i;
    CHECK(mgpu_device_select(c, out, MGPU_MAX_DEVICES, &count));
    printf("  %-44s ->", what);
    if (count == 0) printf(" no device");
    for (i = 0; i < count && i < MGPU_MAX_DEVICES; i++) printf(" %d", out[i]);
    printf("\n");
}

int main(void)
{
    const char *why = "";
    mgpu_result cuda;
    mgpu_device_criteria crit = {0};
    int n, ncpu, a, b, *matrix;

    CHECK(mgpu_init(NULL));
    n = mgpu_device_count();
    ncpu = mgpu_cpu_device_count();
    cuda = mgpu_cuda_status(&why);
    printf("mgpu %s: default backend %s, %d device(s), %d CPU device(s)\n", mgpu_version(),
           backend_name(mgpu_default_backend()), n, ncpu);
    if (cuda == MGPU_SUCCESS)
        printf("CUDA in use: %s (driver version %d)\n", why, mgpu_driver_version());
    else
        printf("CUDA not in use (%s): %s\n", mgpu_result_string(cuda), why);

    printf("\n== devices of the default backend (0..%d)\n", n - 1);
    for (a = 0; a < n; a++) print_device(a);

    printf("\n== CPU devices\n");
    if (mgpu_default_backend() == MGPU_BACKEND_CPU) {
        printf("the default backend is the CPU: mgpu_cpu_device(i) = i, listed above\n");
    } else {
        for (a = 0; a < ncpu; a++) {
            printf("mgpu_cpu_device(%d) = %d\n", a, mgpu_cpu_device(a));
            print_device(mgpu_cpu_device(a));
        }
    }

    printf("\n== peer access (row reads/writes column's memory directly)\n");
    matrix = (int *)malloc((size_t)n * (size_t)n * sizeof *matrix);
    if (!matrix) { fprintf(stderr, "devices: out of memory\n"); return 1; }
    CHECK(mgpu_peer_matrix(matrix, n));
    printf("     ");
    for (b = 0; b < n; b++) printf(" %3d", b);
    printf("\n");
    for (a = 0; a < n; a++) {
        printf("  %3d", a);
        for (b = 0; b < n; b++) printf("   %c", a == b ? '-' : matrix[a * n + b] ? 'y' : 'n');
        printf("\n");
    }
    free(matrix);

    printf("\n== copy path (mgpu_peer_path_get, row = source, column = destination)\n");
    printf("     ");
    for (b = 0; b < n; b++) printf(" %7d", b);
    printf("\n");
    for (a = 0; a < n; a++) {
        printf("  %3d", a);
        for (b = 0; b < n; b++) {
            mgpu_peer_path p;
            CHECK(mgpu_peer_path_get(a, b, &p));
            printf(" %7s", path_name(p));
        }
        printf("\n");
    }
    if (mgpu_default_backend() == MGPU_BACKEND_CUDA && ncpu > 0) {
        mgpu_peer_path p;
        CHECK(mgpu_peer_path_get(0, mgpu_cpu_device(0), &p));
        printf("  device 0 -> CPU device %d: %s\n", mgpu_cpu_device(0), path_name(p));
    }

    printf("\n== mgpu_device_select (fastest first)\n");
    crit.min_memory = (size_t)1 << 30;
    print_selection("default backend, at least 1 GiB", &crit);
    crit.min_memory = 0;
    crit.needs_p2p = 1;
    print_selection("default backend, direct access between all", &crit);
    crit.needs_p2p = 0;
    crit.backend = MGPU_BACKEND_CPU;
    print_selection("CPU backend", &crit);
    if (mgpu_default_backend() == MGPU_BACKEND_CUDA) {
        crit.backend = MGPU_BACKEND_CUDA;
        crit.min_cc_major = 9;
        print_selection("CUDA, compute capability 9.0 or newer", &crit);
    }

    CHECK(mgpu_shutdown());
    return 0;
}
