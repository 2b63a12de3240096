/* Peer paths, peer access, and copies between devices. */
#include "test.h"

#define GUARD 64
#define SRC_OFFSET 3

static int peer_is_cpu(mgpu_device d)
{
    mgpu_device_info info;
    if (mgpu_device_info_get(d, &info) != MGPU_SUCCESS) return -1;
    return info.backend == MGPU_BACKEND_CPU;
}

TEST(peer_path)
{
    mgpu_device devs[MGPU_MAX_DEVICES];
    int n, i, j;
    mgpu_peer_path path;
    TINIT();
    n = t_all_devices(devs);
    for (i = 0; i < n; i++)
        for (j = 0; j < n; j++) {
            mgpu_device a = devs[i], b = devs[j];
            int ab = 0, ba = 0, cpu_a = peer_is_cpu(a), cpu_b = peer_is_cpu(b);
            path = (mgpu_peer_path)-1;
            REQUIRE_OK(mgpu_peer_path_get(a, b, &path));
            CHECK_OK(mgpu_can_access_peer(a, b, &ab));
            CHECK_OK(mgpu_can_access_peer(b, a, &ba));
            if (a == b) CHECK_EQ_INT(path, MGPU_PEER_SAME_DEVICE);
            else if (cpu_a && cpu_b) CHECK_EQ_INT(path, MGPU_PEER_HOST);
            else if (!cpu_a && !cpu_b) CHECK_EQ_INT(path, ab && ba ? MGPU_PEER_DIRECT : MGPU_PEER_STAGED);
            else CHECK(path == MGPU_PEER_HOST || path == MGPU_PEER_STAGED);   /* GPU <-> CPU device */
        }
    path = (mgpu_peer_path)77;
    CHECK_ERR(mgpu_peer_path_get(-1, 0, &path), MGPU_ERROR_INVALID_DEVICE);
    CHECK_ERR(mgpu_peer_path_get(0, 9999, &path), MGPU_ERROR_INVALID_DEVICE);
    CHECK_EQ_INT(path, 77);
    CHECK_ERR(mgpu_peer_path_get(0, 0, NULL), MGPU_ERROR_INVALID_ARGUMENT);
    CHECK_OK(mgpu_shutdown());
}

TEST(enable_peer_access)
{
    mgpu_device devs[MGPU_MAX_DEVICES];
    int n, i, j;
    TINIT();
    n = t_all_devices(devs);
    for (i = 0; i < n; i++)
        for (j = 0; j < n; j++) {
            mgpu_device a = devs[i], b = devs[j];
            int can = 0, cpu_a = peer_is_cpu(a), cpu_b = peer_is_cpu(b);
            CHECK_OK(mgpu_can_access_peer(a, b, &can));
            if (a == b || (cpu_a && cpu_b)) {
                CHECK_OK(mgpu_enable_peer_access(a, b));
            } else if (cpu_a != cpu_b) {
                CHECK_ERR(mgpu_enable_peer_access(a, b), MGPU_ERROR_NOT_SUPPORTED);
            } else if (can) {
                CHECK_OK(mgpu_enable_peer_access(a, b));
                CHECK_OK(mgpu_enable_peer_access(a, b));   /* cached: again is fine */
            } else {
                CHECK_ERR(mgpu_enable_peer_access(a, b), MGPU_ERROR_NOT_SUPPORTED);
            }
        }
    CHECK_ERR(mgpu_enable_peer_access(-1, 0), MGPU_ERROR_INVALID_DEVICE);
    CHECK_ERR(mgpu_enable_peer_access(0, 9999), MGPU_ERROR_INVALID_DEVICE);
    CHECK_OK(mgpu_shutdown());
}

/* One copy of `bytes` from device a to device b, checked with guards on both sides.
   mode 0: mgpu_copy_peer; 1..3: mgpu_copy_peer_async on NULL / a's stream / b's stream.
   pool: the destination comes from mgpu_malloc_async. */
