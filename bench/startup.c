/* bench_startup - what a program pays before its first result: mgpu against the raw driver.

   Every sample is a fresh process (fork before any CUDA call), the variants round-robin in
   a rotating order, --rounds rounds; the median and the minimum of each step are printed.
     raw      dlopen libcuda + dlsym, cuInit, then per GPU cuDevicePrimaryCtxRetain +
              cuCtxSetCurrent, cuModuleLoadData of the embedded fatbin (decoded before the
              clock starts), and the first y += a*x (cuModuleGetFunction, cuMemAlloc, copies,
              cuLaunchKernel of mgpu_axpy_f32, cuCtxSynchronize); with CUDA_MODULE_LOADING
              unset, LAZY and EAGER (the driver reads it at cuInit).
     mgpu     mgpu_init, then per GPU mgpu_malloc + mgpu_memcpy (the context is made here),
              the first mgpu_axpy_f32 + mgpu_stream_synchronize (it decodes and loads the
              built-in module) and a second one; with CUDA_MODULE_LOADING unset and EAGER.
     decode   mgpu's decoding of kernels_fatbin.h's text alone, in a fresh process.
     --image FILE (up to 4): the raw driver's steps once more with FILE's fatbin as the image.
   n = 2^20 floats of fresh random values; each first result is checked against the host. */
#define MGPU_STATIC              /* the implementation here too, beside mgpu.o: its decoder */
#define MGPU_IMPLEMENTATION
#include "bench_util.h"
#include <math.h>
#include <sys/wait.h>

#define N (1u << 20)
#define MAX_ROUNDS 101
#define MAX_COLS 24

enum { V_RAW, V_RAW_LAZY, V_RAW_EAGER, V_MGPU, V_MGPU_EAGER, V_DECODE, V_IMAGE, V_MAX = V_IMAGE + 4 };
static struct { const char *name, *loading, *file; } variants[V_MAX] = {
    { "raw driver", NULL, NULL }, { "raw driver", "LAZY", NULL }, { "raw driver", "EAGER", NULL },
    { "mgpu", NULL, NULL }, { "mgpu", "EAGER", NULL }, { "mgpu decode only", NULL, NULL },
};
static int nvariants = V_IMAGE;

/* A whole file, or NULL. */
static void *read_all(const char *path)
{
    FILE *f = fopen(path, "rb");
    long n;
    void *p = NULL;
    if (!f) return NULL;
    if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) > 0 && fseek(f, 0, SEEK_SET) == 0 && (p = malloc((size_t)n)) != NULL &&
        fread(p, 1, (size_t)n, f) != (size_t)n) { free(p); p = NULL; }
    fclose(f);
    return p;
}

static double ms_since(double *t)
{
    double now = bench_now_ns(), d = (now - *t) / 1e6;
    *t = now;
    return d;
}

static void fill(float *x, float *y, float *a)
{
    unsigned i;
    bench_seed();
    for (i = 0; i < N; i++) {
        uint64_t r = bench_splitmix(&bench_seed_state);
        x[i] = 0.5f + (float)(r & 0xFFFFFF) / 16777216.0f;
        y[i] = 0.5f + (float)((r >> 24) & 0xFFFFFF) / 16777216.0f;
    }
    *a = 0.25f + (float)(bench_splitmix(&bench_seed_state) & 0xFFFF) / 65536.0f;
}

static int check(const float *x, const float *y, const float *out, float a)
{
    unsigned i;
    for (i = 0; i < N; i++)
        if (out[i] != fmaf(a, x[i], y[i]) && out[i] != a * x[i] + y[i]) return 1;
    return 0;
}

