/* tests/suites/pipeline.c - tests of mgpu's pipelines (mgpu_pipeline_*) and profiler
   (mgpu_profile_*).

   Every test runs in each configuration: cpu1 (1 CPU device), cpu4 (4 CPU devices) and
   cuda (every GPU plus 1 CPU device; skipped when CUDA is unavailable; on the 2 fake GPUs
   of tests/fake_cuda in `make test-fake`). Pipelines are checked against the same stages
   run one after another on the host, batch by batch, with fresh random data (seed
   printed; MGPU_TEST_SEED=N repeats it). One line per test and configuration; the last
   line is `N passed, N failed, N skipped`; exit status 1 if any failed.
   Arguments: substrings; only tests whose name[cfg] contains one of them run. */
#define _POSIX_C_SOURCE 200809L
#define MGPU_IMPLEMENTATION
#include "mgpu.h"
#define SUITE_CHECKS
#include "tests/suites/suite.h"

#include <math.h>
#include <unistd.h>

/* The stand-in NVTX library (tests/fixtures/fake_nvtx.c), built by the Makefile. */
#ifdef _WIN32
#define FAKE_NVTX "build\\win\\fake_nvtx.dll"
#else
#define FAKE_NVTX "build/libfake_nvtx.so"
#endif

/* ---------------------------------------------------------------- framework */
#define CHECK_ERR(call, want) do { mgpu_result r_ = (call); if (r_ != (want)) fail_at(__FILE__, __LINE__, \
    "%s returned %s, expected %s [%s]", #call, mgpu_result_string(r_), mgpu_result_string(want), mgpu_last_error()); } while (0)

/* ---------------------------------------------------------------- stages */
/* The seed's three stages on floats: x*2 and +1 on any device (a copy, then one
   mgpu_combine_async: one IEEE addition, the same bits everywhere), sqrt in host code (CPU
   devices only). ones[d]: MAX_FLOATS 1.0f in device d's memory. */
#define MAX_FLOATS 4096
static float *ones[MGPU_MAX_DEVICES];

static mgpu_result stage_double(mgpu_stage_batch *b, void *user)
{
    size_t n = b->in_bytes / sizeof(float);
    (void)user;
    b->out_bytes = b->in_bytes;
    MGPU__TRY(mgpu_memcpy_async(b->out, b->in, b->in_bytes, b->stream));
    return mgpu_combine_async(b->out, b->out, n, MGPU_F32, MGPU_OP_SUM, b->stream);
}
static mgpu_result stage_plus1(mgpu_stage_batch *b, void *user)
{
    size_t n = b->in_bytes / sizeof(float);
    (void)user;
    b->out_bytes = b->in_bytes;
    MGPU__TRY(mgpu_memcpy_async(b->out, b->in, b->in_bytes, b->stream));
    return mgpu_combine_async(b->out, ones[b->device], n, MGPU_F32, MGPU_OP_SUM, b->stream);
}
static mgpu_result stage_sqrt(mgpu_stage_batch *b, void *user)
{
    const float *in = (const float *)b->in;
    float *out = (float *)b->out;
    size_t i, n = b->in_bytes / sizeof(float);
    (void)user;
    for (i = 0; i < n; i++) out[i] = sqrtf(in[i]);
    b->out_bytes = b->in_bytes;
    return MGPU_SUCCESS;
}
enum { OP_DOUBLE, OP_SQRT, OP_PLUS1 };
static const mgpu_stage_fn stage_fns[] = { stage_double, stage_sqrt, stage_plus1 };
/* The pipeline under test, run one stage after another on the host: the reference. */
static int ops[MGPU_PIPELINE_MAX_STAGES], nops;
static float reference(float x)
{
    int i;
    for (i = 0; i < nops; i++) x = ops[i] == OP_DOUBLE ? x + x : ops[i] == OP_SQRT ? sqrtf(x) : x + 1.0f;
    return x;
}
/* A pipeline of the stages ops[i] on devs[i]; every output buffer holds MAX_FLOATS. */
static mgpu_result make_pipeline(const int *op, const mgpu_device *devs, int n, int depth, mgpu_pipeline *p)
{
    mgpu_pipeline_stage st[MGPU_PIPELINE_MAX_STAGES];
    mgpu_pipeline_desc d;
    int i;
    memset(st, 0, sizeof st);
    memset(&d, 0, sizeof d);
    for (i = 0; i < n; i++) {
        ops[i] = op[i];
        st[i].device = devs[i];
        st[i].fn = stage_fns[op[i]];
        st[i].out_bytes = MAX_FLOATS * sizeof(float);
    }
    nops = n;
    d.stages = st; d.nstages = n; d.in_bytes = MAX_FLOATS * sizeof(float); d.depth = depth;
    return mgpu_pipeline_create(&d, p);
}

/* Fills ones[] on every device. */
static int setup_ones(void)
{
    static float host[MAX_FLOATS];
    int d, i;
    for (i = 0; i < MAX_FLOATS; i++) host[i] = 1.0f;
    for (d = 0; d < mgpu__g.ndev; d++) {
        if (mgpu_set_device(d) != MGPU_SUCCESS || mgpu_malloc((void **)&ones[d], sizeof host) != MGPU_SUCCESS ||
            mgpu_memcpy(ones[d], host, sizeof host) != MGPU_SUCCESS)
            return 0;
    }
    return mgpu_set_device(0) == MGPU_SUCCESS;
}

/* The devices of the configuration: a[0..2] for x*2, sqrt, +1 -- GPUs where there are
   (x*2 and +1 on different ones when there are two), the sqrt on a CPU device. */
static void three_devices(mgpu_device a[3])
{
    int ng = mgpu__g.ncuda;
    a[0] = ng ? 0 : mgpu_cpu_device(0);
    a[1] = mgpu_cpu_device(mgpu_cpu_device_count() > 1 ? 1 : 0);
    a[2] = ng > 1 ? 1 : ng ? 0 : mgpu_cpu_device(mgpu_cpu_device_count() > 2 ? 2 : 0);
}

