/* The second vendored copy of mgpu; see static_a.c. */
#define MGPU_STATIC
#define MGPU_IMPLEMENTATION
#include "mgpu.h"
#include <stdio.h>

int static_b_run(void);

int static_b_run(void)
{
    mgpu_result r = mgpu_init(NULL);
    if (r != MGPU_SUCCESS) {
        fprintf(stderr, "static_b: mgpu_init: %s: %s\n", mgpu_result_string(r), mgpu_last_error());
        return 1;
    }
    r = mgpu_shutdown();
    if (r != MGPU_SUCCESS) {
        fprintf(stderr, "static_b: mgpu_shutdown: %s: %s\n", mgpu_result_string(r), mgpu_last_error());
        return 1;
    }
    return 0;
}
