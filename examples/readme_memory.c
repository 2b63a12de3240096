/* readme_memory.c - the program for memory, streams and events in docs/api.md (keep the two identical).
   Pinned host memory, device memory and stream-ordered pool memory; copies, a fill, a built-in
   kernel and two timing events queued in order on one stream, then one wait. */
#include <stdio.h>
#include <stdlib.h>
#include "mgpu.h"

#define CHECK(call) do { mgpu_result r_ = (call); if (r_ != MGPU_SUCCESS) { \
    fprintf(stderr, "%s: %s\n", #call, mgpu_last_error()); exit(1); } } while (0)

#define N (1 << 20)

int main(void)
{
    float *host, *x, *y, ms;
    mgpu_stream s;
    mgpu_event start, end;
    int i;

    CHECK(mgpu_init(NULL));                                     /* binds this thread to device 0 */
    CHECK(mgpu_malloc_host((void **)&host, N * sizeof *host));  /* pinned: fast, truly async copies */
    CHECK(mgpu_malloc((void **)&x, N * sizeof *x));             /* on the bound device */
    CHECK(mgpu_stream_create(&s));
    CHECK(mgpu_malloc_async((void **)&y, N * sizeof *y, s));    /* from the device's pool, in order on s */
    CHECK(mgpu_event_create(&start));
    CHECK(mgpu_event_create(&end));
    for (i = 0; i < N; i++) host[i] = (float)i;

    CHECK(mgpu_event_record(start, s));
    CHECK(mgpu_memcpy_async(x, host, N * sizeof *x, s));        /* host -> device */
    CHECK(mgpu_memset_async(y, 0, N * sizeof *y, s));
    CHECK(mgpu_axpy_f32(N, 2.0f, x, y, s));                     /* y = 2 x + y */
    CHECK(mgpu_memcpy_async(host, y, N * sizeof *y, s));        /* device -> host */
    CHECK(mgpu_event_record(end, s));
    CHECK(mgpu_stream_synchronize(s));                          /* the one wait */
    CHECK(mgpu_event_elapsed_ms(start, end, &ms));
    for (i = 0; i < N; i++)
        if (host[i] != 2.0f * (float)i) { fprintf(stderr, "host[%d] = %g\n", i, host[i]); return 1; }
    printf("y = 2 x: %d values correct, %.3f ms on the stream\n", N, ms);

    CHECK(mgpu_free_async(y, s));
    CHECK(mgpu_event_destroy(start));
    CHECK(mgpu_event_destroy(end));
    CHECK(mgpu_stream_destroy(s));                              /* waits for its work */
    CHECK(mgpu_free(x));
    CHECK(mgpu_free_host(host));
    return mgpu_shutdown() == MGPU_SUCCESS ? 0 : 1;
}