/* Pushes nb (<= 64) batches of random lengths through p (pulling whenever depth batches
   are in flight) and checks every pulled batch: its bytes, its tag and every value against
   reference(), in push order. */
static float expect[64][MAX_FLOATS];
static size_t expect_n[64];
static void run_and_check(mgpu_pipeline p, int nb, int depth)
{
    static float in[MAX_FLOATS], out[MAX_FLOATS];
    int pushed = 0, pulled = 0;
    REQUIRE(nb <= 64);
    while (pulled < nb) {
        if (pushed < nb && pushed - pulled < depth) {
            size_t n = 1 + (size_t)(rnd() % MAX_FLOATS), i;
            for (i = 0; i < n; i++) {
                in[i] = (float)(rnd() % 100000) / 64.0f;
                expect[pushed][i] = reference(in[i]);
            }
            expect_n[pushed] = n;
            REQUIRE_OK(mgpu_pipeline_push(p, in, n * sizeof(float), (void *)(uintptr_t)(pushed + 100)));
            pushed++;
        } else {
            size_t bytes = 0;
            void *tag = NULL;
            REQUIRE_OK(mgpu_pipeline_pull(p, out, sizeof out, &bytes, &tag));
            CHECK(tag == (void *)(uintptr_t)(pulled + 100));
            REQUIRE(bytes == expect_n[pulled] * sizeof(float));
            if (memcmp(out, expect[pulled], bytes)) fail_at(__FILE__, __LINE__, "batch %d differs from the reference", pulled);
            pulled++;
        }
    }
    CHECK_ERR(mgpu_pipeline_pull(p, out, sizeof out, &expect_n[0], NULL), MGPU_NOT_READY);
}

/* ---------------------------------------------------------------- pipeline tests */
/* The seed's x*2 -> sqrt -> +1 on three devices (GPU, CPU, other GPU where there are). */
static void test_three_stages(void)
{
    static const int op[3] = { OP_DOUBLE, OP_SQRT, OP_PLUS1 };
    mgpu_device devs[3];
    mgpu_pipeline p = NULL;
    int depth;
    three_devices(devs);
    for (depth = 1; depth <= 3; depth++) {
        REQUIRE_OK(make_pipeline(op, devs, 3, depth, &p));
        run_and_check(p, 24, depth);
        CHECK_OK(mgpu_pipeline_destroy(p));
    }
}

/* Every stage on device 0 (a GPU reads its producer's buffer in place). */
static void test_one_device(void)
{
    static const int op[4] = { OP_DOUBLE, OP_PLUS1, OP_DOUBLE, OP_PLUS1 };
    static const mgpu_device devs[4] = { 0, 0, 0, 0 };
    mgpu_pipeline p = NULL;
    REQUIRE_OK(make_pipeline(op, devs, 4, 2, &p));
    run_and_check(p, 16, 2);
    CHECK_OK(mgpu_pipeline_destroy(p));
}

/* One stage on each device of the table, twice round (GPU -> GPU by peer copy, GPU -> CPU,
   CPU -> GPU, CPU -> CPU), depth 4. */
static void test_every_device(void)
{
    int op[MGPU_PIPELINE_MAX_STAGES];
    mgpu_device devs[MGPU_PIPELINE_MAX_STAGES];
    mgpu_pipeline p = NULL;
    int i, n = 2 * mgpu__g.ndev > MGPU_PIPELINE_MAX_STAGES ? MGPU_PIPELINE_MAX_STAGES : 2 * mgpu__g.ndev;
    for (i = 0; i < n; i++) {
        devs[i] = i % mgpu__g.ndev;
        op[i] = i % 2 ? OP_PLUS1 : OP_DOUBLE;
    }
    REQUIRE_OK(make_pipeline(op, devs, n, 4, &p));
    run_and_check(p, 20, 4);
    CHECK_OK(mgpu_pipeline_destroy(p));
}

/* At most depth batches in flight: push says MGPU_NOT_READY until a pull; pull with none
   in flight says MGPU_NOT_READY; finish waits for all, which then pull in order. */
static void test_back_pressure(void)
{
    static const int op[2] = { OP_DOUBLE, OP_PLUS1 };
    mgpu_device devs[3];
    float x[3] = { 1.0f, 2.0f, 3.0f }, y = 0.0f;
    size_t bytes = 0;
    mgpu_pipeline p = NULL;
    int i;
    three_devices(devs);
    devs[1] = devs[2];
    REQUIRE_OK(make_pipeline(op, devs, 2, 2, &p));
    CHECK_ERR(mgpu_pipeline_pull(p, &y, sizeof y, &bytes, NULL), MGPU_NOT_READY);
    CHECK_OK(mgpu_pipeline_push(p, &x[0], sizeof(float), NULL));
    CHECK_OK(mgpu_pipeline_push(p, &x[1], sizeof(float), NULL));
    CHECK_ERR(mgpu_pipeline_push(p, &x[2], sizeof(float), NULL), MGPU_NOT_READY);
    CHECK_OK(mgpu_pipeline_finish(p));
    CHECK_ERR(mgpu_pipeline_push(p, &x[2], sizeof(float), NULL), MGPU_NOT_READY);
    CHECK_OK(mgpu_pipeline_pull(p, &y, sizeof y, &bytes, NULL));
    CHECK(bytes == sizeof(float) && y == 3.0f);
    CHECK_OK(mgpu_pipeline_push(p, &x[2], sizeof(float), NULL));
    for (i = 1; i < 3; i++) {
        CHECK_OK(mgpu_pipeline_pull(p, &y, sizeof y, &bytes, NULL));
        CHECK(y == reference(x[i]));
    }
    CHECK_ERR(mgpu_pipeline_pull(p, &y, sizeof y, &bytes, NULL), MGPU_NOT_READY);
    /* a batch of 0 bytes goes through too */
    CHECK_OK(mgpu_pipeline_push(p, NULL, 0, NULL));
    CHECK_OK(mgpu_pipeline_pull(p, &y, sizeof y, &bytes, NULL));
    CHECK(bytes == 0);
    CHECK_OK(mgpu_pipeline_destroy(p));
}

