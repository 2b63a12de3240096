/* pipeline_stages.c - DotCompute's three-stage pipeline (x*2, sqrt, +1) with mgpu_pipeline,
   against the same stages run one after another on one device.

   Stage i runs on device i % (number of devices): three GPUs when there are three, else
   GPUs are reused (on one GPU the pipeline still overlaps the upload of batch k+1 and the
   download of batch k-1 with the kernels of batch k); CPU devices without a GPU. Each stage
   is one kernel, map_f32, shipped as PTX (made as in user_kernel_ptx.c: nvcc -ptx
   -arch=compute_75 from the CUDA C below, .version lowered to 7.0) with a C version for
   CPU devices:
       extern "C" __global__ void map_f32(unsigned long long n, int op, const float *in, float *out)
       {
           for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; i < n;
                i += (unsigned long long)gridDim.x * blockDim.x) {
               float x = in[i];
               out[i] = op == 0 ? __fadd_rn(x, x) : op == 1 ? __fsqrt_rn(x) : __fadd_rn(x, 1.0f);
           }
       }
   The sequential baseline is the best one device does alone: pinned buffers, one stream,
   per batch upload, three kernels, download, wait. Both results are checked bit for bit
   against the host (every step is one correctly rounded operation).

   Build and run: make examples && ./build/pipeline_stages [floats per batch [batches]]
   (default 4M floats x 24 batches with GPUs, 64K x 12 on CPU devices). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "mgpu.h"

#define CHECK(call) do { mgpu_result r_ = (call); if (r_ != MGPU_SUCCESS) { \
    fprintf(stderr, "pipeline_stages: %s failed: %s\n  %s\n", #call, mgpu_result_string(r_), mgpu_last_error()); \
    exit(1); } } while (0)

static const char map_ptx[] =
    ".version 7.0\n"
    ".target sm_75\n"
    ".address_size 64\n"
    "\n"
    "\t// .globl\tmap_f32\n"
    "\n"
    ".visible .entry map_f32(\n"
    "\t.param .u64 map_f32_param_0,\n"
    "\t.param .u32 map_f32_param_1,\n"
    "\t.param .u64 map_f32_param_2,\n"
    "\t.param .u64 map_f32_param_3\n"
    ")\n"
    "{\n"
    "\t.reg .pred \t%p<7>;\n"
    "\t.reg .f32 \t%f<8>;\n"
    "\t.reg .b32 \t%r<6>;\n"
    "\t.reg .b64 \t%rd<30>;\n"
    "\n"
    "\n"
    "\tld.param.u64 \t%rd12, [map_f32_param_0];\n"
    "\tld.param.u32 \t%r1, [map_f32_param_1];\n"
    "\tld.param.u64 \t%rd13, [map_f32_param_2];\n"
    "\tld.param.u64 \t%rd14, [map_f32_param_3];\n"
    "\tcvta.to.global.u64 \t%rd1, %rd14;\n"
    "\tcvta.to.global.u64 \t%rd2, %rd13;\n"
    "\tmov.u32 \t%r2, %ctaid.x;\n"
    "\tmov.u32 \t%r3, %ntid.x;\n"
    "\tcvt.u64.u32 \t%rd3, %r3;\n"
    "\tmul.wide.u32 \t%rd15, %r2, %r3;\n"
    "\tmov.u32 \t%r4, %tid.x;\n"
    "\tcvt.u64.u32 \t%rd16, %r4;\n"
    "\tadd.s64 \t%rd27, %rd15, %rd16;\n"
    "\tsetp.ge.u64 \t%p1, %rd27, %rd12;\n"
    "\t@%p1 bra \t$L__BB0_6;\n"
    "\n"
    "\tmov.u32 \t%r5, %nctaid.x;\n"
    "\tcvt.u64.u32 \t%rd17, %r5;\n"
    "\tmul.lo.s64 \t%rd5, %rd17, %rd3;\n"
    "\tsetp.eq.s32 \t%p2, %r1, 0;\n"
    "\t@%p2 bra \t$L__BB0_4;\n"
    "\n"
    "\tsetp.ne.s32 \t%p3, %r1, 1;\n"
    "\t@%p3 bra \t$L__BB0_5;\n"
    "\n"
    "$L__BB0_3:\n"
    "\tshl.b64 \t%rd18, %rd27, 2;\n"
    "\tadd.s64 \t%rd19, %rd2, %rd18;\n"
    "\tld.global.f32 \t%f1, [%rd19];\n"
    "\tsqrt.rn.f32 \t%f2, %f1;\n"
    "\tadd.s64 \t%rd20, %rd1, %rd18;\n"
    "\tst.global.f32 \t[%rd20], %f2;\n"
    "\tadd.s64 \t%rd27, %rd27, %rd5;\n"
    "\tsetp.lt.u64 \t%p4, %rd27, %rd12;\n"
    "\t@%p4 bra \t$L__BB0_3;\n"
    "\tbra.uni \t$L__BB0_6;\n"
    "\n"
    "$L__BB0_4:\n"
    "\tshl.b64 \t%rd21, %rd27, 2;\n"
    "\tadd.s64 \t%rd22, %rd2, %rd21;\n"
    "\tld.global.f32 \t%f3, [%rd22];\n"
    "\tadd.rn.f32 \t%f4, %f3, %f3;\n"
    "\tadd.s64 \t%rd23, %rd1, %rd21;\n"
    "\tst.global.f32 \t[%rd23], %f4;\n"
    "\tadd.s64 \t%rd27, %rd27, %rd5;\n"
    "\tsetp.lt.u64 \t%p5, %rd27, %rd12;\n"
    "\t@%p5 bra \t$L__BB0_4;\n"
    "\tbra.uni \t$L__BB0_6;\n"
    "\n"
    "$L__BB0_5:\n"
    "\tshl.b64 \t%rd24, %rd27, 2;\n"
    "\tadd.s64 \t%rd25, %rd2, %rd24;\n"
    "\tld.global.f32 \t%f5, [%rd25];\n"
    "\tmov.f32 \t%f6, 0f3F800000;\n"
    "\tadd.rn.f32 \t%f7, %f5, %f6;\n"
    "\tadd.s64 \t%rd26, %rd1, %rd24;\n"
    "\tst.global.f32 \t[%rd26], %f7;\n"
    "\tadd.s64 \t%rd27, %rd27, %rd5;\n"
    "\tsetp.lt.u64 \t%p6, %rd27, %rd12;\n"
    "\t@%p6 bra \t$L__BB0_5;\n"
    "\n"
    "$L__BB0_6:\n"
    "\tret;\n"
    "\n"
    "}\n";

static void map_f32_cpu(const mgpu_launch_dims *dims, void **args)
{
    unsigned long long n = *(const unsigned long long *)args[0], i;
    int op = *(const int *)args[1];
    const float *in = *(const float *const *)args[2];
    float *out = *(float **)args[3];
    (void)dims;
    for (i = 0; i < n; i++) out[i] = op == 0 ? in[i] + in[i] : op == 1 ? sqrtf(in[i]) : in[i] + 1.0f;
}

static mgpu_kernel map;

/* Launches map_f32 with operation op over n floats on the stream. */
static mgpu_result run_map(int op, const float *in, float *out, size_t n, mgpu_stream s)
{
    mgpu_launch_dims dims = {{1024, 1, 1}, {256, 1, 1}, 0};
    unsigned long long count = n;
    void *args[4];
    args[0] = &count; args[1] = &op; args[2] = &in; args[3] = &out;
    return mgpu_launch(map, &dims, args, s);
}

