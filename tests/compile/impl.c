/* The implementation in one file: mgpu_init, mgpu_shutdown, silent on success.
   Built by tests/compile_matrix.sh as C99, C11 and C++17 with gcc and clang. */
#define MGPU_IMPLEMENTATION
#include "mgpu.h"
#include <stdio.h>

int main(void)
{
    mgpu_result r = mgpu_init(NULL);
    if (r != MGPU_SUCCESS) {
        fprintf(stderr, "mgpu_init: %s: %s\n", mgpu_result_string(r), mgpu_last_error());
        return 1;
    }
    r = mgpu_shutdown();
    if (r != MGPU_SUCCESS) {
        fprintf(stderr, "mgpu_shutdown: %s: %s\n", mgpu_result_string(r), mgpu_last_error());
        return 1;
    }
    return 0;
}