/* Stage 1 of test_errors: sqrt, but fails at batch fail_at_batch or writes one byte more
   than its buffer at batch overflow_at_batch. */
static int fail_at_batch = -1, overflow_at_batch = -1;
static mgpu_result stage_failing(mgpu_stage_batch *b, void *user)
{
    mgpu_result r;
    if ((int)b->index == fail_at_batch)
        return mgpu__fail(MGPU_ERROR_NOT_SUPPORTED, "stage_failing", "boom at %llu", (unsigned long long)b->index);
    r = stage_sqrt(b, user);
    if ((int)b->index == overflow_at_batch) b->out_bytes = b->out_capacity + 1;
    return r;
}

/* The error comes back from the next push, pull or finish with the stage and batch named;
   the batches before it come out right; the pipeline stays stopped; destroy cleans up. */
static void test_errors(void)
{
    mgpu_device devs[3];
    mgpu_pipeline_stage st[3];
    mgpu_pipeline_desc d;
    mgpu_pipeline p = NULL;
    float x = 4.0f, y = 0.0f;
    size_t bytes, allocs = mgpu__g.nallocs;
    int round, k;
    three_devices(devs);
    nops = 3; ops[0] = OP_DOUBLE; ops[1] = OP_SQRT; ops[2] = OP_PLUS1;
    for (round = 0; round < 3; round++) {
        memset(st, 0, sizeof st);
        memset(&d, 0, sizeof d);
        st[0].device = devs[0]; st[0].fn = stage_double;
        st[1].device = devs[1]; st[1].fn = stage_failing; st[1].name = "failing stage";
        st[1].workers = round == 2 ? 4 : 0;     /* round 2: batch 5 fails while others run */
        st[2].device = devs[2]; st[2].fn = stage_plus1;
        for (k = 0; k < 3; k++) st[k].out_bytes = 64;
        d.stages = st; d.nstages = 3; d.in_bytes = 64; d.depth = 3;
        fail_at_batch = round == 1 ? -1 : 5;
        overflow_at_batch = round == 1 ? 2 : -1;
        REQUIRE_OK(mgpu_pipeline_create(&d, &p));
        for (k = 0; k < 40; k++) {       /* push 3, then pull one and push one */
            if (k >= 3) {
                if (mgpu_pipeline_pull(p, &y, sizeof y, &bytes, NULL) != MGPU_SUCCESS) break;
                CHECK(y == reference(x));
            }
            if (mgpu_pipeline_push(p, &x, sizeof x, NULL) != MGPU_SUCCESS) break;
        }
        if (round != 1) {                /* failed at batch 5: seen by push 6 or 7 or pull 5 */
            CHECK(k >= 6 && k <= 8);
            CHECK(strstr(mgpu_last_error(), "stage 1 (\"failing stage\", device ") != NULL);
            CHECK(strstr(mgpu_last_error(), "batch 5: ") != NULL);
            CHECK(strstr(mgpu_last_error(), "boom at 5") != NULL);
            CHECK_ERR(mgpu_pipeline_push(p, &x, sizeof x, NULL), MGPU_ERROR_NOT_SUPPORTED);
            CHECK_ERR(mgpu_pipeline_pull(p, &y, sizeof y, &bytes, NULL), MGPU_ERROR_NOT_SUPPORTED);
            CHECK_ERR(mgpu_pipeline_finish(p), MGPU_ERROR_NOT_SUPPORTED);
        } else {
            CHECK(k >= 3 && k <= 5);
            CHECK(strstr(mgpu_last_error(), "batch 2: ") != NULL && strstr(mgpu_last_error(), "out_bytes 65") != NULL);
            CHECK_ERR(mgpu_pipeline_finish(p), MGPU_ERROR_INVALID_ARGUMENT);
        }
        CHECK_OK(mgpu_pipeline_destroy(p));
    }
    CHECK(mgpu__g.nallocs == allocs);
    fail_at_batch = overflow_at_batch = -1;
}

