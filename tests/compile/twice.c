/* mgpu.h through a user header, more than once: declarations only, then with
   MGPU_IMPLEMENTATION, then again; each piece must appear exactly once. */
#include "user.h"
#define MGPU_IMPLEMENTATION
#include "user.h"
#include "user.h"
#include "mgpu.h"
#include <stdio.h>

int user_device_count(void)
{
    return mgpu_device_count();
}

int main(void)
{
    mgpu_result r = mgpu_init(NULL);
    if (r != MGPU_SUCCESS) {
        fprintf(stderr, "mgpu_init: %s: %s\n", mgpu_result_string(r), mgpu_last_error());
        return 1;
    }
    if (user_device_count() < 1) {
        fprintf(stderr, "mgpu_device_count: no device after a successful mgpu_init\n");
        return 1;
    }
    return mgpu_shutdown() == MGPU_SUCCESS ? 0 : 1;
}
