/* readme_pipeline.c - the program for pipelines in docs/pipelines.md (keep the two identical).
   Two stages: x + x on device 0 (a GPU if there is one), then +1 in host code on a CPU device
   by two workers (threads); 16 batches of 1M floats go through with 4 in flight and come out
   in order. */
#include <stdio.h>
#include <stdlib.h>
#include "mgpu.h"

#define CHECK(call) do { mgpu_result r_ = (call); if (r_ != MGPU_SUCCESS) { \
    fprintf(stderr, "%s: %s\n", #call, mgpu_last_error()); exit(1); } } while (0)

#define N (1 << 20)
#define BATCHES 16

static mgpu_result twice(mgpu_stage_batch *b, void *user)      /* queued on the stage's stream */
{
    (void)user;
    CHECK(mgpu_memcpy_async(b->out, b->in, b->in_bytes, b->stream));
    return mgpu_combine_async(b->out, b->out, b->in_bytes / 4, MGPU_F32, MGPU_OP_SUM, b->stream);
}

static mgpu_result plus_one(mgpu_stage_batch *b, void *user)   /* host code on a CPU device */
{
    const float *in = b->in;
    float *out = b->out;
    size_t i;
    (void)user;
    for (i = 0; i < b->in_bytes / 4; i++) out[i] = in[i] + 1.0f;
    return MGPU_SUCCESS;
}

int main(void)
{
    float *x = malloc(N * sizeof *x), *y = malloc(N * sizeof *y);
    mgpu_pipeline_stage stages[2] = {{0}};
    mgpu_pipeline_desc desc = {0};
    mgpu_pipeline p;
    size_t bytes, i, bad = 0;
    int pushed = 0, pulled = 0;

    CHECK(mgpu_init(NULL));
    if (!x || !y) return 1;
    stages[0].device = 0;                    stages[0].fn = twice;    stages[0].out_bytes = N * 4;
    stages[1].device = mgpu_cpu_device(0);   stages[1].fn = plus_one; stages[1].out_bytes = N * 4;
    stages[1].workers = 2;                   /* two batches at once in host code, still in order */
    desc.stages = stages; desc.nstages = 2; desc.in_bytes = N * 4; desc.depth = 4;
    CHECK(mgpu_pipeline_create(&desc, &p));
    while (pulled < BATCHES) {
        if (pushed < BATCHES && pushed - pulled < desc.depth) {      /* else push says MGPU_NOT_READY */
            for (i = 0; i < N; i++) x[i] = (float)(pushed + i % 100);
            CHECK(mgpu_pipeline_push(p, x, N * 4, NULL));
            pushed++;
        } else {
            CHECK(mgpu_pipeline_pull(p, y, N * 4, &bytes, NULL));  /* the oldest batch */
            for (i = 0; i < N; i++) bad += y[i] != 2.0f * (float)(pulled + i % 100) + 1.0f;
            pulled++;
        }
    }
    CHECK(mgpu_pipeline_destroy(p));
    printf("%d batches through device %d -> CPU device %d: %s\n", BATCHES, stages[0].device,
           stages[1].device, bad ? "WRONG" : "all right, in order");
    free(x);
    free(y);
    return mgpu_shutdown() == MGPU_SUCCESS && !bad ? 0 : 1;
}