/* Bad descriptions and calls: a clear status, nothing created or changed. */
static void test_bad_args(void)
{
    mgpu_pipeline_stage st[2];
    mgpu_pipeline_desc d;
    mgpu_pipeline p = NULL;
    float x[8] = { 0 };
    size_t bytes = 0, allocs = mgpu__g.nallocs;
    memset(st, 0, sizeof st);
    memset(&d, 0, sizeof d);
    st[0].device = 0; st[0].fn = stage_double; st[0].out_bytes = 16;
    st[1] = st[0];
    d.stages = st; d.nstages = 2; d.in_bytes = 16;
    CHECK_ERR(mgpu_pipeline_create(NULL, &p), MGPU_ERROR_INVALID_ARGUMENT);
    CHECK_ERR(mgpu_pipeline_create(&d, NULL), MGPU_ERROR_INVALID_ARGUMENT);
    d.nstages = 0;
    CHECK_ERR(mgpu_pipeline_create(&d, &p), MGPU_ERROR_INVALID_ARGUMENT);
    d.nstages = MGPU_PIPELINE_MAX_STAGES + 1;
    CHECK_ERR(mgpu_pipeline_create(&d, &p), MGPU_ERROR_INVALID_ARGUMENT);
    d.nstages = 2; d.depth = MGPU_PIPELINE_MAX_DEPTH + 1;
    CHECK_ERR(mgpu_pipeline_create(&d, &p), MGPU_ERROR_INVALID_ARGUMENT);
    d.depth = -1;
    CHECK_ERR(mgpu_pipeline_create(&d, &p), MGPU_ERROR_INVALID_ARGUMENT);
    d.depth = 0; d.in_bytes = 0;
    CHECK_ERR(mgpu_pipeline_create(&d, &p), MGPU_ERROR_INVALID_ARGUMENT);
    d.in_bytes = 16; st[1].device = mgpu__g.ndev;
    CHECK_ERR(mgpu_pipeline_create(&d, &p), MGPU_ERROR_INVALID_DEVICE);
    st[1].device = 0; st[1].fn = NULL;
    CHECK_ERR(mgpu_pipeline_create(&d, &p), MGPU_ERROR_INVALID_ARGUMENT);
    st[1].fn = stage_double; st[1].out_bytes = 0;
    CHECK_ERR(mgpu_pipeline_create(&d, &p), MGPU_ERROR_INVALID_ARGUMENT);
    st[1].out_bytes = 16; st[1].workers = -1;
    CHECK_ERR(mgpu_pipeline_create(&d, &p), MGPU_ERROR_INVALID_ARGUMENT);
    st[1].workers = MGPU_PIPELINE_MAX_WORKERS + 1;
    CHECK_ERR(mgpu_pipeline_create(&d, &p), MGPU_ERROR_INVALID_ARGUMENT);
    st[1].workers = 2;                          /* a GPU stage has one worker */
    if (mgpu__g.ncuda) CHECK_ERR(mgpu_pipeline_create(&d, &p), MGPU_ERROR_INVALID_ARGUMENT);
    st[1].workers = 0;
    CHECK(p == NULL && mgpu__g.nallocs == allocs);
    st[1].out_bytes = 16;
    REQUIRE_OK(mgpu_pipeline_create(&d, &p));
    CHECK_ERR(mgpu_pipeline_push(p, x, 17, NULL), MGPU_ERROR_INVALID_ARGUMENT);
    CHECK_ERR(mgpu_pipeline_push(p, NULL, 4, NULL), MGPU_ERROR_INVALID_ARGUMENT);
    CHECK_ERR(mgpu_pipeline_push(NULL, x, 4, NULL), MGPU_ERROR_INVALID_HANDLE);
    CHECK_OK(mgpu_pipeline_push(p, x, 16, NULL));
    CHECK_ERR(mgpu_pipeline_pull(p, x, 8, &bytes, NULL), MGPU_ERROR_INVALID_ARGUMENT);   /* the batch stays */
    CHECK_ERR(mgpu_pipeline_pull(p, x, 16, NULL, NULL), MGPU_ERROR_INVALID_ARGUMENT);
    CHECK_OK(mgpu_pipeline_pull(p, x, 16, &bytes, NULL));
    CHECK(bytes == 16);
    CHECK_OK(mgpu_pipeline_destroy(p));
    CHECK_OK(mgpu_pipeline_destroy(NULL));
    CHECK(mgpu__g.nallocs == allocs);
}

/* ---------------------------------------------------------------- workers */
/* sqrt for stages of several workers: an even batch k waits (up to 10 s) until batch k + 1
   has finished, if the run has one, so batches finish out of order and two run at once;
   the most running at once is counted, and a batch never overtaken is a failure. */
static mgpu__mutex jumble_lock;
static uint64_t jumble_done[2];             /* bit k: batch k (< 128) finished */
static int jumble_batches, jumble_running, jumble_most, jumble_stuck;
static int jumble_finished(uint64_t k)
{
    int done;
    mgpu__mutex_lock(&jumble_lock);
    done = (int)(jumble_done[k / 64] >> (k % 64) & 1);
    mgpu__mutex_unlock(&jumble_lock);
    return done;
}
static mgpu_result stage_sqrt_jumbled(mgpu_stage_batch *b, void *user)
{
    struct timespec ms1 = { 0, 1000000 };
    mgpu_result r;
    int waited = 0;
    mgpu__mutex_lock(&jumble_lock);
    if (++jumble_running > jumble_most) jumble_most = jumble_running;
    mgpu__mutex_unlock(&jumble_lock);
    if (b->index % 2 == 0 && b->index + 1 < (uint64_t)jumble_batches) {
        for (waited = 0; waited < 10000 && !jumble_finished(b->index + 1); waited++) nanosleep(&ms1, NULL);
    }
    r = stage_sqrt(b, user);
    mgpu__mutex_lock(&jumble_lock);
    jumble_stuck += waited == 10000;
    jumble_done[b->index / 64] |= (uint64_t)1 << (b->index % 64);
    jumble_running--;
    mgpu__mutex_unlock(&jumble_lock);
    return r;
}
static void jumble_reset(int batches)
{
    memset(jumble_done, 0, sizeof jumble_done);
    jumble_batches = batches;
    jumble_running = jumble_most = jumble_stuck = 0;
}

/* Stages of several workers on CPU devices whose batches finish out of order still hand
   them on, and pull them, in push order: x*2 (GPU where there is one) -> sqrt (3 workers)
   -> +1, then x*2 (2 workers) -> sqrt (4) -> +1 (3) all on CPU devices, depth 0 (3 plus
   the extra workers: 5, then 9) and 2; at least two and at most min(workers, depth)
   batches ran the sqrt at once. */
static void test_workers(void)
{
    static const int op[3] = { OP_DOUBLE, OP_SQRT, OP_PLUS1 };
    mgpu_device devs[3];
    mgpu_pipeline_stage st[3];
    mgpu_pipeline_desc d;
    mgpu_pipeline p = NULL;
    size_t allocs = mgpu__g.nallocs;
    int round, i;
    three_devices(devs);
    for (round = 0; round < 3; round++) {
        static const int workers[3][3] = { { 0, 3, 0 }, { 2, 4, 3 }, { 1, 4, 1 } };
        const int depth = round == 0 ? 5 : round == 1 ? 9 : 2;
        memset(st, 0, sizeof st);
        memset(&d, 0, sizeof d);
        for (i = 0; i < 3; i++) {
            ops[i] = op[i];
            st[i].device = round == 0 ? devs[i] : mgpu_cpu_device(i % mgpu_cpu_device_count());
            st[i].fn = i == 1 ? stage_sqrt_jumbled : stage_fns[op[i]];
            st[i].out_bytes = MAX_FLOATS * sizeof(float);
            st[i].workers = workers[round][i];
        }
        nops = 3;
        d.stages = st; d.nstages = 3; d.in_bytes = MAX_FLOATS * sizeof(float); d.depth = round == 2 ? 2 : 0;
        jumble_reset(24);
        REQUIRE_OK(mgpu_pipeline_create(&d, &p));
        run_and_check(p, 24, depth);
        CHECK_OK(mgpu_pipeline_destroy(p));
        if (jumble_stuck || jumble_most < 2 || jumble_most > (depth < workers[round][1] ? depth : workers[round][1]))
            fail_at(__FILE__, __LINE__, "round %d: %d batches never overtaken; at most %d ran at once", round, jumble_stuck,
                    jumble_most);
    }
    CHECK(mgpu__g.nallocs == allocs);
}