static void peer_copy_one(mgpu_device a, mgpu_device b, const unsigned char *want, size_t bytes,
                          unsigned flags, int mode, int pool, unsigned char *back)
{
    size_t total = bytes + 2 * GUARD;
    unsigned char *src = NULL, *dst = NULL;
    mgpu_stream sa = NULL, sb = NULL, s = NULL;
    char what[200];
    static const char *modes[] = { "mgpu_copy_peer", "async, NULL stream", "async, source stream", "async, destination stream" };
    snprintf(what, sizeof what, "device %d -> %d, %zu bytes, %s%s, into %s memory", a, b, bytes, modes[mode],
             flags & MGPU_COPY_FORCE_STAGED ? ", forced staged" : "", pool ? "pool" : "mgpu_malloc");
    REQUIRE_OK(mgpu_default_stream(a, &sa));
    REQUIRE_OK(mgpu_default_stream(b, &sb));
    REQUIRE_OK(mgpu_set_device(a));
    REQUIRE_OK(mgpu_malloc((void **)&src, bytes + 8));
    CHECK_OK(mgpu_memcpy(src + SRC_OFFSET, want, bytes));
    REQUIRE_OK(mgpu_set_device(b));
    if (pool) REQUIRE_OK(mgpu_malloc_async((void **)&dst, total, sb));
    else REQUIRE_OK(mgpu_malloc((void **)&dst, total));
    CHECK_OK(mgpu_memset_async(dst, 0xEE, total, sb));
    CHECK_OK(mgpu_stream_synchronize(sb));
    if (mode == 0) {
        CHECK_OK(mgpu_copy_peer(dst + GUARD, src + SRC_OFFSET, bytes, flags));
    } else {
        s = mode == 1 ? NULL : mode == 2 ? sa : sb;
        CHECK_OK(mgpu_copy_peer_async(dst + GUARD, src + SRC_OFFSET, bytes, flags, s));
        CHECK_OK(mgpu_stream_synchronize(s ? s : sb));   /* NULL: the destination's default stream */
    }
    memset(back, 0, total);
    CHECK_OK(mgpu_memcpy(back, dst, total));
    CHECK_MEM(back + GUARD, want, bytes, what);
    CHECK_BYTES(back, 0xEE, GUARD, what);
    CHECK_BYTES(back + GUARD + bytes, 0xEE, GUARD, what);
    CHECK_OK(mgpu_free(src));
    if (pool) {
        CHECK_OK(mgpu_free_async(dst, sb));
        CHECK_OK(mgpu_stream_synchronize(sb));
    } else {
        CHECK_OK(mgpu_free(dst));
    }
}

/* Every ordered pair (the same device included), direct and forced staged, sizes 1, 4097
   and 33 MiB + 5 (more than four 8 MiB staging chunks, ending mid-chunk), into device and
   pool memory, synchronous and asynchronous on each stream choice. */
TEST(copy_peer)
{
    static const size_t sizes[] = { 1, 4097, ((size_t)33 << 20) + 5 };
    mgpu_device devs[MGPU_MAX_DEVICES];
    int n, i, j, f, pool, mode, turn = 0;
    size_t k;
    TINIT();
    n = t_all_devices(devs);
    for (k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        size_t bytes = sizes[k];
        unsigned char *want = (unsigned char *)tmalloc(bytes), *back = (unsigned char *)tmalloc(bytes + 2 * GUARD);
        t_fill(want, bytes);
        for (i = 0; i < n; i++)
            for (j = 0; j < n; j++)
                for (f = 0; f < 2; f++)
                    for (pool = 0; pool < 2; pool++) {
                        unsigned flags = f ? MGPU_COPY_FORCE_STAGED : 0u;
                        peer_copy_one(devs[i], devs[j], want, bytes, flags, 0, pool, back);
                        mode = 1 + turn++ % 3;          /* rotate the stream choice */
                        peer_copy_one(devs[i], devs[j], want, bytes, flags, mode, pool, back);
                        if (t_failed() > 8) return;     /* enough to go on */
                    }
    }
    CHECK_OK(mgpu_shutdown());
}

TEST(copy_peer_args)
{
    unsigned char *p = NULL, *q = NULL, host[16];
    TINIT();
    REQUIRE_OK(mgpu_malloc((void **)&p, 4096));
    REQUIRE_OK(mgpu_malloc((void **)&q, 4096));
    CHECK_ERR(mgpu_copy_peer(q, p, 16, 2u), MGPU_ERROR_INVALID_ARGUMENT);
    CHECK_ERR(mgpu_copy_peer(q, p, 16, ~0u), MGPU_ERROR_INVALID_ARGUMENT);
    CHECK_ERR(mgpu_copy_peer_async(q, p, 16, 4u, NULL), MGPU_ERROR_INVALID_ARGUMENT);
    CHECK_ERR(mgpu_copy_peer(NULL, p, 16, 0), MGPU_ERROR_INVALID_ARGUMENT);
    CHECK_ERR(mgpu_copy_peer(q, NULL, 16, 0), MGPU_ERROR_INVALID_ARGUMENT);
    CHECK_ERR(mgpu_copy_peer_async(NULL, p, 16, 0, NULL), MGPU_ERROR_INVALID_ARGUMENT);
    CHECK_OK(mgpu_copy_peer(q, p, 0, 0));
    CHECK_OK(mgpu_copy_peer_async(q, p, 0, MGPU_COPY_FORCE_STAGED, NULL));
    /* host memory on either side is a plain copy */
    t_fill(host, sizeof host);
    CHECK_OK(mgpu_copy_peer(p, host, sizeof host, 0));
    memset(host, 0, sizeof host);
    CHECK_OK(mgpu_copy_peer(host, p, sizeof host, MGPU_COPY_FORCE_STAGED));
    CHECK_OK(mgpu_copy_peer(q, p, sizeof host, 0));
    {
        unsigned char back[16];
        CHECK_OK(mgpu_memcpy(back, q, sizeof back));
        CHECK_MEM(back, host, sizeof back, "host -> device -> host -> device through mgpu_copy_peer");
    }
    CHECK_OK(mgpu_free(p));
    CHECK_OK(mgpu_free(q));
    CHECK_OK(mgpu_shutdown());
}
