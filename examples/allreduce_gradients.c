/* allreduce_gradients.c - the gradient step of data-parallel training, with mgpu.

   Every device keeps a replica of the model's weights and computes gradients on its own
   share of a batch. Before the optimizer step the gradients are summed over all devices
   with an all-reduce, so every replica applies the same update and the replicas stay
   identical:
     1. per device: a stream, the weights (the same on every device) and the gradients
        (different on every device; here made up on the host and uploaded);
     2. mgpu_allreduce_async sums the gradient buffers in place on those streams: every
        device ends with the same total, bit for bit;
     3. per device, on its stream: w = w - (lr / ndev) * g (mgpu_axpy_f32), an SGD step with
        the averaged gradient.
   Checked: the replicas are bit-identical afterwards, and equal to the host's computation.
   Runs on GPUs, or on CPU devices where there is none (MGPU_CPU_DEVICES=4 for four).
   Exit status 0 when both checks pass. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mgpu.h"

#define G ((size_t)1 << 22)                          /* parameters: 4 Mi floats, 16 MiB */
#define LR 0.05f

#define CHECK(call) do { mgpu_result r_ = (call); if (r_ != MGPU_SUCCESS) { \
    fprintf(stderr, "allreduce_gradients: %s failed: %s\n  %s\n", #call, mgpu_result_string(r_), mgpu_last_error()); \
    exit(1); } } while (0)

/* Device d's gradient of parameter i, and the initial weight of parameter i. */
static float grad(int d, size_t i) { return (float)((i * 7u + (size_t)d * 131u) % 1000u) / 1000.0f - 0.5f; }
static float weight0(size_t i) { return (float)(i % 100u) / 100.0f; }

int main(void)
{
    mgpu_stream stream[MGPU_MAX_DEVICES];
    void *g[MGPU_MAX_DEVICES];                       /* void *: what mgpu_allreduce takes */
    float *w[MGPU_MAX_DEVICES], *host, *first;
    size_t i, bad = 0;
    double worst = 0;
    int d, ndev, identical = 1;

    CHECK(mgpu_init(NULL));
    ndev = mgpu_device_count();
    host = (float *)malloc(G * sizeof *host);
    first = (float *)malloc(G * sizeof *first);
    if (!host || !first) { fprintf(stderr, "allreduce_gradients: out of memory\n"); return 1; }

    /* 1. Replicas and local gradients. */
    for (d = 0; d < ndev; d++) {
        CHECK(mgpu_set_device(d));
        CHECK(mgpu_stream_create(&stream[d]));
        CHECK(mgpu_malloc((void **)&w[d], G * sizeof(float)));
        CHECK(mgpu_malloc(&g[d], G * sizeof(float)));
        for (i = 0; i < G; i++) host[i] = weight0(i);
        CHECK(mgpu_memcpy(w[d], host, G * sizeof(float)));
        for (i = 0; i < G; i++) host[i] = grad(d, i);
        CHECK(mgpu_memcpy(g[d], host, G * sizeof(float)));
    }

    /* 2. Sum the gradients over all devices, in place, on each device's stream. */
    CHECK(mgpu_allreduce_async(g, G, MGPU_F32, MGPU_OP_SUM, NULL, 0, stream));

    /* 3. The same SGD step on every replica, queued after the all-reduce. */
    for (d = 0; d < ndev; d++) CHECK(mgpu_axpy_f32(G, -LR / (float)ndev, (const float *)g[d], w[d], stream[d]));
    for (d = 0; d < ndev; d++) CHECK(mgpu_stream_synchronize(stream[d]));

    /* Check: replicas identical bit for bit, and as the host computes them. */
    for (d = 0; d < ndev; d++) {
        CHECK(mgpu_memcpy(d == 0 ? first : host, w[d], G * sizeof(float)));
        if (d > 0 && memcmp(first, host, G * sizeof(float))) identical = 0;
    }
    for (i = 0; i < G; i++) {
        double s = 0, want, diff;
        for (d = 0; d < ndev; d++) s += grad(d, i);
        want = weight0(i) - (double)(LR / (float)ndev) * s;
        diff = first[i] - want;
        if (diff < 0) diff = -diff;
        if (diff > worst) worst = diff;
        if (diff > 1e-5) bad++;
    }
    printf("all-reduced %zu gradients (%.0f MiB per device) over %d device(s), then one SGD step\n", (size_t)G,
           G * 4.0 / 1048576.0, ndev);
    printf("replicas bit-identical: %s; largest difference from the host: %.2e (%zu above 1e-5)\n",
           identical ? "yes" : "NO", worst, bad);

    for (d = 0; d < ndev; d++) {
        CHECK(mgpu_free(w[d]));
        CHECK(mgpu_free(g[d]));
        CHECK(mgpu_stream_destroy(stream[d]));
    }
    free(host);
    free(first);
    CHECK(mgpu_shutdown());
    printf("%s\n", identical && !bad ? "ok" : "MISMATCH");
    return identical && !bad ? 0 : 1;
}