/* The default depth is 3 plus the extra workers: with 4 and 2 workers, 7 batches go in
   before push says MGPU_NOT_READY; finish waits for all of them (slow workers), which
   then pull in order; destroy with batches in flight (some running, some waiting, some
   done and not pulled) stops cleanly and frees everything. */
static void test_workers_in_flight(void)
{
    static const int op[2] = { OP_SQRT, OP_DOUBLE };
    mgpu_pipeline_stage st[2];
    mgpu_pipeline_desc d;
    mgpu_pipeline p = NULL;
    float x, y;
    size_t bytes, allocs = mgpu__g.nallocs;
    int i, round;
    for (round = 0; round < 2; round++) {
        memset(st, 0, sizeof st);
        memset(&d, 0, sizeof d);
        for (i = 0; i < 2; i++) {
            ops[i] = op[i];
            st[i].device = mgpu_cpu_device(i % mgpu_cpu_device_count());
            st[i].out_bytes = 4 * sizeof(float);
        }
        st[0].fn = stage_sqrt_jumbled; st[0].workers = 4;
        st[1].fn = stage_double; st[1].workers = 2;
        nops = 2;
        d.stages = st; d.nstages = 2; d.in_bytes = sizeof(float);
        jumble_reset(7);
        REQUIRE_OK(mgpu_pipeline_create(&d, &p));
        for (i = 0; i < 7; i++) {
            x = (float)(i * i);
            CHECK_OK(mgpu_pipeline_push(p, &x, sizeof x, (void *)(uintptr_t)i));
        }
        CHECK_ERR(mgpu_pipeline_push(p, &x, sizeof x, NULL), MGPU_NOT_READY);
        if (round == 0) {
            void *tag = NULL;
            CHECK_OK(mgpu_pipeline_finish(p));
            CHECK(jumble_finished(6));
            for (i = 0; i < 7; i++) {
                CHECK_OK(mgpu_pipeline_pull(p, &y, sizeof y, &bytes, &tag));
                CHECK(bytes == sizeof y && tag == (void *)(uintptr_t)i && y == reference((float)(i * i)));
            }
            CHECK_ERR(mgpu_pipeline_pull(p, &y, sizeof y, &bytes, NULL), MGPU_NOT_READY);
            CHECK(!jumble_stuck && jumble_most >= 2);
        }
        CHECK_OK(mgpu_pipeline_destroy(p));         /* round 1: all 7 in flight */
    }
    CHECK(mgpu__g.nallocs == allocs);
}

/* ---------------------------------------------------------------- profiler tests */
/* A minimal JSON reader: 1 if text[*i..] is one valid value (skipping it), else 0. */
static void json_space(const char *t, size_t *i) { while (t[*i] == ' ' || t[*i] == '\n' || t[*i] == '\t' || t[*i] == '\r') (*i)++; }
static int json_value(const char *t, size_t *i, int depth)
{
    json_space(t, i);
    if (depth > 32) return 0;
    if (t[*i] == '{' || t[*i] == '[') {
        const char close = t[*i] == '{' ? '}' : ']';
        const int object = close == '}';
        (*i)++;
        json_space(t, i);
        if (t[*i] == close) { (*i)++; return 1; }
        for (;;) {
            if (object) {
                json_space(t, i);
                if (t[*i] != '"' || !json_value(t, i, depth + 1)) return 0;
                json_space(t, i);
                if (t[(*i)++] != ':') return 0;
            }
            if (!json_value(t, i, depth + 1)) return 0;
            json_space(t, i);
            if (t[*i] == ',') { (*i)++; continue; }
            if (t[*i] == close) { (*i)++; return 1; }
            return 0;
        }
    }
    if (t[*i] == '"') {
        for ((*i)++; t[*i] != '"'; (*i)++) {
            if (!t[*i] || (unsigned char)t[*i] < 0x20) return 0;
            if (t[*i] == '\\') {
                (*i)++;
                if (t[*i] == 'u') { int k; for (k = 1; k <= 4; k++) if (!strchr("0123456789abcdefABCDEF", t[*i + (size_t)k]) || !t[*i + (size_t)k]) return 0; *i += 4; }
                else if (!t[*i] || !strchr("\"\\/bfnrt", t[*i])) return 0;
            }
        }
        (*i)++;
        return 1;
    }
    if (!strncmp(t + *i, "true", 4)) { *i += 4; return 1; }
    if (!strncmp(t + *i, "false", 5)) { *i += 5; return 1; }
    if (!strncmp(t + *i, "null", 4)) { *i += 4; return 1; }
    {
        char *end;
        strtod(t + *i, &end);
        if (end == t + *i || t[*i] == '+' || t[*i] == '.') return 0;
        *i = (size_t)(end - t);
        return 1;
    }
}
/* Reads the trace at path: 1 if it is one valid JSON value; *complete: how many "ph": "X" events. */
static int json_file_ok(const char *path, size_t *complete)
{
    FILE *f = fopen(path, "rb");
    char *text, *at;
    long n;
    size_t i = 0;
    int ok;
    *complete = 0;
    if (!f) return 0;
    fseek(f, 0, SEEK_END);
    n = ftell(f);
    fseek(f, 0, SEEK_SET);
    text = (char *)calloc((size_t)n + 1, 1);
    if (!text || fread(text, 1, (size_t)n, f) != (size_t)n) { fclose(f); free(text); return 0; }
    fclose(f);
    ok = json_value(text, &i, 0);
    json_space(text, &i);
    ok = ok && text[i] == 0;
    for (at = text; (at = strstr(at, "\"ph\": \"X\"")) != NULL; at++) (*complete)++;
    free(text);
    return ok;
}

/* The spans are sane (start <= end, known kinds, a stream's spans in order without
   overlap) and the summary's totals are their sums. Returns the span count. */