/* A pipeline stage: its operation (0, 1, 2) is the user data. */
static mgpu_result stage(mgpu_stage_batch *b, void *op)
{
    b->out_bytes = b->in_bytes;
    return run_map((int)(size_t)op, (const float *)b->in, (float *)b->out, b->in_bytes / sizeof(float), b->stream);
}

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Every output against x*2, sqrt, +1 on the host; returns the number of wrong values. */
static size_t check(const float *in, const float *out, size_t n)
{
    size_t i, bad = 0;
    for (i = 0; i < n; i++) bad += out[i] != sqrtf(in[i] + in[i]) + 1.0f;
    return bad;
}

int main(int argc, char **argv)
{
    mgpu_pipeline_stage stages[3];
    mgpu_pipeline_desc desc;
    mgpu_pipeline pipe;
    mgpu_module module;
    mgpu_stream s;
    float *in, *out, *pin_in, *pin_out, *d_a, *d_b;
    size_t batch, bytes, total, i, got;
    int nb, k, ndev, gpu;
    double t = 0, seq, piped;

    CHECK(mgpu_init(NULL));
    ndev = mgpu_device_count();
    gpu = mgpu_default_backend() == MGPU_BACKEND_CUDA;
    batch = argc > 1 ? (size_t)atol(argv[1]) : gpu ? (size_t)4 << 20 : (size_t)64 << 10;
    nb = argc > 2 ? atoi(argv[2]) : gpu ? 24 : 12;
    if (!batch || nb < 1) { fprintf(stderr, "usage: pipeline_stages [floats per batch [batches]]\n"); return 2; }
    bytes = batch * sizeof(float);
    total = batch * (size_t)nb;
    in = (float *)malloc(total * sizeof(float));
    out = (float *)malloc(total * sizeof(float));
    if (!in || !out) return 1;
    for (i = 0; i < total; i++) in[i] = (float)(i % 1000003) * 0.25f;
    CHECK(mgpu_module_create(map_ptx, sizeof map_ptx, &module));
    CHECK(mgpu_module_kernel(module, "map_f32", &map));
    CHECK(mgpu_kernel_set_cpu(map, map_f32_cpu));

    /* Sequential: everything on device 0, one batch after another. */
    CHECK(mgpu_set_device(0));
    CHECK(mgpu_stream_create(&s));
    CHECK(mgpu_malloc_host((void **)&pin_in, bytes));
    CHECK(mgpu_malloc_host((void **)&pin_out, bytes));
    CHECK(mgpu_malloc((void **)&d_a, bytes));
    CHECK(mgpu_malloc((void **)&d_b, bytes));
    for (k = -1; k < nb; k++) {         /* k = -1: warm-up (module load, first touches) */
        const size_t b = k < 0 ? 0 : (size_t)k;
        if (k == 0) t = now_s();
        memcpy(pin_in, in + b * batch, bytes);
        CHECK(mgpu_memcpy_async(d_a, pin_in, bytes, s));
        CHECK(run_map(0, d_a, d_b, batch, s));
        CHECK(run_map(1, d_b, d_a, batch, s));
        CHECK(run_map(2, d_a, d_b, batch, s));
        CHECK(mgpu_memcpy_async(pin_out, d_b, bytes, s));
        CHECK(mgpu_stream_synchronize(s));
        memcpy(out + b * batch, pin_out, bytes);
    }
    seq = now_s() - t;
    if (check(in, out, total)) { fprintf(stderr, "pipeline_stages: the sequential results are wrong\n"); return 1; }
    memset(out, 0, total * sizeof(float));

    /* Pipelined: stage i on device i % ndev, 3 batches in flight. */
    memset(stages, 0, sizeof stages);
    for (i = 0; i < 3; i++) {
        stages[i].device = (mgpu_device)(i % (size_t)ndev);
        stages[i].fn = stage;
        stages[i].user_data = (void *)i;
        stages[i].out_bytes = bytes;
    }
    stages[0].name = "x*2"; stages[1].name = "sqrt"; stages[2].name = "+1";
    memset(&desc, 0, sizeof desc);
    desc.stages = stages; desc.nstages = 3; desc.in_bytes = bytes; desc.depth = 3;
    CHECK(mgpu_pipeline_create(&desc, &pipe));
    CHECK(mgpu_pipeline_push(pipe, in, bytes, NULL));          /* warm-up batch */
    CHECK(mgpu_pipeline_pull(pipe, out, bytes, &got, NULL));
    t = now_s();
    for (k = 0; k < nb + desc.depth; k++) {                    /* push depth batches, then pull one, push one */
        if (k >= desc.depth) CHECK(mgpu_pipeline_pull(pipe, out + (size_t)(k - desc.depth) * batch, bytes, &got, NULL));
        if (k < nb) CHECK(mgpu_pipeline_push(pipe, in + (size_t)k * batch, bytes, NULL));
    }
    piped = now_s() - t;
    CHECK(mgpu_pipeline_destroy(pipe));
    if (check(in, out, total)) { fprintf(stderr, "pipeline_stages: the pipelined results are wrong\n"); return 1; }

    printf("%d batches of %zu floats; stages on devices %d, %d, %d (%s)\n", nb, batch, stages[0].device,
           stages[1].device, stages[2].device, gpu ? "GPUs" : "CPU devices");
    printf("sequential on device 0: %8.3f ms per batch\n", 1e3 * seq / nb);
    printf("pipelined:              %8.3f ms per batch  (%.2fx)\n", 1e3 * piped / nb, seq / piped);
    printf("every result checked against the host: ok\n");
    CHECK(mgpu_free(d_a));
    CHECK(mgpu_free(d_b));
    CHECK(mgpu_free_host(pin_in));
    CHECK(mgpu_free_host(pin_out));
    CHECK(mgpu_stream_destroy(s));
    CHECK(mgpu_module_destroy(module));
    free(in);
    free(out);
    return mgpu_shutdown() == MGPU_SUCCESS ? 0 : 1;
}