/* One sample of variant v in this (fresh) process: writes "label=ms ..." into line. */
static int sample(int v, char *line, size_t cap)
{
    static float x[N], y[N], out[N];
    size_t len = 0;
    double t;
    float a;
    int d, ndev = 0, damaged = 0;
    void *img;
    fill(x, y, &a);
    if (variants[v].loading) setenv("CUDA_MODULE_LOADING", variants[v].loading, 1);
    else unsetenv("CUDA_MODULE_LOADING");
    if (v == V_DECODE) {
        t = bench_now_ns();
        img = mgpu__kernels_decode(&damaged);
        bench_append(line, cap, &len, "decode=%.3f", ms_since(&t));
        if (!img) return 1;
        free(img);
        return 0;
    }
    if (v == V_MGPU || v == V_MGPU_EAGER) {
        t = bench_now_ns();
        if (mgpu_init(NULL) != MGPU_SUCCESS) { fprintf(stderr, "mgpu_init: %s\n", mgpu_last_error()); return 1; }
        bench_append(line, cap, &len, "mgpu_init=%.3f", ms_since(&t));
        ndev = mgpu_device_count();
        for (d = 0; d < ndev; d++) {
            float *dx, *dy;
            int k;
            MK(mgpu_set_device(d));
            ms_since(&t);
            MK(mgpu_malloc((void **)&dx, sizeof x));
            MK(mgpu_malloc((void **)&dy, sizeof y));
            MK(mgpu_memcpy(dx, x, sizeof x));
            MK(mgpu_memcpy(dy, y, sizeof y));
            bench_append(line, cap, &len, " gpu%d:alloc+copy=%.3f", d, ms_since(&t));
            for (k = 0; k < 2; k++) {
                MK(mgpu_axpy_f32(N, a, dx, dy, NULL));
                MK(mgpu_stream_synchronize(NULL));
                bench_append(line, cap, &len, k ? " gpu%d:second_axpy=%.3f" : " gpu%d:first_axpy=%.3f", d, ms_since(&t));
                if (!k) {
                    MK(mgpu_memcpy(out, dy, sizeof out));
                    if (check(x, y, out, a)) { fprintf(stderr, "mgpu_axpy_f32 check failed on GPU %d\n", d); return 1; }
                    MK(mgpu_memcpy(dy, y, sizeof y));
                    ms_since(&t);
                }
            }
            MK(mgpu_free(dx));
            MK(mgpu_free(dy));
        }
        MK(mgpu_shutdown());
        return 0;
    }
    {
        char err[600];
        CUcontext ctx[MGPU_MAX_DEVICES];
        CUdevice dev;
        CUmodule mod[MGPU_MAX_DEVICES];
        img = variants[v].file ? read_all(variants[v].file) : mgpu__kernels_decode(&damaged);
        if (!img) { fprintf(stderr, "cannot read or decode the image\n"); return 1; }
        t = bench_now_ns();
        if (bench_cuda_load(err, sizeof err)) { fprintf(stderr, "%s\n", err); return 1; }
        bench_append(line, cap, &len, "dlopen=%.3f", ms_since(&t));
        CK(CU(cuInit)(0));
        bench_append(line, cap, &len, " cuInit=%.3f", ms_since(&t));
        {
            int count = 0;
            CK(CU(cuDeviceGetCount)(&count));
            ndev = count < MGPU_MAX_DEVICES ? count : MGPU_MAX_DEVICES;
        }
        for (d = 0; d < ndev; d++) {
            CUfunction f;
            CUdeviceptr dx, dy;
            unsigned long long nn = N;
            void *args[4];
            int k;
            ms_since(&t);
            CK(CU(cuDeviceGet)(&dev, d));
            CK(CU(cuDevicePrimaryCtxRetain)(&ctx[d], dev));
            CK(CU(cuCtxSetCurrent)(ctx[d]));
            bench_append(line, cap, &len, " gpu%d:ctx=%.3f", d, ms_since(&t));
            CK(CU(cuMemAlloc)(&dx, sizeof x));
            CK(CU(cuMemAlloc)(&dy, sizeof y));
            CK(CU(cuMemcpyHtoD)(dx, x, sizeof x));
            CK(CU(cuMemcpyHtoD)(dy, y, sizeof y));
            bench_append(line, cap, &len, " gpu%d:alloc+copy=%.3f", d, ms_since(&t));
            CK(CU(cuModuleLoadData)(&mod[d], img));
            bench_append(line, cap, &len, " gpu%d:cuModuleLoadData=%.3f", d, ms_since(&t));
            CK(CU(cuModuleGetFunction)(&f, mod[d], "mgpu_axpy_f32"));
            args[0] = &nn; args[1] = &a; args[2] = &dx; args[3] = &dy;
            for (k = 0; k < 2; k++) {
                /* mgpu's launch shape: 256 threads, at most 8 blocks a multiprocessor */
                CK(CU(cuLaunchKernel)(f, 1024, 1, 1, 256, 1, 1, 0, NULL, args, NULL));
                CK(CU(cuCtxSynchronize)());
                bench_append(line, cap, &len, k ? " gpu%d:second_axpy=%.3f" : " gpu%d:first_axpy=%.3f", d, ms_since(&t));
                if (!k) {
                    CK(CU(cuMemcpyDtoH)(out, dy, sizeof out));
                    if (check(x, y, out, a)) { fprintf(stderr, "raw mgpu_axpy_f32 check failed on GPU %d\n", d); return 1; }
                    CK(CU(cuMemcpyHtoD)(dy, y, sizeof y));
                    ms_since(&t);
                }
            }
            CK(CU(cuMemFree)(dx));
            CK(CU(cuMemFree)(dy));
            CK(CU(cuModuleUnload)(mod[d]));
            CK(CU(cuDevicePrimaryCtxRelease)(dev));
        }
        free(img);
    }
    return 0;
}