static size_t check_spans(mgpu_span **out)
{
    static mgpu_span spans[20000];
    mgpu_profile_device sum[MGPU_MAX_DEVICES];
    double compute[MGPU_MAX_DEVICES] = { 0 }, transfer[MGPU_MAX_DEVICES] = { 0 }, sync[MGPU_MAX_DEVICES] = { 0 };
    uint64_t bytes[MGPU_MAX_DEVICES] = { 0 };
    size_t n = 0, i, j;
    int nd = 0, d;
    *out = spans;
    CHECK_OK(mgpu_profile_spans(spans, sizeof spans / sizeof spans[0], &n));
    if (n > sizeof spans / sizeof spans[0]) { fail_at(__FILE__, __LINE__, "%zu spans", n); return 0; }
    for (i = 0; i < n; i++) {
        const mgpu_span *s = &spans[i];
        if (!(s->start_ms <= s->end_ms) || s->start_ms < -1e-3 || s->kind < MGPU_SPAN_KERNEL || s->kind > MGPU_SPAN_WAIT ||
            s->device < 0 || s->device >= mgpu__g.ndev || !s->name || (s->kind == MGPU_SPAN_WAIT) != (s->track < 0))
            fail_at(__FILE__, __LINE__, "span %zu: kind %d device %d track %d %s %.6f..%.6f", i, (int)s->kind, s->device,
                    s->track, s->name ? s->name : "(null)", s->start_ms, s->end_ms);
        for (j = i + 1; j < n; j++) {       /* spans of one stream, in queue order, do not overlap */
            const mgpu_span *t = &spans[j];
            if (t->device == s->device && t->track == s->track && s->track >= 0 && t->start_ms < s->end_ms - 1e-6) {
                fail_at(__FILE__, __LINE__, "spans %zu (%s %.6f..%.6f) and %zu (%s %.6f..%.6f) overlap on device %d stream %d",
                        i, s->name, s->start_ms, s->end_ms, j, t->name, t->start_ms, t->end_ms, s->device, s->track);
                break;
            }
        }
        if (s->kind == MGPU_SPAN_KERNEL) compute[s->device] += s->end_ms - s->start_ms;
        else if (s->kind == MGPU_SPAN_WAIT) sync[s->device] += s->end_ms - s->start_ms;
        else { transfer[s->device] += s->end_ms - s->start_ms; bytes[s->device] += s->bytes; }
    }
    CHECK_OK(mgpu_profile_summary(sum, MGPU_MAX_DEVICES, &nd));
    CHECK(nd == mgpu__g.ndev);
    for (d = 0; d < nd; d++) {
        CHECK(sum[d].device == d);
        CHECK(fabs(sum[d].compute_ms - compute[d]) <= 1e-9 * (1 + compute[d]));
        CHECK(fabs(sum[d].transfer_ms - transfer[d]) <= 1e-9 * (1 + transfer[d]));
        CHECK(fabs(sum[d].sync_ms - sync[d]) <= 1e-9 * (1 + sync[d]));
        CHECK(sum[d].bytes == bytes[d]);
        CHECK(sum[d].transfer_ms > 0 ? fabs(sum[d].transfer_gbs - (double)bytes[d] / (transfer[d] * 1e6)) <= 1e-9 * (1 + sum[d].transfer_gbs)
                                     : sum[d].transfer_gbs == 0);
    }
    return n;
}

static size_t count_kind(const mgpu_span *s, size_t n, mgpu_span_kind kind, const char *detail)
{
    size_t i, c = 0;
    for (i = 0; i < n; i++) c += s[i].kind == kind && (!detail || !strcmp(s[i].detail, detail));
    return c;
}

/* The three-stage pipeline under the profiler: results as without it; spans for what
   went on (per CPU stage and batch one kernel span named after the stage; on GPUs
   their kernels, the uploads, downloads and GPU-to-GPU copies, the waits of the pulls);
   the trace file is JSON with one event per span; stopped, nothing more is recorded. */
static void test_profile(void)
{
    static const int op[3] = { OP_DOUBLE, OP_SQRT, OP_PLUS1 };
    static const char *const names[3] = { "double", "sqrt", "plus one" };
    char path[64];
    mgpu_device devs[3];
    mgpu_pipeline_stage st[3];
    mgpu_pipeline_desc d;
    mgpu_pipeline p = NULL;
    mgpu_span *spans;
    size_t n, n2, events = 0;
    int i, cpu_stages = 0;
    three_devices(devs);
    REQUIRE_OK(mgpu_profile_start());
    memset(st, 0, sizeof st);
    memset(&d, 0, sizeof d);
    for (i = 0; i < 3; i++) {
        ops[i] = op[i];
        st[i].device = devs[i]; st[i].fn = stage_fns[op[i]]; st[i].out_bytes = MAX_FLOATS * sizeof(float); st[i].name = names[i];
        cpu_stages += !mgpu__is_cuda(devs[i]);
    }
    st[1].workers = 3;                          /* a CPU device: a stream per worker */
    nops = 3;
    d.stages = st; d.nstages = 3; d.in_bytes = MAX_FLOATS * sizeof(float); d.depth = 3;
    REQUIRE_OK(mgpu_pipeline_create(&d, &p));
    run_and_check(p, 12, 3);
    CHECK_OK(mgpu_pipeline_destroy(p));
    CHECK_OK(mgpu_profile_stop());
    n = check_spans(&spans);
    CHECK(count_kind(spans, n, MGPU_SPAN_KERNEL, "sqrt") == 12);
    if (!mgpu__g.ncuda) {
        CHECK(n == 12 * (size_t)cpu_stages);    /* a CPU stage's inner copies are part of its span */
        CHECK(count_kind(spans, n, MGPU_SPAN_KERNEL, "double") == 12 && count_kind(spans, n, MGPU_SPAN_KERNEL, "plus one") == 12);
    } else {
        mgpu_peer_path path01 = MGPU_PEER_SAME_DEVICE;
        CHECK(count_kind(spans, n, MGPU_SPAN_KERNEL, "mgpu_combine_f32_sum") + count_kind(spans, n, MGPU_SPAN_KERNEL, NULL) >= 24);
        CHECK(count_kind(spans, n, MGPU_SPAN_COPY_H2D, NULL) >= 24);    /* the push into stage 0, sqrt's output into stage 2 */
        CHECK(count_kind(spans, n, MGPU_SPAN_COPY_D2H, NULL) >= 24);    /* stage 0 to sqrt, stage 2 to the pull */
        CHECK(count_kind(spans, n, MGPU_SPAN_WAIT, NULL) >= 12);        /* the pulls and the CPU stage */
        if (mgpu__g.ncuda > 1) CHECK_OK(mgpu_peer_path_get(0, 1, &path01));
        (void)path01;
    }
    /* The trace file */
    snprintf(path, sizeof path, "build/suite_pipeline_trace_%d.json", (int)getpid());
    CHECK_OK(mgpu_profile_write(path));
    CHECK(json_file_ok(path, &events));
    CHECK(events == n);
    remove(path);
    /* Stopped: nothing more */
    {
        float x = 1.0f, y = 0.0f;
        void *buf = NULL;
        REQUIRE_OK(mgpu_malloc(&buf, sizeof x));
        CHECK_OK(mgpu_memcpy(buf, &x, sizeof x));
        CHECK_OK(mgpu_memcpy(&y, buf, sizeof x));
        CHECK_OK(mgpu_free(buf));
        CHECK_OK(mgpu_profile_spans(NULL, 0, &n2));
        CHECK(n2 == n && y == x);
    }
}

