/* tests/suites/pointers.c - device pointers checked against mgpu's allocation table, and
   memory allocated outside mgpu.

   Plain C99 with its own main; it holds the implementation (so it can allocate with the
   driver's own cuMemAlloc, as a user of the CUDA driver API or runtime would). Built and run
   by `make test-unit` (build/suite_pointers), `make test-asan`, and on the 2 fake GPUs by
   `make test-fake`; on a GPU machine by tools/gpu_check.sh.
   - foreign CUDA memory (cuMemAlloc outside mgpu) keeps working in every operation that
     takes device pointers, as mgpu.h promises ("memory the CUDA runtime allocated on d"); a
     range that runs past the end of the driver's allocation is MGPU_ERROR_INVALID_ARGUMENT
     (mgpu asks the driver for the allocation's extent in the same cuPointerGetAttributes
     call that tells it the pointer's device); mgpu_free refuses it;
   - the cost of the checks on CPU devices: ns per mgpu_memcpy of 64 bytes and per
     mgpu_axpy_f32 of 16 elements with 1 and 4,097 live allocations in the table (a binary
     search under mgpu's lock), against a plain memcpy (printed; not a pass/fail target).
   Prints ok / FAIL / skip lines and last `N passed, N failed, N skipped`. */
#define MGPU_IMPLEMENTATION
#include "mgpu.h"
#define SUITE_CHECKS
#include "tests/suites/suite.h"

#define CHECK_ERR(call, want) do { mgpu_result r_ = (call); if (r_ != (want) || !*mgpu_last_error()) \
    fail_at(__FILE__, __LINE__, "%s returned %s, want %s with a message", #call, mgpu_result_string(r_), \
            mgpu_result_string(want)); } while (0)

static int start_test(void) { cur_failed = cur_skipped = 0; cur_msg[0] = cur_skip[0] = 0; return 0; }
static void end_test(const char *name)
{
    if (cur_skipped && !cur_failed) skip("%s: %s", name, cur_skip);
    else report(!cur_failed, "%s%s%s", name, cur_failed ? ": " : "", cur_msg);
}

/* Foreign memory on each GPU: 1024 bytes from the driver, used through mgpu. */
static void test_foreign(void)
{
    mgpu_desc desc;
    int d, ngpu = 0;
    memset(&desc, 0, sizeof desc);
    desc.backend = MGPU_BACKEND_CUDA;
    if (mgpu_init(&desc) != MGPU_SUCCESS) SKIP("no CUDA device (%s)", mgpu_last_error());
    printf("-- %d CPU device(s), %d GPU(s)\n", mgpu_cpu_device_count(), mgpu_device_count());
    for (d = 0; d < mgpu_device_count(); d++) {
        enum { BYTES = 1024 };
        mgpu__CUdeviceptr raw = 0;
        unsigned char *p, host[BYTES], back[BYTES];
        uint64_t sum = 0, want = 0;
        mgpu_device owner = -1;
        mgpu_stream s = NULL;
        size_t i;
        REQUIRE_OK(mgpu_set_device(d));
        REQUIRE(mgpu__cu.cuMemAlloc(&raw, BYTES) == MGPU__CUDA_SUCCESS);   /* the context mgpu made current */
        p = (unsigned char *)(uintptr_t)raw;
        ngpu++;
        for (i = 0; i < BYTES; i++) host[i] = (unsigned char)(i * 7 + 1);
        CHECK_OK(mgpu_pointer_device(p + 100, &owner));
        CHECK(owner == d);
        /* in range: copies, fills, a stream, a reduction */
        CHECK_OK(mgpu_memcpy(p, host, BYTES));
        CHECK_OK(mgpu_stream_create(&s));
        CHECK_OK(mgpu_memset_async(p + BYTES - 8, 0, 8, s));
        CHECK_OK(mgpu_memcpy_async(back, p, BYTES, s));
        CHECK_OK(mgpu_stream_synchronize(s));
        CHECK(!memcmp(back, host, BYTES - 8));
        for (i = 0; i < BYTES / 8 - 1; i++) { uint64_t v; memcpy(&v, host + 8 * i, 8); want += v; }
        CHECK_OK(mgpu_reduce(p, BYTES / 8, MGPU_U64, MGPU_OP_SUM, &sum, s));
        CHECK(sum == want);
        /* past the end of the driver's allocation */
        CHECK_ERR(mgpu_memcpy(p + 64, host, BYTES), MGPU_ERROR_INVALID_ARGUMENT);
        CHECK(strstr(mgpu_last_error(), "past the end") != NULL);
        CHECK_ERR(mgpu_memcpy_async(host, p + 8, BYTES, s), MGPU_ERROR_INVALID_ARGUMENT);
        CHECK_ERR(mgpu_memset_async(p + 1, 0, BYTES, s), MGPU_ERROR_INVALID_ARGUMENT);
        CHECK_ERR(mgpu_reduce(p + 8, BYTES / 8, MGPU_U64, MGPU_OP_SUM, &sum, s), MGPU_ERROR_INVALID_ARGUMENT);
        CHECK_ERR(mgpu_iota_u32(BYTES / 4 + 1, 0, (uint32_t *)(void *)p, s), MGPU_ERROR_INVALID_ARGUMENT);
        CHECK(sum == want);
        CHECK_OK(mgpu_memcpy(back, p, BYTES));
        CHECK(!memcmp(back, host, BYTES - 8));
        /* not mgpu's to free */
        CHECK_ERR(mgpu_free(p), MGPU_ERROR_INVALID_POINTER);
        CHECK(strstr(mgpu_last_error(), "not the start of a live mgpu allocation") != NULL);
        CHECK_OK(mgpu_stream_destroy(s));
        CHECK(mgpu__cu.cuMemFree(raw) == MGPU__CUDA_SUCCESS);
    }
    CHECK_OK(mgpu_shutdown());
    if (!ngpu) SKIP("no CUDA device");
}

