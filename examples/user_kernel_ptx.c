/* user_kernel_ptx.c - your own CUDA kernel, shipped as PTX text inside the program.

   The kernel below was written in CUDA C++ and compiled once with
       nvcc -ptx -arch=compute_75 scale.cu        (nvcc 13.0)
   from
       extern "C" __global__ void scale_add_u32(unsigned long long n, unsigned mul,
                                                unsigned add, const unsigned *in, unsigned *out)
       {
           for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;
                i < n; i += (unsigned long long)gridDim.x * blockDim.x)
               out[i] = in[i] * mul + add;
       }
   and the PTX pasted here as a C string. nvcc 13 writes ".version 9.0", which only CUDA 13
   drivers can compile; the line is lowered to ".version 7.0" so every driver mgpu accepts
   (CUDA 12.0 and newer) JIT-compiles it. The body uses nothing newer than PTX 6.3 (sm_75).
   extern "C" keeps the name unmangled for mgpu_module_kernel.

   The program creates a module from the text (mgpu_module_create), looks the kernel up
   (mgpu_module_kernel), gives it a C implementation for CPU devices (mgpu_kernel_set_cpu),
   and launches it with mgpu_launch on every device: the GPUs (JIT-compiled for each on
   first use) and the CPU devices, checking each result. Runs with or without a GPU.

   Build and run: make examples && ./build/user_kernel_ptx */
#include <stdio.h>
#include <stdlib.h>
#include "mgpu.h"

#define N ((size_t)1 << 20)
#define MUL 3u
#define ADD 7u

#define CHECK(call) do { mgpu_result r_ = (call); if (r_ != MGPU_SUCCESS) { \
    fprintf(stderr, "user_kernel_ptx: %s failed: %s\n  %s\n", #call, mgpu_result_string(r_), mgpu_last_error()); \
    exit(1); } } while (0)

static const char scale_add_ptx[] =
    ".version 7.0\n"
    ".target sm_75\n"
    ".address_size 64\n"
    "\n"
    "\t// .globl\tscale_add_u32\n"
    "\n"
    ".visible .entry scale_add_u32(\n"
    "\t.param .u64 scale_add_u32_param_0,\n"
    "\t.param .u32 scale_add_u32_param_1,\n"
    "\t.param .u32 scale_add_u32_param_2,\n"
    "\t.param .u64 scale_add_u32_param_3,\n"
    "\t.param .u64 scale_add_u32_param_4\n"
    ")\n"
    "{\n"
    "\t.reg .pred \t%p<3>;\n"
    "\t.reg .b32 \t%r<9>;\n"
    "\t.reg .b64 \t%rd<18>;\n"
    "\n"
    "\n"
    "\tld.param.u64 \t%rd8, [scale_add_u32_param_0];\n"
    "\tld.param.u32 \t%r1, [scale_add_u32_param_1];\n"
    "\tld.param.u32 \t%r2, [scale_add_u32_param_2];\n"
    "\tld.param.u64 \t%rd9, [scale_add_u32_param_3];\n"
    "\tld.param.u64 \t%rd10, [scale_add_u32_param_4];\n"
    "\tmov.u32 \t%r3, %ctaid.x;\n"
    "\tmov.u32 \t%r4, %ntid.x;\n"
    "\tcvt.u64.u32 \t%rd1, %r4;\n"
    "\tmul.wide.u32 \t%rd11, %r3, %r4;\n"
    "\tmov.u32 \t%r5, %tid.x;\n"
    "\tcvt.u64.u32 \t%rd12, %r5;\n"
    "\tadd.s64 \t%rd17, %rd11, %rd12;\n"
    "\tsetp.ge.u64 \t%p1, %rd17, %rd8;\n"
    "\t@%p1 bra \t$L__BB0_3;\n"
    "\n"
    "\tmov.u32 \t%r6, %nctaid.x;\n"
    "\tcvt.u64.u32 \t%rd13, %r6;\n"
    "\tmul.lo.s64 \t%rd3, %rd13, %rd1;\n"
    "\tcvta.to.global.u64 \t%rd4, %rd9;\n"
    "\tcvta.to.global.u64 \t%rd5, %rd10;\n"
    "\n"
    "$L__BB0_2:\n"
    "\tshl.b64 \t%rd14, %rd17, 2;\n"
    "\tadd.s64 \t%rd15, %rd4, %rd14;\n"
    "\tld.global.u32 \t%r7, [%rd15];\n"
    "\tmad.lo.s32 \t%r8, %r7, %r1, %r2;\n"
    "\tadd.s64 \t%rd16, %rd5, %rd14;\n"
    "\tst.global.u32 \t[%rd16], %r8;\n"
    "\tadd.s64 \t%rd17, %rd17, %rd3;\n"
    "\tsetp.lt.u64 \t%p2, %rd17, %rd8;\n"
    "\t@%p2 bra \t$L__BB0_2;\n"
    "\n"
    "$L__BB0_3:\n"
    "\tret;\n"
    "\n"
    "}\n"
    "\n";

/* The same kernel for CPU devices. mgpu calls it once per launch with the launch shape
   and the argument array given to mgpu_launch (pointers to each argument). */