/* Runs variant v in a child process; its line comes back through a pipe. */
static int run_child(int v, char *line, size_t cap)
{
    int fd[2], status = 0;
    ssize_t got;
    size_t len = 0;
    pid_t pid;
    fflush(stdout);
    if (pipe(fd)) { perror("pipe"); return 1; }
    pid = fork();
    if (pid < 0) { perror("fork"); return 1; }
    if (pid == 0) {
        char buf[4096] = "";
        int rc;
        close(fd[0]);
        rc = sample(v, buf, sizeof buf);
        if (write(fd[1], buf, strlen(buf)) < 0) rc = 1;
        fflush(stdout);
        fflush(stderr);
        _exit(rc);
    }
    close(fd[1]);
    while (len + 1 < cap && (got = read(fd[0], line + len, cap - len - 1)) > 0) len += (size_t)got;
    line[len] = 0;
    close(fd[0]);
    if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status)) return 1;
    return 0;
}

int main(int argc, char **argv)
{
    static char names[V_MAX][MAX_COLS][48];
    static double vals[V_MAX][MAX_COLS][MAX_ROUNDS];
    int ncols[V_MAX] = { 0 }, rounds = 7, r, i, v, c;
    char line[4096];
    for (i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--rounds") && i + 1 < argc) rounds = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--image") && i + 1 < argc && nvariants < V_MAX) {
            variants[nvariants].name = "raw driver";
            variants[nvariants++].file = argv[++i];
        } else {
            printf("usage: bench_startup [--rounds N (3..%d, default 7)] [--image FATBIN (up to 4)]\n", MAX_ROUNDS);
            return strcmp(argv[i], "--help") ? 2 : 0;
        }
    }
    if (rounds < 3 || rounds > MAX_ROUNDS) { fprintf(stderr, "bench_startup: --rounds 3..%d\n", MAX_ROUNDS); return 2; }
    /* a probe in a child, so that this process never touches CUDA */
    if (run_child(V_DECODE, line, sizeof line)) { fprintf(stderr, "bench_startup: decoding failed\n"); return 1; }
    {
        int rc = 0;
        pid_t pid = fork();
        if (pid == 0) {
            rc = bench_start("bench_startup", 1);
            if (!rc) { bench_print_devices(); mgpu_shutdown(); }
            fflush(stdout);
            _exit(rc);
        }
        if (pid < 0 || waitpid(pid, &rc, 0) < 0 || !WIFEXITED(rc)) return 1;
        if (WEXITSTATUS(rc)) return WEXITSTATUS(rc);
    }
    printf("bench_startup: fresh processes, %d rounds, variants in rotating order; image %d bytes (%s)\n", rounds,
           MGPU_KERNELS_FATBIN_SIZE, MGPU_KERNELS_ARCHS);
    for (r = 0; r < rounds; r++)
        for (i = 0; i < nvariants; i++) {
            char *p, *save = NULL;
            v = (r + i) % nvariants;
            if (run_child(v, line, sizeof line)) {
                fprintf(stderr, "bench_startup: %s%s%s failed: %s\n", variants[v].name, variants[v].loading ? " " : "",
                        variants[v].loading ? variants[v].loading : "", line);
                return 1;
            }
            for (c = 0, p = strtok_r(line, " ", &save); p && c < MAX_COLS; p = strtok_r(NULL, " ", &save), c++) {
                char *eq = strchr(p, '=');
                if (!eq) break;
                *eq = 0;
                snprintf(names[v][c], sizeof names[v][c], "%s", p);
                vals[v][c][r] = atof(eq + 1);
            }
            ncols[v] = c;
        }
    double first_result[V_MAX] = { 0 };
    for (v = 0; v < nvariants; v++) {
        double total_med = 0, total_min = 0, tot[MAX_ROUNDS];
        printf("\n%s, CUDA_MODULE_LOADING=%s%s%s          median ms     min ms\n", variants[v].name,
               variants[v].loading ? variants[v].loading : "(unset)", variants[v].file ? ", image " : "",
               variants[v].file ? variants[v].file : "");
        for (r = 0; r < rounds; r++) tot[r] = 0;
        for (c = 0; c < ncols[v]; c++) {
            double med, lo;
            int second = strstr(names[v][c], "second") != NULL;
            for (r = 0; r < rounds; r++) if (!second) tot[r] += vals[v][c][r];
            med = bench_median(vals[v][c], rounds);
            lo = vals[v][c][0];
            printf("  %-40s %9.3f %9.3f\n", names[v][c], med, lo);
        }
        if (v != V_DECODE) {
            total_med = bench_median(tot, rounds);
            total_min = tot[0];
            printf("  %-40s %9.3f %9.3f\n", "total to the first result", total_med, total_min);
            first_result[v] = total_med;
        } else {
            first_result[v] = bench_median(vals[v][0], rounds);
        }
    }
    printf("\nbench_startup summary: to the first result (median) mgpu %.1f ms, raw driver %.1f ms "
           "(CUDA_MODULE_LOADING unset); mgpu's decoding of kernels_fatbin.h %.1f ms\n",
           first_result[V_MGPU], first_result[V_RAW], first_result[V_DECODE]);
    return 0;
}
