/* readme_peer.c - the program for copies between devices in docs/api.md (keep the two identical).
   Copies 64 MiB from the first device's memory to the last device's and says which path it took:
   direct (peer access), staged through pinned host memory, or a host copy (CPU devices). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mgpu.h"

#define CHECK(call) do { mgpu_result r_ = (call); if (r_ != MGPU_SUCCESS) { \
    fprintf(stderr, "%s: %s\n", #call, mgpu_last_error()); exit(1); } } while (0)

#define BYTES ((size_t)64 << 20)

int main(void)
{
    static const char *const names[] = { "same device", "direct", "staged", "host" };
    unsigned char *host = malloc(BYTES), *a, *b;
    mgpu_device first = 0, last;
    mgpu_peer_path path;
    size_t i, bad = 0;

    CHECK(mgpu_init(NULL));
    last = mgpu_device_count() - 1;             /* device 0 again if there is only one */
    if (!host) return 1;
    for (i = 0; i < BYTES; i++) host[i] = (unsigned char)(i % 251);
    CHECK(mgpu_set_device(first));
    CHECK(mgpu_malloc((void **)&a, BYTES));
    CHECK(mgpu_memcpy(a, host, BYTES));
    CHECK(mgpu_set_device(last));
    CHECK(mgpu_malloc((void **)&b, BYTES));

    CHECK(mgpu_peer_path_get(first, last, &path));
    CHECK(mgpu_copy_peer(b, a, BYTES, 0));      /* MGPU_COPY_FORCE_STAGED to skip peer access */
    memset(host, 0, BYTES);
    CHECK(mgpu_memcpy(host, b, BYTES));
    for (i = 0; i < BYTES; i++) bad += host[i] != (unsigned char)(i % 251);
    printf("64 MiB from device %d to device %d, path %s: %s\n", first, last, names[path],
           bad ? "WRONG" : "correct");

    CHECK(mgpu_free(a));
    CHECK(mgpu_free(b));
    free(host);
    return mgpu_shutdown() == MGPU_SUCCESS && !bad ? 0 : 1;
}