static void scale_add_u32_cpu(const mgpu_launch_dims *dims, void **args)
{
    unsigned long long n = *(const unsigned long long *)args[0], i;
    unsigned mul = *(const unsigned *)args[1], add = *(const unsigned *)args[2];
    const unsigned *in = *(const unsigned *const *)args[3];
    unsigned *out = *(unsigned **)args[4];
    (void)dims;                        /* one call covers the whole grid */
    for (i = 0; i < n; i++) out[i] = in[i] * mul + add;
}

/* Runs the kernel on one device and checks every element. Returns the number wrong. */
static size_t run_on(mgpu_device dev, mgpu_kernel kernel, const unsigned *host_in, unsigned *host_out)
{
    mgpu_device_info info;
    mgpu_launch_dims dims = {{0, 1, 1}, {256, 1, 1}, 0};
    unsigned long long n = N;
    unsigned mul = MUL, add = ADD, *in, *out;
    void *args[5];
    size_t i, bad = 0;

    CHECK(mgpu_set_device(dev));       /* mgpu_malloc and the NULL stream use this device */
    CHECK(mgpu_device_info_get(dev, &info));
    CHECK(mgpu_malloc((void **)&in, N * sizeof *in));
    CHECK(mgpu_malloc((void **)&out, N * sizeof *out));
    CHECK(mgpu_memcpy(in, host_in, N * sizeof *in));
    CHECK(mgpu_memset(out, 0, N * sizeof *out));

    /* Grid-stride loop: a few blocks per multiprocessor cover any n. */
    dims.grid[0] = (unsigned)(info.multiprocessors > 0 ? 4 * info.multiprocessors : 4);
    args[0] = &n; args[1] = &mul; args[2] = &add; args[3] = &in; args[4] = &out;
    CHECK(mgpu_launch(kernel, &dims, args, NULL));    /* the device's default stream */
    CHECK(mgpu_stream_synchronize(NULL));
    CHECK(mgpu_memcpy(host_out, out, N * sizeof *out));

    for (i = 0; i < N; i++)
        if (host_out[i] != host_in[i] * MUL + ADD && bad++ < 3)
            fprintf(stderr, "  device %d, element %zu: %u, expected %u\n", dev, i, host_out[i], host_in[i] * MUL + ADD);
    printf("  device %d (%s): %s\n", dev, info.name, bad ? "WRONG" : "correct");
    CHECK(mgpu_free(in));
    CHECK(mgpu_free(out));
    return bad;
}

int main(void)
{
    const char *why = "";
    mgpu_result cuda;
    mgpu_module module;
    mgpu_kernel kernel, missing;
    mgpu_result r;
    unsigned *host_in, *host_out;
    size_t i, bad = 0;
    int d, n;

    CHECK(mgpu_init(NULL));
    n = mgpu_device_count();
    cuda = mgpu_cuda_status(&why);
    if (cuda == MGPU_SUCCESS) printf("backend: cuda, %d GPU(s)\n", n);
    else printf("backend: cpu, %d CPU device(s); CUDA unavailable (%s): %s\n", n, mgpu_result_string(cuda), why);

    CHECK(mgpu_module_create(scale_add_ptx, sizeof scale_add_ptx - 1, &module));
    CHECK(mgpu_module_kernel(module, "scale_add_u32", &kernel));
    CHECK(mgpu_kernel_set_cpu(kernel, scale_add_u32_cpu));
    for (d = 0; d < n; d++) CHECK(mgpu_module_load(module, d));   /* optional: JIT now, not at launch */

    host_in = (unsigned *)malloc(N * sizeof *host_in);
    host_out = (unsigned *)malloc(N * sizeof *host_out);
    if (!host_in || !host_out) { fprintf(stderr, "user_kernel_ptx: out of memory\n"); return 1; }
    for (i = 0; i < N; i++) host_in[i] = (unsigned)(i * 2654435761u);  /* wraps: checks 32-bit math */

    printf("out[i] = in[i] * %u + %u on every device:\n", MUL, ADD);
    for (d = 0; d < n; d++) bad += run_on(d, kernel, host_in, host_out);
    if (mgpu_default_backend() == MGPU_BACKEND_CUDA)        /* and the CPU reference */
        for (d = 0; d < mgpu_cpu_device_count(); d++) bad += run_on(mgpu_cpu_device(d), kernel, host_in, host_out);

    /* A name the module lacks is reported when it is first used on a device. */
    CHECK(mgpu_set_device(0));
    r = mgpu_module_kernel(module, "no_such_kernel", &missing);
    if (r == MGPU_SUCCESS) {
        mgpu_launch_dims dims = {{1, 1, 1}, {1, 1, 1}, 0};
        r = mgpu_launch(missing, &dims, NULL, NULL);
    }
    if (r == MGPU_SUCCESS) { fprintf(stderr, "user_kernel_ptx: launching a missing kernel succeeded\n"); return 1; }
    printf("a missing kernel fails as expected: %s\n  %s\n", mgpu_result_string(r), mgpu_last_error());

    free(host_in);
    free(host_out);
    CHECK(mgpu_module_destroy(module));
    CHECK(mgpu_shutdown());
    if (bad) { fprintf(stderr, "user_kernel_ptx: %zu wrong elements\n", bad); return 1; }
    printf("all devices correct\n");
    return 0;
}
