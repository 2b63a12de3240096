/* readme_interop.c - blur Vulkan frames in place on their GPU (docs/interop.md). A Vulkan
   program hands over its device's UUID, the fd and size of a dedicated allocation holding
   two RGBA frames, and a timeline semaphore's fd; it signals n when frame n is written, and
   waits for n + 1 to read the blurred one. Run alone, it shows the refusal of a missing fd. */
#include <stdio.h>
#include "mgpu.h"

static mgpu_result blur_frames(const uint8_t uuid[16], int mem_fd, uint64_t alloc_size, int sem_fd,
                               int width, int height, int frames)
{
    mgpu_device dev;
    mgpu_external_memory_desc md = { MGPU_EXTERNAL_MEMORY_OPAQUE_FD, mem_fd, NULL, alloc_size, MGPU_EXTERNAL_DEDICATED };
    mgpu_external_semaphore_desc sd = { MGPU_EXTERNAL_SEMAPHORE_TIMELINE_FD, sem_fd, NULL };
    mgpu_external_memory mem;
    mgpu_external_semaphore sem;
    mgpu_image frame = { NULL, 0, 0, 4, 0, MGPU_PIXEL_U8 }, blurred;
    size_t bytes = (size_t)width * (size_t)height * 4;
    mgpu_result r;
    int n;
    if ((r = mgpu_device_from_uuid(uuid, &dev)) != MGPU_SUCCESS) return r;
    if ((r = mgpu_external_memory_import(dev, &md, &mem)) != MGPU_SUCCESS) return r;   /* the fd is still ours */
    if ((r = mgpu_external_semaphore_import(dev, &sd, &sem)) == MGPU_SUCCESS &&
        (r = mgpu_external_memory_buffer(mem, 0, 2 * bytes, &frame.data)) == MGPU_SUCCESS &&
        (r = mgpu_set_device(dev)) == MGPU_SUCCESS) {
        frame.width = width;
        frame.height = height;
        blurred = frame;
        blurred.data = (char *)frame.data + bytes;
        for (n = 0; n < frames && r == MGPU_SUCCESS; n++) {            /* the default stream of dev */
            r = mgpu_external_semaphore_wait_async(sem, 2 * (uint64_t)n + 1, NULL);
            if (r == MGPU_SUCCESS) r = mgpu_blur_async(&frame, &blurred, NULL, NULL);
            if (r == MGPU_SUCCESS) r = mgpu_external_semaphore_signal_async(sem, 2 * (uint64_t)n + 2, NULL);
        }
        if (r == MGPU_SUCCESS) r = mgpu_device_synchronize(dev);
        mgpu_external_semaphore_destroy(sem);
    }
    mgpu_external_memory_destroy(mem);
    return r;
}

int main(void)
{
    mgpu_device_info info;
    mgpu_result r;
    mgpu_init(NULL);
    mgpu_device_info_get(0, &info);
    r = blur_frames(info.uuid, -1, 1 << 20, -1, 256, 256, 1);
    printf("without a Vulkan program: %s (%s)\n", mgpu_result_string(r), mgpu_last_error());
    mgpu_shutdown();
    return r == MGPU_ERROR_NOT_SUPPORTED || r == MGPU_ERROR_EXTERNAL_HANDLE ? 0 : 1;
}
