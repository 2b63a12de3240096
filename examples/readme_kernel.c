/* readme_kernel.c - the program for your own kernels in docs/api.md (keep the two identical).
   A kernel written in PTX (as `nvcc -ptx` writes it from CUDA C++ declared extern "C") doubles
   n values; a C version of it runs the same launch on CPU devices. Launched on every device. */
#include <stdio.h>
#include <stdlib.h>
#include "mgpu.h"

#define CHECK(call) do { mgpu_result r_ = (call); if (r_ != MGPU_SUCCESS) { \
    fprintf(stderr, "%s: %s\n", #call, mgpu_last_error()); exit(1); } } while (0)

/* extern "C" __global__ void times2(unsigned *p, unsigned n)
   { unsigned i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) p[i] *= 2; } */
static const char ptx[] =
    ".version 7.0\n.target sm_75\n.address_size 64\n"
    ".visible .entry times2(.param .u64 p, .param .u32 n)\n{\n"
    "  .reg .pred %q; .reg .b32 %r<6>; .reg .b64 %a<3>;\n"
    "  mov.u32 %r1, %ctaid.x; mov.u32 %r2, %ntid.x; mov.u32 %r3, %tid.x;\n"
    "  mad.lo.s32 %r1, %r1, %r2, %r3; ld.param.u32 %r4, [n];\n"
    "  setp.ge.u32 %q, %r1, %r4; @%q ret;\n"
    "  ld.param.u64 %a1, [p]; cvta.to.global.u64 %a1, %a1; mad.wide.u32 %a2, %r1, 4, %a1;\n"
    "  ld.global.u32 %r5, [%a2]; shl.b32 %r5, %r5, 1; st.global.u32 [%a2], %r5;\n  ret;\n}\n";

static void times2_cpu(const mgpu_launch_dims *dims, void **args)   /* once per launch */
{
    unsigned *p = *(unsigned **)args[0], n = *(unsigned *)args[1], i;
    (void)dims;
    for (i = 0; i < n; i++) p[i] *= 2;
}

int main(void)
{
    unsigned host[1000], *buf, n = 1000, i;
    mgpu_launch_dims dims = {{(1000 + 255) / 256, 1, 1}, {256, 1, 1}, 0};   /* grid, block, shared */
    void *args[2];
    mgpu_module module;
    mgpu_kernel kernel;
    int d;

    CHECK(mgpu_init(NULL));
    CHECK(mgpu_module_create(ptx, sizeof ptx - 1, &module));   /* a fatbin or cubin works too */
    CHECK(mgpu_module_kernel(module, "times2", &kernel));
    CHECK(mgpu_kernel_set_cpu(kernel, times2_cpu));
    for (d = 0; d < mgpu_device_count(); d++) {
        for (i = 0; i < n; i++) host[i] = i;
        CHECK(mgpu_set_device(d));
        CHECK(mgpu_malloc((void **)&buf, sizeof host));
        CHECK(mgpu_memcpy(buf, host, sizeof host));
        args[0] = &buf;                                        /* pointers to the arguments */
        args[1] = &n;
        CHECK(mgpu_launch(kernel, &dims, args, NULL));         /* d's default stream */
        CHECK(mgpu_memcpy(host, buf, sizeof host));            /* waits for the kernel */
        for (i = 0; i < n; i++)
            if (host[i] != 2 * i) { fprintf(stderr, "device %d: p[%u] = %u\n", d, i, host[i]); return 1; }
        printf("device %d: times2 correct\n", d);
        CHECK(mgpu_free(buf));
    }
    CHECK(mgpu_module_destroy(module));
    return mgpu_shutdown() == MGPU_SUCCESS ? 0 : 1;
}