static double now_ns(void) { return mgpu__now_ms() * 1e6; }   /* mgpu's platform clock */

/* ns per call of the checked operations on a CPU device, with `extra` more allocations live. */
static void time_checks(int extra, double *copy_ns, double *axpy_ns, double *raw_ns)
{
    enum { CALLS = 200000 };
    static void *more[4096];
    float *x = NULL, *y = NULL;
    unsigned char host[64];
    double t;
    int i;
    volatile unsigned char sink = 0;
    REQUIRE_OK(mgpu_malloc((void **)&x, 64));
    REQUIRE_OK(mgpu_malloc((void **)&y, 64));
    for (i = 0; i < extra; i++) REQUIRE_OK(mgpu_malloc(&more[i], 64));
    memset(host, 1, sizeof host);
    CHECK_OK(mgpu_memcpy(x, host, 64));
    t = now_ns();
    for (i = 0; i < CALLS; i++) CHECK_OK(mgpu_memcpy(y, x, 64));
    *copy_ns = (now_ns() - t) / CALLS;
    t = now_ns();
    for (i = 0; i < CALLS; i++) CHECK_OK(mgpu_axpy_f32(16, 0.5f, x, y, NULL));
    *axpy_ns = (now_ns() - t) / CALLS;
    t = now_ns();
    for (i = 0; i < CALLS; i++) { memcpy(host, x, 64); sink = (unsigned char)(sink + host[i & 63]); }
    *raw_ns = (now_ns() - t) / CALLS;
    for (i = 0; i < extra; i++) CHECK_OK(mgpu_free(more[i]));
    CHECK_OK(mgpu_free(x));
    CHECK_OK(mgpu_free(y));
}

static void test_cost(void)
{
    mgpu_desc desc;
    double c1, a1, r1, c2, a2, r2;
    memset(&desc, 0, sizeof desc);
    desc.backend = MGPU_BACKEND_CPU;
    REQUIRE_OK(mgpu_init(&desc));
    REQUIRE_OK(mgpu_set_device(0));
    time_checks(0, &c1, &a1, &r1);
    time_checks(4095, &c2, &a2, &r2);
    CHECK_OK(mgpu_shutdown());
    printf("-- CPU device, ns per call: mgpu_memcpy 64 B %.0f (1 allocation live) / %.0f (4,097 live); "
           "mgpu_axpy_f32 n=16 %.0f / %.0f; plain memcpy 64 B %.0f\n", c1, c2, a1, a2, r1);
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    start_test(); test_foreign(); end_test("foreign CUDA memory (cuMemAlloc outside mgpu): works in range, "
                                           "past its end INVALID_ARGUMENT, mgpu_free refuses it");
    start_test(); test_cost(); end_test("cost of the pointer checks on a CPU device (timed above)");
    return summary();
}
