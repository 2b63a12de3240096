/* One of two vendored copies of mgpu in one program (with static_b.c): MGPU_STATIC makes
   every function static, so the two implementations link side by side. */
#define MGPU_STATIC
#define MGPU_IMPLEMENTATION
#include "mgpu.h"
#include <stdio.h>

int static_b_run(void);

static int static_a_run(void)
{
    mgpu_result r = mgpu_init(NULL);
    if (r != MGPU_SUCCESS) {
        fprintf(stderr, "static_a: mgpu_init: %s: %s\n", mgpu_result_string(r), mgpu_last_error());
        return 1;
    }
    r = mgpu_shutdown();
    if (r != MGPU_SUCCESS) {
        fprintf(stderr, "static_a: mgpu_shutdown: %s: %s\n", mgpu_result_string(r), mgpu_last_error());
        return 1;
    }
    return 0;
}

int main(void)
{
    /* a's copy, then b's, then both initialized at once: their states are separate */
    if (static_a_run() != 0 || static_b_run() != 0) return 1;
    if (mgpu_init(NULL) != MGPU_SUCCESS) return 1;
    if (static_b_run() != 0) return 1;
    return mgpu_shutdown() == MGPU_SUCCESS ? 0 : 1;
}