/* Every span kind where the configuration has it, from the plain calls: uploads, downloads,
   copies within and between devices, kernels, waits. */
static void test_profile_copies(void)
{
    static float host[1024];
    void *a = NULL, *b = NULL;
    mgpu_stream s = NULL;
    mgpu_span *spans;
    size_t n;
    /* the second GPU, else (one GPU) the same one: a GPU and a CPU device copy as D2H, not peer */
    int other = mgpu__g.ncuda ? (mgpu__g.ncuda > 1 ? 1 : 0) : (mgpu__g.ndev > 1 ? 1 : 0);
    REQUIRE_OK(mgpu_stream_create(&s));
    REQUIRE_OK(mgpu_malloc(&a, sizeof host));
    REQUIRE_OK(mgpu_set_device(other));
    REQUIRE_OK(mgpu_malloc(&b, sizeof host));
    REQUIRE_OK(mgpu_set_device(0));
    REQUIRE_OK(mgpu_profile_start());
    CHECK_OK(mgpu_memcpy_async(a, host, sizeof host, s));
    CHECK_OK(mgpu_combine_async(a, a, 1024, MGPU_F32, MGPU_OP_SUM, s));
    CHECK_OK(mgpu_memcpy_async(b, a, sizeof host, s));
    CHECK_OK(mgpu_memcpy_async(host, b, sizeof host, s));
    CHECK_OK(mgpu_stream_synchronize(s));
    CHECK_OK(mgpu_profile_stop());
    n = check_spans(&spans);
    if (mgpu__g.ncuda) {
        mgpu_peer_path path = MGPU_PEER_SAME_DEVICE;
        CHECK(mgpu_peer_path_get(0, other, &path) == MGPU_SUCCESS);
        CHECK(count_kind(spans, n, MGPU_SPAN_COPY_H2D, NULL) == 1 && count_kind(spans, n, MGPU_SPAN_COPY_D2H, NULL) == 1);
        CHECK(count_kind(spans, n, MGPU_SPAN_KERNEL, NULL) == 1 && count_kind(spans, n, MGPU_SPAN_WAIT, NULL) >= 1);
        CHECK(count_kind(spans, n, path == MGPU_PEER_STAGED ? MGPU_SPAN_COPY_STAGED : path == MGPU_PEER_DIRECT ?
                         MGPU_SPAN_COPY_P2P : MGPU_SPAN_COPY_D2D, NULL) == 1);
        CHECK(n >= 5);
    } else {
        CHECK(count_kind(spans, n, MGPU_SPAN_COPY_HOST, NULL) == 3 && n == 4);
        CHECK(count_kind(spans, n, MGPU_SPAN_KERNEL, "combine (CPU)") == 1);
    }
    CHECK(spans[0].bytes == sizeof host || !mgpu__g.ncuda);
    CHECK_OK(mgpu_free(a));
    CHECK_OK(mgpu_free(b));
    CHECK_OK(mgpu_stream_destroy(s));
}

/* Bad arguments: a status, nothing written. */
static void test_profile_args(void)
{
    mgpu_profile_device sum[MGPU_MAX_DEVICES];
    mgpu_span sp;
    size_t n;
    int count = -1;
    CHECK_ERR(mgpu_profile_summary(sum, mgpu__g.ndev - 1, &count), MGPU_ERROR_INVALID_ARGUMENT);
    CHECK(count == -1);
    CHECK_ERR(mgpu_profile_summary(NULL, MGPU_MAX_DEVICES, &count), MGPU_ERROR_INVALID_ARGUMENT);
    CHECK_ERR(mgpu_profile_spans(&sp, 1, NULL), MGPU_ERROR_INVALID_ARGUMENT);
    CHECK_ERR(mgpu_profile_spans(NULL, 1, &n), MGPU_ERROR_INVALID_ARGUMENT);
    CHECK_ERR(mgpu_profile_write(NULL), MGPU_ERROR_INVALID_ARGUMENT);
    CHECK_ERR(mgpu_profile_write("build/no such folder/trace.json"), MGPU_ERROR_INVALID_ARGUMENT);
    CHECK(strstr(mgpu_last_error(), "no such folder") != NULL);
}

/* NVTX through FAKE_NVTX (MGPU_NVTX_PATH, set by main before the first
   mgpu_profile_start): one range pushed and popped per recorded span. The counters are read
   from the same library, opened again (mgpu's own platform calls). */
