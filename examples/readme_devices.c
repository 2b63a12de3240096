/* readme_devices.c - the program for devices and binding in docs/api.md (keep the two identical).
   Lists the devices, binds this thread to each in turn, picks the fastest with mgpu_device_select
   and starts one thread bound to it. Without a GPU: MGPU_CPU_DEVICES=4 gives four CPU devices. */
#include <stdio.h>
#include <stdlib.h>
#include "mgpu.h"

#define CHECK(call) do { mgpu_result r_ = (call); if (r_ != MGPU_SUCCESS) { \
    fprintf(stderr, "%s: %s\n", #call, mgpu_last_error()); exit(1); } } while (0)

static mgpu_result worker(mgpu_device dev, int index, void *arg)   /* starts bound to dev */
{
    mgpu_device bound = -1;
    (void)index; (void)arg;
    mgpu_get_device(&bound);
    printf("worker thread bound to device %d\n", bound);
    return bound == dev ? MGPU_SUCCESS : MGPU_ERROR_WRONG_DEVICE;
}

int main(void)
{
    mgpu_desc desc = {0};            /* desc.cpu_devices = 4: four CPU devices without a GPU */
    mgpu_device_criteria want = {0}; /* zero: any device of the default backend */
    mgpu_device best[MGPU_MAX_DEVICES];
    mgpu_result result;
    mgpu_thread thread;
    const char *why;
    int d, count;

    CHECK(mgpu_init(&desc));         /* CUDA devices if any, else CPU devices */
    if (mgpu_cuda_status(&why) != MGPU_SUCCESS) printf("CPU backend: %s\n", why);
    for (d = 0; d < mgpu_device_count(); d++) {
        mgpu_device_info info;
        CHECK(mgpu_set_device(d));   /* this thread's allocations and NULL streams: device d */
        CHECK(mgpu_device_info_get(d, &info));
        printf("device %d: %s, %d multiprocessors, %zu MiB\n", d, info.name, info.multiprocessors,
               info.total_memory >> 20);
    }
    printf("CPU device 0 (a reference next to the GPUs) is device %d\n", mgpu_cpu_device(0));

    want.min_memory = (size_t)1 << 30;              /* at least 1 GiB; fastest first */
    CHECK(mgpu_device_select(&want, best, MGPU_MAX_DEVICES, &count));
    printf("%d device(s) with 1 GiB or more\n", count);
    CHECK(mgpu_run_on_device(count > 0 ? best[0] : 0, worker, NULL, &thread));
    CHECK(mgpu_thread_join(thread, &result));
    CHECK(result);
    return mgpu_shutdown() == MGPU_SUCCESS ? 0 : 1;
}
