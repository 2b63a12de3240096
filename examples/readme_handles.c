/* readme_handles.c - the program for checked handles in docs/reliability.md (keep the two identical).
   A destroyed stream, a handle of another kind and a handle from before mgpu_shutdown are
   each MGPU_ERROR_INVALID_HANDLE, never a crash; mgpu goes on working. */
#include <stdio.h>
#include "mgpu.h"

#define EXPECT(call, want) do { mgpu_result r_ = (call); if (r_ != (want)) { \
    fprintf(stderr, "%s: %s\n", #call, mgpu_result_string(r_)); return 1; } } while (0)

int main(void)
{
    mgpu_stream s, old;
    mgpu_event ev;

    EXPECT(mgpu_init(NULL), MGPU_SUCCESS);
    EXPECT(mgpu_stream_create(&s), MGPU_SUCCESS);
    EXPECT(mgpu_stream_destroy(s), MGPU_SUCCESS);
    EXPECT(mgpu_stream_synchronize(s), MGPU_ERROR_INVALID_HANDLE);      /* destroyed */
    printf("%s\n", mgpu_last_error());
    EXPECT(mgpu_event_create(&ev), MGPU_SUCCESS);
    EXPECT(mgpu_stream_destroy((mgpu_stream)(void *)ev), MGPU_ERROR_INVALID_HANDLE);   /* an event */
    EXPECT(mgpu_event_destroy(ev), MGPU_SUCCESS);

    EXPECT(mgpu_stream_create(&old), MGPU_SUCCESS);
    EXPECT(mgpu_shutdown(), MGPU_SUCCESS);                              /* releases old */
    EXPECT(mgpu_init(NULL), MGPU_SUCCESS);
    EXPECT(mgpu_stream_synchronize(old), MGPU_ERROR_INVALID_HANDLE);    /* from the last cycle */
    EXPECT(mgpu_stream_synchronize(NULL), MGPU_SUCCESS);                /* NULL: the default stream */
    return mgpu_shutdown() == MGPU_SUCCESS ? 0 : 1;
}