static void test_profile_nvtx(void)
{
    char errors[512] = "";
    void *h = mgpu__lib_open(FAKE_NVTX, errors, sizeof errors);
    int *pushes, *pops, before;
    float x = 2.0f;
    void *a = NULL;
    size_t n0 = 0, n1 = 0;
    if (!h) SKIP("%s is not built (make %s): %s", FAKE_NVTX, FAKE_NVTX, errors);
    pushes = (int *)mgpu__lib_sym(h, "fake_nvtx_pushes");
    pops = (int *)mgpu__lib_sym(h, "fake_nvtx_pops");
    REQUIRE(pushes && pops);
    REQUIRE_OK(mgpu_profile_start());
    REQUIRE(*pushes == *pops);
    before = *pushes;
    CHECK_OK(mgpu_profile_spans(NULL, 0, &n0));
    REQUIRE_OK(mgpu_malloc(&a, sizeof x));
    CHECK_OK(mgpu_memcpy_async(a, &x, sizeof x, NULL));
    CHECK_OK(mgpu_memcpy_async(&x, a, sizeof x, NULL));
    CHECK_OK(mgpu_device_synchronize(0));
    CHECK_OK(mgpu_free(a));
    CHECK_OK(mgpu_profile_stop());
    CHECK_OK(mgpu_profile_spans(NULL, 0, &n1));
    CHECK(n1 - n0 >= 2);
    CHECK(*pushes - before == (int)(n1 - n0) && *pops == *pushes);
    mgpu__lib_close(h);
}

/* mgpu_desc.profile_path and MGPU_PROFILE: profiling from mgpu_init, the trace written at
   mgpu_shutdown (two host copies on the CPU device: two spans). */
static void test_profile_at_init(void)
{
    char path[64];
    int round;
    snprintf(path, sizeof path, "build/suite_pipeline_init_%d.json", (int)getpid());
    for (round = 0; round < 2; round++) {
        mgpu_desc d;
        char a[16] = "abc", b[16];
        size_t events = 0;
        memset(&d, 0, sizeof d);
        d.backend = MGPU_BACKEND_CPU;
        if (round) setenv("MGPU_PROFILE", path, 1);
        else d.profile_path = path;
        remove(path);
        REQUIRE_OK(mgpu_init(&d));
        CHECK_OK(mgpu_memcpy_async(b, a, sizeof a, NULL));
        CHECK_OK(mgpu_memcpy_async(a, b, sizeof a, NULL));
        CHECK_OK(mgpu_shutdown());
        CHECK(json_file_ok(path, &events));
        CHECK(events == 2);
        remove(path);
    }
    unsetenv("MGPU_PROFILE");
}

/* ---------------------------------------------------------------- runner */
static const struct { const char *name; void (*fn)(void); } tests[] = {
    { "three_stages", test_three_stages }, { "one_device", test_one_device }, { "every_device", test_every_device },
    { "back_pressure", test_back_pressure }, { "errors", test_errors }, { "bad_args", test_bad_args },
    { "workers", test_workers }, { "workers_in_flight", test_workers_in_flight },
    { "profile", test_profile }, { "profile_copies", test_profile_copies }, { "profile_args", test_profile_args },
    { "profile_nvtx", test_profile_nvtx },
};

static int selected(const char *label, int argc, char **argv)
{
    int i;
    if (argc < 2) return 1;
    for (i = 1; i < argc; i++) if (strstr(label, argv[i])) return 1;
    return 0;
}

int main(int argc, char **argv)
{
    static const struct { const char *label; mgpu_backend backend; int cpus; } cfgs[] = {
        { "cpu1", MGPU_BACKEND_CPU, 1 }, { "cpu4", MGPU_BACKEND_CPU, 4 }, { "cuda", MGPU_BACKEND_CUDA, 1 }
    };
    unsigned long long seed = suite_seed();
    unsigned c, t;
    char label[128];
    printf("seed %llu (MGPU_TEST_SEED=%llu repeats it)\n", seed, seed);
    mgpu__mutex_init(&jumble_lock);
    setenv("MGPU_NVTX_PATH", FAKE_NVTX, 1);      /* read at the first mgpu_profile_start */
    for (c = 0; c < sizeof cfgs / sizeof cfgs[0]; c++) {
        mgpu_desc d;
        mgpu_result r;
        memset(&d, 0, sizeof d);
        d.backend = cfgs[c].backend;
        d.cpu_devices = cfgs[c].cpus;
        r = mgpu_init(&d);
        if (r == MGPU_SUCCESS && !setup_ones()) printf("note %s: setting up: %s\n", cfgs[c].label, mgpu_last_error());
        if (r == MGPU_SUCCESS) printf("-- %d CPU device(s), %d GPU(s)\n", mgpu__g.ncpu, mgpu__g.ncuda);
        for (t = 0; t < sizeof tests / sizeof tests[0]; t++) {
            snprintf(label, sizeof label, "%s[%s]", tests[t].name, cfgs[c].label);
            if (!selected(label, argc, argv)) continue;
            cur_failed = cur_skipped = 0;
            cur_msg[0] = cur_skip[0] = 0;
            rng_state = seed * 0x9E3779B97F4A7C15ull + (uint64_t)(c * 131 + t + 1) * 0xD1B54A32D192ED03ull;
            if (!rng_state) rng_state = 1;
            if (r != MGPU_SUCCESS && cfgs[c].backend == MGPU_BACKEND_CUDA) skip("%s: no CUDA device (%s)", label, mgpu_result_string(r));
            else if (r != MGPU_SUCCESS) report(0, "%s: mgpu_init: %s", label, mgpu_last_error());
            else {
                mgpu_set_device(0);
                tests[t].fn();
                mgpu_profile_stop();
                if (cur_skipped) skip("%s: %s", label, cur_skip);
                else if (cur_failed) report(0, "%s: %s", label, cur_msg);
                else report(1, "%s", label);
            }
        }
        if (r == MGPU_SUCCESS) mgpu_shutdown();
    }
    if (selected("profile_at_init[once]", argc, argv)) {
        cur_failed = 0;
        cur_msg[0] = 0;
        test_profile_at_init();
        if (cur_failed) report(0, "profile_at_init[once]: %s", cur_msg);
        else report(1, "profile_at_init[once]");
    }
    return summary();
}
