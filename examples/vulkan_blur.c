/* vulkan_blur.c - mgpu blurs Vulkan memory in place: a headless Vulkan program (an instance
   and a device, no surface) exports a buffer, an optimal-tiled image and a timeline
   semaphore; mgpu imports them on the GPU whose UUID the Vulkan device has, waits for the
   semaphore, blurs, signals it; Vulkan reads the result back and the program checks it, bit
   for bit, against the CPU device's blur of the same random bytes. Then the same through
   OpenGL: a surfaceless EGL context on that GPU imports the Vulkan allocation as a GL buffer
   and two binary semaphores (GL_EXT_memory_object_fd, GL_EXT_semaphore_fd); GL writes,
   mgpu blurs, GL reads (skipped with a line where EGL or its headers are missing).

   usage: vulkan_blur            the check (prints ok; "skip: ..." and exit 0 where there is
                                 no Vulkan device that is an mgpu GPU)
          vulkan_blur --bench    the check, then the measurements of docs/interop.md: a 4K
                                 RGBA frame loop (Vulkan writes, semaphore, mgpu blurs,
                                 semaphore, Vulkan reads) against the host round trip, the
                                 semaphore hand-over each way, an imported 8K RGBA buffer's
                                 blur against mgpu_malloc memory's, the tiled image's against
                                 the buffer's

   Needs the Vulkan headers to build (Debian: libvulkan-dev; for the GL part libegl-dev and
   libgl-dev) and libvulkan.so.1 (libEGL.so.1) with a driver to run; it loads them at run
   time (no -lvulkan, -lEGL). Linux (OPAQUE_FD handles).
   Build (the Makefile does this): cc -std=c99 -I. examples/vulkan_blur.c build/mgpu.o -ldl -lpthread */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "mgpu.h"

#if defined(__linux__) && defined(__has_include)
#if __has_include(<vulkan/vulkan.h>)
#define HAVE_VULKAN 1
#endif
#endif

#ifndef HAVE_VULKAN
int main(void)
{
    printf("skip: vulkan_blur was built without the Vulkan headers (Linux, libvulkan-dev)\n");
    return 0;
}
#else
#define VK_NO_PROTOTYPES
#include <vulkan/vulkan.h>
#include <dlfcn.h>
#include <unistd.h>

/* ---- the Vulkan entry points, from libvulkan.so.1 at run time */
#define VK_INSTANCE_FUNCS(X) X(vkEnumeratePhysicalDevices) X(vkGetPhysicalDeviceProperties2) \
    X(vkGetPhysicalDeviceQueueFamilyProperties) X(vkGetPhysicalDeviceMemoryProperties) X(vkCreateDevice) \
    X(vkGetDeviceProcAddr) X(vkDestroyInstance)
#define VK_DEVICE_FUNCS(X) X(vkGetDeviceQueue) X(vkDestroyDevice) X(vkCreateBuffer) X(vkDestroyBuffer) \
    X(vkGetBufferMemoryRequirements) X(vkAllocateMemory) X(vkFreeMemory) X(vkBindBufferMemory) X(vkMapMemory) \
    X(vkCreateImage) X(vkDestroyImage) X(vkGetImageMemoryRequirements) X(vkBindImageMemory) X(vkCreateCommandPool) \
    X(vkDestroyCommandPool) X(vkAllocateCommandBuffers) X(vkBeginCommandBuffer) X(vkEndCommandBuffer) \
    X(vkCmdCopyBuffer) X(vkCmdCopyBufferToImage) X(vkCmdCopyImageToBuffer) X(vkCmdPipelineBarrier) X(vkQueueSubmit) \
    X(vkCreateSemaphore) X(vkDestroySemaphore) X(vkWaitSemaphores) X(vkCreateFence) X(vkDestroyFence) \
    X(vkWaitForFences) X(vkResetFences) X(vkGetMemoryFdKHR) X(vkGetSemaphoreFdKHR) X(vkDeviceWaitIdle)
#define VK_FIELD(name) PFN_##name name;
static struct { PFN_vkGetInstanceProcAddr gipa; PFN_vkCreateInstance vkCreateInstance;
                VK_INSTANCE_FUNCS(VK_FIELD) VK_DEVICE_FUNCS(VK_FIELD) } vk;

static VkInstance inst;
static VkPhysicalDevice phys;
static VkDevice dev;
static VkQueue queue;
static uint32_t family;
static VkCommandPool pool;
static VkFence fence;
static VkPhysicalDeviceMemoryProperties memprops;
static mgpu_device gpu;                 /* the mgpu device that is the Vulkan device */

#define VK_OK(call) do { VkResult e_ = (call); if (e_ != VK_SUCCESS) { \
    fprintf(stderr, "%s:%d: %s: VkResult %d\n", __FILE__, __LINE__, #call, (int)e_); exit(1); } } while (0)
#define MG_OK(call) do { mgpu_result r_ = (call); if (r_ != MGPU_SUCCESS) { \
    fprintf(stderr, "%s:%d: %s: %s: %s\n", __FILE__, __LINE__, #call, mgpu_result_string(r_), mgpu_last_error()); exit(1); } } while (0)

static double now_us(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e6 + (double)t.tv_nsec * 1e-3;
}
static void pause_ms(int ms)
{
    struct timespec t;
    t.tv_sec = 0;
    t.tv_nsec = (long)ms * 1000000L;
    nanosleep(&t, NULL);
}
static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}
static double median(double *v, int n) { qsort(v, (size_t)n, sizeof *v, cmp_double); return v[n / 2]; }
static uint64_t rng = 0x9e3779b97f4a7c15ull;
static void fill_random(unsigned char *p, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++) { rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17; p[i] = (unsigned char)(rng >> 24); }
}

/* The instance and the device that is an mgpu GPU (by UUID), with the external fd and
   timeline semaphore extensions. 0 with a reason printed if there is none. */
static int vk_open(void)
{
    static const char *const exts[] = { VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME, VK_KHR_EXTERNAL_SEMAPHORE_FD_EXTENSION_NAME };
    VkApplicationInfo app;
    VkInstanceCreateInfo ici;
    VkPhysicalDevice list[16];
    uint32_t n = 16, i, nq = 16;
    VkQueueFamilyProperties qp[16];
    float prio = 1.0f;
    VkDeviceQueueCreateInfo qci;
    VkPhysicalDeviceTimelineSemaphoreFeatures tl;
    VkDeviceCreateInfo dci;
    VkCommandPoolCreateInfo pci;
    VkFenceCreateInfo fci;
    void *lib = dlopen("libvulkan.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib) { printf("skip: libvulkan.so.1 not found (%s)\n", dlerror()); return 0; }
    *(void **)&vk.gipa = dlsym(lib, "vkGetInstanceProcAddr");
    if (!vk.gipa) { printf("skip: libvulkan.so.1 has no vkGetInstanceProcAddr\n"); return 0; }
    vk.vkCreateInstance = (PFN_vkCreateInstance)vk.gipa(NULL, "vkCreateInstance");
    memset(&app, 0, sizeof app);
    app.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO;
    app.pApplicationName = "mgpu vulkan_blur";
    app.apiVersion = VK_API_VERSION_1_2;
    memset(&ici, 0, sizeof ici);
    ici.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO;
    ici.pApplicationInfo = &app;
    if (!vk.vkCreateInstance || vk.vkCreateInstance(&ici, NULL, &inst) != VK_SUCCESS) {
        printf("skip: no Vulkan 1.2 instance (no driver?)\n");
        return 0;
    }
#define VK_LOAD_I(name) vk.name = (PFN_##name)vk.gipa(inst, #name);
    VK_INSTANCE_FUNCS(VK_LOAD_I)
    if (vk.vkEnumeratePhysicalDevices(inst, &n, list) < 0) n = 0;
    phys = VK_NULL_HANDLE;
    for (i = 0; i < n && !phys; i++) {
        VkPhysicalDeviceIDProperties id;
        VkPhysicalDeviceProperties2 p;
        memset(&id, 0, sizeof id);
        id.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ID_PROPERTIES;
        memset(&p, 0, sizeof p);
        p.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2;
        p.pNext = &id;
        vk.vkGetPhysicalDeviceProperties2(list[i], &p);
        if (p.properties.apiVersion >= VK_API_VERSION_1_2 && mgpu_device_from_uuid(id.deviceUUID, &gpu) == MGPU_SUCCESS) {
            mgpu_device_info info;
            mgpu_device_info_get(gpu, &info);
            if (info.backend == MGPU_BACKEND_CUDA) {
                phys = list[i];
                printf("Vulkan device %u \"%s\" (driver %u.%u) is mgpu device %d (%s, UUID %s, CUDA driver %d)\n", i,
                       p.properties.deviceName, p.properties.driverVersion >> 22, (p.properties.driverVersion >> 14) & 0xff, gpu,
                       info.name, info.uuid_string, mgpu_driver_version());
            }
        }
    }
    if (!phys) { printf("skip: none of the %u Vulkan devices is an mgpu GPU (by UUID)\n", n); return 0; }
    vk.vkGetPhysicalDeviceQueueFamilyProperties(phys, &nq, qp);
    for (family = 0; family < nq && !(qp[family].queueFlags & (VK_QUEUE_GRAPHICS_BIT | VK_QUEUE_COMPUTE_BIT)); family++) {}
    if (family == nq) { printf("skip: the Vulkan device has no graphics or compute queue\n"); return 0; }
    memset(&qci, 0, sizeof qci);
    qci.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO;
    qci.queueFamilyIndex = family;
    qci.queueCount = 1;
    qci.pQueuePriorities = &prio;
    memset(&tl, 0, sizeof tl);
    tl.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_TIMELINE_SEMAPHORE_FEATURES;
    tl.timelineSemaphore = VK_TRUE;
    memset(&dci, 0, sizeof dci);
    dci.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO;
    dci.pNext = &tl;
    dci.queueCreateInfoCount = 1;
    dci.pQueueCreateInfos = &qci;
    dci.enabledExtensionCount = 2;
    dci.ppEnabledExtensionNames = exts;
    if (vk.vkCreateDevice(phys, &dci, NULL, &dev) != VK_SUCCESS) {
        printf("skip: the Vulkan device lacks VK_KHR_external_memory_fd / VK_KHR_external_semaphore_fd / timeline semaphores\n");
        return 0;
    }
#define VK_LOAD_D(name) vk.name = (PFN_##name)vk.vkGetDeviceProcAddr(dev, #name);
    VK_DEVICE_FUNCS(VK_LOAD_D)
    vk.vkGetDeviceQueue(dev, family, 0, &queue);
    vk.vkGetPhysicalDeviceMemoryProperties(phys, &memprops);
    memset(&pci, 0, sizeof pci);
    pci.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO;
    pci.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
    pci.queueFamilyIndex = family;
    VK_OK(vk.vkCreateCommandPool(dev, &pci, NULL, &pool));
    memset(&fci, 0, sizeof fci);
    fci.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO;
    VK_OK(vk.vkCreateFence(dev, &fci, NULL, &fence));
    return 1;
}

static uint32_t mem_type(uint32_t bits, VkMemoryPropertyFlags want)
{
    uint32_t i;
    for (i = 0; i < memprops.memoryTypeCount; i++)
        if ((bits >> i & 1) && (memprops.memoryTypes[i].propertyFlags & want) == want) return i;
    fprintf(stderr, "no Vulkan memory type with flags %#x\n", (unsigned)want);
    exit(1);
}

/* A buffer or an image with its own (dedicated) memory; exported ones get OPAQUE_FD. */
typedef struct vres { VkBuffer buf; VkImage img; VkDeviceMemory mem; VkDeviceSize alloc; void *map; } vres;
static void allocate(vres *r, VkMemoryRequirements req, VkMemoryPropertyFlags props, int exported)
{
    VkExportMemoryAllocateInfo ex;
    VkMemoryDedicatedAllocateInfo ded;
    VkMemoryAllocateInfo ai;
    memset(&ex, 0, sizeof ex);
    ex.sType = VK_STRUCTURE_TYPE_EXPORT_MEMORY_ALLOCATE_INFO;
    ex.handleTypes = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;
    memset(&ded, 0, sizeof ded);
    ded.sType = VK_STRUCTURE_TYPE_MEMORY_DEDICATED_ALLOCATE_INFO;
    ded.pNext = exported ? &ex : NULL;
    ded.buffer = r->buf;
    ded.image = r->img;
    memset(&ai, 0, sizeof ai);
    ai.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO;
    ai.pNext = &ded;
    ai.allocationSize = req.size;
    ai.memoryTypeIndex = mem_type(req.memoryTypeBits, props);
    VK_OK(vk.vkAllocateMemory(dev, &ai, NULL, &r->mem));
    r->alloc = req.size;
    if (props & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT) VK_OK(vk.vkMapMemory(dev, r->mem, 0, VK_WHOLE_SIZE, 0, &r->map));
}
static vres make_buffer(VkDeviceSize size, int exported, int host)
{
    VkExternalMemoryBufferCreateInfo ext;
    VkBufferCreateInfo bi;
    VkMemoryRequirements req;
    vres r;
    memset(&r, 0, sizeof r);
    memset(&ext, 0, sizeof ext);
    ext.sType = VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_BUFFER_CREATE_INFO;
    ext.handleTypes = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;
    memset(&bi, 0, sizeof bi);
    bi.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO;
    bi.pNext = exported ? &ext : NULL;
    bi.size = size;
    bi.usage = VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT | VK_BUFFER_USAGE_STORAGE_BUFFER_BIT;
    VK_OK(vk.vkCreateBuffer(dev, &bi, NULL, &r.buf));
    vk.vkGetBufferMemoryRequirements(dev, r.buf, &req);
    allocate(&r, req, host ? VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT
                           : VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, exported);
    VK_OK(vk.vkBindBufferMemory(dev, r.buf, r.mem, 0));
    return r;
}
/* An exported optimal-tiled image of format fmt (storage usage: mgpu maps it with that flag). */
static vres make_image_of(int w, int h, VkFormat fmt)
{
    VkExternalMemoryImageCreateInfo ext;
    VkImageCreateInfo ii;
    VkMemoryRequirements req;
    vres r;
    memset(&r, 0, sizeof r);
    memset(&ext, 0, sizeof ext);
    ext.sType = VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_IMAGE_CREATE_INFO;
    ext.handleTypes = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;
    memset(&ii, 0, sizeof ii);
    ii.sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO;
    ii.pNext = &ext;
    ii.imageType = VK_IMAGE_TYPE_2D;
    ii.format = fmt;
    ii.extent.width = (uint32_t)w;
    ii.extent.height = (uint32_t)h;
    ii.extent.depth = 1;
    ii.mipLevels = 1;
    ii.arrayLayers = 1;
    ii.samples = VK_SAMPLE_COUNT_1_BIT;
    ii.tiling = VK_IMAGE_TILING_OPTIMAL;
    ii.usage = VK_IMAGE_USAGE_TRANSFER_SRC_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT | VK_IMAGE_USAGE_STORAGE_BIT;
    ii.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
    ii.initialLayout = VK_IMAGE_LAYOUT_UNDEFINED;
    VK_OK(vk.vkCreateImage(dev, &ii, NULL, &r.img));
    vk.vkGetImageMemoryRequirements(dev, r.img, &req);
    allocate(&r, req, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, 1);
    VK_OK(vk.vkBindImageMemory(dev, r.img, r.mem, 0));
    return r;
}
static vres make_image(int w, int h) { return make_image_of(w, h, VK_FORMAT_R8G8B8A8_UNORM); }
static void destroy(vres *r)
{
    if (r->buf) vk.vkDestroyBuffer(dev, r->buf, NULL);
    if (r->img) vk.vkDestroyImage(dev, r->img, NULL);
    vk.vkFreeMemory(dev, r->mem, NULL);
}

/* A new fd of an exported allocation (each import takes its own). */
static int memory_fd(const vres *r)
{
    VkMemoryGetFdInfoKHR gi;
    int fd = -1;
    memset(&gi, 0, sizeof gi);
    gi.sType = VK_STRUCTURE_TYPE_MEMORY_GET_FD_INFO_KHR;
    gi.memory = r->mem;
    gi.handleType = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;
    VK_OK(vk.vkGetMemoryFdKHR(dev, &gi, &fd));
    return fd;
}
/* The allocation imported into mgpu: its fd (the driver owns it then), its whole size,
   dedicated. */
static mgpu_external_memory import_memory(const vres *r)
{
    mgpu_external_memory_desc d;
    mgpu_external_memory m = NULL;
    mgpu_result res;
    int fd = memory_fd(r);
    memset(&d, 0, sizeof d);
    d.type = MGPU_EXTERNAL_MEMORY_OPAQUE_FD;
    d.fd = fd;
    d.size = r->alloc;
    d.flags = MGPU_EXTERNAL_DEDICATED;
    if ((res = mgpu_external_memory_import(gpu, &d, &m)) != MGPU_SUCCESS) {
        close(fd);                       /* a failed import leaves the fd ours */
        MG_OK(res);
    }
    return m;
}
/* A new fd of an exported semaphore. */
static int semaphore_fd(VkSemaphore s)
{
    VkSemaphoreGetFdInfoKHR gi;
    int fd = -1;
    memset(&gi, 0, sizeof gi);
    gi.sType = VK_STRUCTURE_TYPE_SEMAPHORE_GET_FD_INFO_KHR;
    gi.semaphore = s;
    gi.handleType = VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD_BIT;
    VK_OK(vk.vkGetSemaphoreFdKHR(dev, &gi, &fd));
    return fd;
}
static void import_semaphore(VkSemaphore s, int timeline, mgpu_external_semaphore *sem)
{
    mgpu_external_semaphore_desc d;
    mgpu_result res;
    int fd = semaphore_fd(s);
    memset(&d, 0, sizeof d);
    d.type = timeline ? MGPU_EXTERNAL_SEMAPHORE_TIMELINE_FD : MGPU_EXTERNAL_SEMAPHORE_OPAQUE_FD;
    d.fd = fd;
    if ((res = mgpu_external_semaphore_import(gpu, &d, sem)) != MGPU_SUCCESS) { close(fd); MG_OK(res); }
}
/* A timeline (else binary) semaphore, exported and imported into mgpu as *sem (NULL: Vulkan's alone). */
static VkSemaphore make_semaphore(int timeline, mgpu_external_semaphore *sem)
{
    VkSemaphoreTypeCreateInfo ti;
    VkExportSemaphoreCreateInfo ex;
    VkSemaphoreCreateInfo si;
    VkSemaphore s;
    memset(&ti, 0, sizeof ti);
    ti.sType = VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO;
    ti.semaphoreType = timeline ? VK_SEMAPHORE_TYPE_TIMELINE : VK_SEMAPHORE_TYPE_BINARY;
    memset(&ex, 0, sizeof ex);
    ex.sType = VK_STRUCTURE_TYPE_EXPORT_SEMAPHORE_CREATE_INFO;
    ex.pNext = &ti;
    ex.handleTypes = VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD_BIT;
    memset(&si, 0, sizeof si);
    si.sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO;
    si.pNext = sem || !timeline ? (void *)&ex : (void *)&ti;
    VK_OK(vk.vkCreateSemaphore(dev, &si, NULL, &s));
    if (sem) import_semaphore(s, timeline, sem);
    return s;
}

/* ---- command buffers */
static VkCommandBuffer cmd_begin(void)
{
    VkCommandBufferAllocateInfo ai;
    VkCommandBufferBeginInfo bi;
    VkCommandBuffer cb;
    memset(&ai, 0, sizeof ai);
    ai.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO;
    ai.commandPool = pool;
    ai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    ai.commandBufferCount = 1;
    VK_OK(vk.vkAllocateCommandBuffers(dev, &ai, &cb));
    memset(&bi, 0, sizeof bi);
    bi.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO;
    VK_OK(vk.vkBeginCommandBuffer(cb, &bi));
    return cb;
}
/* Submits cb (may be NULL: only the semaphores) waiting for wait_sem >= wait_value (0: no
   wait) and signalling sig_sem = sig_value (0: none); with_fence: and waits for it. */
static void submit(VkCommandBuffer cb, VkSemaphore wait_sem, uint64_t wait_value, VkSemaphore sig_sem, uint64_t sig_value,
                   int with_fence)
{
    VkTimelineSemaphoreSubmitInfo ts;
    VkSubmitInfo si;
    VkPipelineStageFlags stage = VK_PIPELINE_STAGE_ALL_COMMANDS_BIT;
    memset(&ts, 0, sizeof ts);
    ts.sType = VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO;
    ts.waitSemaphoreValueCount = wait_value ? 1 : 0;
    ts.pWaitSemaphoreValues = &wait_value;
    ts.signalSemaphoreValueCount = sig_value ? 1 : 0;
    ts.pSignalSemaphoreValues = &sig_value;
    memset(&si, 0, sizeof si);
    si.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO;
    si.pNext = &ts;
    si.waitSemaphoreCount = wait_value ? 1 : 0;
    si.pWaitSemaphores = &wait_sem;
    si.pWaitDstStageMask = &stage;
    si.commandBufferCount = cb ? 1 : 0;
    si.pCommandBuffers = &cb;
    si.signalSemaphoreCount = sig_value ? 1 : 0;
    si.pSignalSemaphores = &sig_sem;
    VK_OK(vk.vkQueueSubmit(queue, 1, &si, with_fence ? fence : VK_NULL_HANDLE));
    if (with_fence) {
        VK_OK(vk.vkWaitForFences(dev, 1, &fence, VK_TRUE, UINT64_MAX));
        VK_OK(vk.vkResetFences(dev, 1, &fence));
    }
}
static void host_wait(VkSemaphore s, uint64_t value)
{
    VkSemaphoreWaitInfo wi;
    memset(&wi, 0, sizeof wi);
    wi.sType = VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO;
    wi.semaphoreCount = 1;
    wi.pSemaphores = &s;
    wi.pValues = &value;
    VK_OK(vk.vkWaitSemaphores(dev, &wi, UINT64_MAX));
}
/* Queue-family ownership of a buffer or image to mgpu (release: to VK_QUEUE_FAMILY_EXTERNAL)
   or back (acquire); images go to / come from the GENERAL layout, from old_layout. */
static void ownership(VkCommandBuffer cb, const vres *r, int release, VkImageLayout other_layout)
{
    const uint32_t ext = VK_QUEUE_FAMILY_EXTERNAL;
    if (r->buf) {
        VkBufferMemoryBarrier b;
        memset(&b, 0, sizeof b);
        b.sType = VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER;
        b.srcAccessMask = release ? VK_ACCESS_TRANSFER_WRITE_BIT : 0;
        b.dstAccessMask = release ? 0 : VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
        b.srcQueueFamilyIndex = release ? family : ext;
        b.dstQueueFamilyIndex = release ? ext : family;
        b.buffer = r->buf;
        b.size = VK_WHOLE_SIZE;
        vk.vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, 0, 0, NULL, 1, &b, 0, NULL);
    } else {
        VkImageMemoryBarrier b;
        memset(&b, 0, sizeof b);
        b.sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER;
        b.srcAccessMask = release ? VK_ACCESS_TRANSFER_WRITE_BIT : 0;
        b.dstAccessMask = release ? 0 : VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
        b.oldLayout = release ? other_layout : VK_IMAGE_LAYOUT_GENERAL;
        b.newLayout = release ? VK_IMAGE_LAYOUT_GENERAL : other_layout;
        b.srcQueueFamilyIndex = release ? family : ext;
        b.dstQueueFamilyIndex = release ? ext : family;
        b.image = r->img;
        b.subresourceRange.aspectMask = VK_IMAGE_ASPECT_COLOR_BIT;
        b.subresourceRange.levelCount = 1;
        b.subresourceRange.layerCount = 1;
        vk.vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, 0, 0, NULL, 0, NULL, 1, &b);
    }
}
static void image_layout(VkCommandBuffer cb, const vres *r, VkImageLayout from, VkImageLayout to)
{
    VkImageMemoryBarrier b;
    memset(&b, 0, sizeof b);
    b.sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER;
    b.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
    b.dstAccessMask = VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
    b.oldLayout = from;
    b.newLayout = to;
    b.srcQueueFamilyIndex = b.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
    b.image = r->img;
    b.subresourceRange.aspectMask = VK_IMAGE_ASPECT_COLOR_BIT;
    b.subresourceRange.levelCount = 1;
    b.subresourceRange.layerCount = 1;
    vk.vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, 0, 0, NULL, 0, NULL, 1, &b);
}
static void copy_buffer(VkCommandBuffer cb, const vres *src, VkDeviceSize so, const vres *dst, VkDeviceSize dof, VkDeviceSize n)
{
    VkBufferCopy c;
    c.srcOffset = so;
    c.dstOffset = dof;
    c.size = n;
    vk.vkCmdCopyBuffer(cb, src->buf, dst->buf, 1, &c);
}
static VkBufferImageCopy region(int w, int h)
{
    VkBufferImageCopy c;
    memset(&c, 0, sizeof c);
    c.imageSubresource.aspectMask = VK_IMAGE_ASPECT_COLOR_BIT;
    c.imageSubresource.layerCount = 1;
    c.imageExtent.width = (uint32_t)w;
    c.imageExtent.height = (uint32_t)h;
    c.imageExtent.depth = 1;
    return c;
}

static mgpu_image rgba(void *data, int w, int h)
{
    mgpu_image im;
    memset(&im, 0, sizeof im);
    im.data = data;
    im.width = w;
    im.height = h;
    im.channels = 4;
    im.format = MGPU_PIXEL_U8;
    return im;
}
/* The CPU device's blur of host memory. */
static void cpu_blur(void *src, void *dst, int w, int h)
{
    mgpu_image s = rgba(src, w, h), d = rgba(dst, w, h);
    mgpu_stream cs = NULL;
    MG_OK(mgpu_default_stream(mgpu_cpu_device(0), &cs));
    MG_OK(mgpu_blur(&s, &d, NULL, cs));
}

/* ---- the check: a buffer and an image, both the odd size W x H */
static int check(void)
{
    enum { W = 1001, H = 643 };
    const size_t bytes = (size_t)W * H * 4, half = (bytes + 255) & ~(size_t)255;
    unsigned char *in = (unsigned char *)malloc(bytes), *ref = (unsigned char *)malloc(bytes);
    vres staging = make_buffer(2 * half, 0, 1), buf = make_buffer(2 * half, 1, 0), img = make_image(W, H);
    mgpu_external_semaphore sem = NULL;
    VkSemaphore vs = make_semaphore(1, &sem);
    mgpu_external_memory mb = import_memory(&buf), mi = import_memory(&img);
    mgpu_external_image ximg = NULL;
    mgpu_external_image_desc id;
    mgpu_image s, d;
    mgpu_stream st = NULL;
    VkCommandBuffer cb;
    VkBufferImageCopy rg = region(W, H);
    unsigned char *p = NULL;
    int ok_buf, ok_img;
    MG_OK(mgpu_set_device(gpu));
    MG_OK(mgpu_stream_create(&st));
    MG_OK(mgpu_external_memory_buffer(mb, 0, 2 * half, (void **)&p));
    memset(&id, 0, sizeof id);
    id.width = W; id.height = H; id.channels = 4; id.format = MGPU_PIXEL_U8; id.flags = MGPU_EXTERNAL_IMAGE_STORAGE;
    MG_OK(mgpu_external_memory_image(mi, &id, &ximg));
    fill_random(in, bytes);
    memcpy(staging.map, in, bytes);
    cpu_blur(in, ref, W, H);
    /* Vulkan: the frame into the buffer's first half and into the image, both released to mgpu; signal 1 */
    cb = cmd_begin();
    copy_buffer(cb, &staging, 0, &buf, 0, bytes);
    ownership(cb, &buf, 1, VK_IMAGE_LAYOUT_UNDEFINED);
    image_layout(cb, &img, VK_IMAGE_LAYOUT_UNDEFINED, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL);
    vk.vkCmdCopyBufferToImage(cb, staging.buf, img.img, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1, &rg);
    ownership(cb, &img, 1, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL);
    VK_OK(vk.vkEndCommandBuffer(cb));
    submit(cb, VK_NULL_HANDLE, 0, vs, 1, 0);
    /* mgpu: wait for 1, blur the buffer's first half into its second and the image in place, signal 2 */
    s = rgba(p, W, H);
    d = rgba(p + half, W, H);
    MG_OK(mgpu_external_semaphore_wait_async(sem, 1, st));
    MG_OK(mgpu_blur_async(&s, &d, NULL, st));
    MG_OK(mgpu_external_image_blur_async(ximg, ximg, NULL, st));
    MG_OK(mgpu_external_semaphore_signal_async(sem, 2, st));
    /* Vulkan: wait for 2, take both back, read the buffer's result and the image into the staging buffer's halves */
    rg.bufferOffset = half;
    cb = cmd_begin();
    ownership(cb, &buf, 0, VK_IMAGE_LAYOUT_UNDEFINED);
    ownership(cb, &img, 0, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL);
    copy_buffer(cb, &buf, half, &staging, 0, bytes);
    vk.vkCmdCopyImageToBuffer(cb, img.img, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, staging.buf, 1, &rg);
    VK_OK(vk.vkEndCommandBuffer(cb));
    submit(cb, vs, 2, VK_NULL_HANDLE, 0, 1);
    MG_OK(mgpu_stream_synchronize(st));
    ok_buf = !memcmp(staging.map, ref, bytes);
    ok_img = !memcmp((unsigned char *)staging.map + half, ref, bytes);
    printf("%s buffer: %dx%d RGBA blurred by mgpu on device %d, read back by Vulkan: %s the CPU device's\n",
           ok_buf ? "ok  " : "FAIL", W, H, gpu, ok_buf ? "identical to" : "DIFFERS from");
    printf("%s image (optimal tiling): %dx%d RGBA blurred in place: %s the CPU device's\n", ok_img ? "ok  " : "FAIL", W, H,
           ok_img ? "identical to" : "DIFFERS from");
    MG_OK(mgpu_stream_destroy(st));
    MG_OK(mgpu_external_semaphore_destroy(sem));
    MG_OK(mgpu_external_memory_destroy(mb));
    MG_OK(mgpu_external_memory_destroy(mi));
    VK_OK(vk.vkDeviceWaitIdle(dev));
    vk.vkDestroySemaphore(dev, vs, NULL);
    destroy(&staging);
    destroy(&buf);
    destroy(&img);
    free(in);
    free(ref);
    return ok_buf && ok_img;
}

/* ---- the tiled path on every format mgpu maps: optimal-tiled images of 8-bit and f32
   values with 1, 2 and 4 channels, W x H, written and read by mgpu (only mgpu touches them),
   blurred with every border into a second image (f32 RGBA at radius 0..2: the image
   kernel; 8-bit at radius 0..2 with rows of whole 16 bytes: the one-pass kernel; the rest
   through pitch-linear copies) and in place (8-bit at radius 0..2 with such rows: the
   one-pass kernel; the rest pitch-linear copies), each result the CPU device's bits. 517 x
   333: rows of no 16-byte multiple; 528 x 331: every 8-bit format's rows are. */
static int sweep_at(const int W, const int H)
{
    static const struct { VkFormat vk; mgpu_pixel_format f; int c; } fmts[] = {
        { VK_FORMAT_R8_UNORM, MGPU_PIXEL_U8, 1 }, { VK_FORMAT_R8G8_UNORM, MGPU_PIXEL_U8, 2 },
        { VK_FORMAT_R8G8B8A8_UNORM, MGPU_PIXEL_U8, 4 }, { VK_FORMAT_R32_SFLOAT, MGPU_PIXEL_F32, 1 },
        { VK_FORMAT_R32G32_SFLOAT, MGPU_PIXEL_F32, 2 }, { VK_FORMAT_R32G32B32A32_SFLOAT, MGPU_PIXEL_F32, 4 } };
    static const int radii[] = { 0, 1, 2, 3, 5, 8, 16, 17 };
    const size_t most = (size_t)W * H * 16;
    unsigned char *in = (unsigned char *)malloc(most), *ref = (unsigned char *)malloc(most), *out = (unsigned char *)malloc(most);
    mgpu_stream st = NULL, cs = NULL;
    int fi, ri, k, bad = 0, cases = 0;
    MG_OK(mgpu_set_device(gpu));
    MG_OK(mgpu_stream_create(&st));
    MG_OK(mgpu_default_stream(mgpu_cpu_device(0), &cs));
    for (fi = 0; fi < (int)(sizeof fmts / sizeof fmts[0]); fi++) {
        vres va = make_image_of(W, H, fmts[fi].vk), vb = make_image_of(W, H, fmts[fi].vk);
        mgpu_external_memory ma = import_memory(&va), mb = import_memory(&vb);
        mgpu_external_image a = NULL, b = NULL;
        mgpu_external_image_desc id;
        mgpu_image h, r, o;
        const size_t bytes = (size_t)W * H * (size_t)fmts[fi].c * (fmts[fi].f == MGPU_PIXEL_F32 ? 4 : 1);
        memset(&id, 0, sizeof id);
        id.width = W; id.height = H; id.channels = fmts[fi].c; id.format = fmts[fi].f; id.flags = MGPU_EXTERNAL_IMAGE_STORAGE;
        MG_OK(mgpu_external_memory_image(ma, &id, &a));
        MG_OK(mgpu_external_memory_image(mb, &id, &b));
        memset(&h, 0, sizeof h);
        h.data = in; h.width = W; h.height = H; h.channels = fmts[fi].c; h.format = fmts[fi].f;
        r = o = h;
        r.data = ref;
        o.data = out;
        for (ri = 0; ri < (int)(sizeof radii / sizeof radii[0]); ri++) {
            mgpu_blur_params bp;
            memset(&bp, 0, sizeof bp);
            bp.radius = radii[ri] ? radii[ri] : MGPU_BLUR_RADIUS_ZERO;
            bp.sigma = 0.6f + 0.9f * (float)ri;
            bp.border = (mgpu_border)((fi + ri) % 3);
            bp.border_value = fmts[fi].f == MGPU_PIXEL_U8 ? 77.0f : -3.5f;
            if (fmts[fi].f == MGPU_PIXEL_U8) fill_random(in, bytes);
            else {
                float *f = (float *)(void *)in;
                size_t i;
                fill_random(in, bytes);
                for (i = 0; i < bytes / 4; i++) f[i] = (float)(((const uint32_t *)(const void *)in)[i] >> 8) / 4096.0f - 2048.0f;
            }
            MG_OK(mgpu_blur(&h, &r, &bp, cs));
            for (k = 0; k < 2; k++) {
                memset(out, 0x5a, bytes);
                MG_OK(mgpu_external_image_write_async(a, &h, st));
                MG_OK(mgpu_external_image_blur_async(a, k ? a : b, &bp, st));
                MG_OK(mgpu_external_image_read_async(k ? a : b, &o, st));
                MG_OK(mgpu_stream_synchronize(st));
                cases++;
                if (memcmp(out, ref, bytes)) {
                    bad++;
                    printf("FAIL tiled images: %dx%d %s C=%d radius %d border %d %s: DIFFERS from the CPU device's\n", W, H,
                           fmts[fi].f == MGPU_PIXEL_U8 ? "u8" : "f32", fmts[fi].c, radii[ri], (int)bp.border,
                           k ? "in place" : "into another image");
                }
            }
        }
        MG_OK(mgpu_external_memory_destroy(ma));
        MG_OK(mgpu_external_memory_destroy(mb));
        destroy(&va);
        destroy(&vb);
    }
    printf("%s tiled images: %d blurs of %dx%d (8-bit, f32; 1, 2, 4 channels; radius 0..17; every border; into another "
           "image, and in place): %d differ from the CPU device's\n", bad ? "FAIL" : "ok  ",
           cases, W, H, bad);
    MG_OK(mgpu_stream_destroy(st));
    free(in);
    free(ref);
    free(out);
    return !bad;
}
static int sweep(void)
{
    const int a = sweep_at(517, 333), b = sweep_at(528, 331);
    return a && b;
}

/* ---- the measurements */
enum { FRAMES = 30, WARM = 5 };
/* ms of one operation on st, by events, median of 20 after 3 warm-ups: mgpu_blur_async(src
   -> dst) (img NULL), else by op: 'b' img blurred in place, 'B' img blurred into bench_dst (an image of another import),
   'r' img read into dst, 'w' img written from src. */
static mgpu_external_image bench_dst;
static const mgpu_blur_params *bench_bp;     /* the blur's parameters (NULL: the default) */
static double time_op(const mgpu_image *src, const mgpu_image *dst, mgpu_external_image img, int op, mgpu_stream st)
{
    mgpu_event a, b;
    double v[20];
    float ms = 0;
    int i;
    MG_OK(mgpu_event_create(&a));
    MG_OK(mgpu_event_create(&b));
    for (i = -3; i < 20; i++) {
        MG_OK(mgpu_event_record(a, st));
        if (!img) MG_OK(mgpu_blur_async(src, dst, bench_bp, st));
        else if (op == 'b') MG_OK(mgpu_external_image_blur_async(img, img, bench_bp, st));
        else if (op == 'B') MG_OK(mgpu_external_image_blur_async(img, bench_dst, bench_bp, st));
        else if (op == 'r') MG_OK(mgpu_external_image_read_async(img, dst, st));
        else MG_OK(mgpu_external_image_write_async(img, src, st));
        MG_OK(mgpu_event_record(b, st));
        MG_OK(mgpu_event_synchronize(b));
        MG_OK(mgpu_event_elapsed_ms(a, b, &ms));
        if (i >= 0) v[i] = ms;
    }
    MG_OK(mgpu_event_destroy(a));
    MG_OK(mgpu_event_destroy(b));
    return median(v, 20);
}

/* 8K RGBA optimal-tiled images, 8-bit and f32, radius 2, 8, 16 (sigma radius / 2): in place
   and into another image (of another import) against the same blur of mgpu_malloc memory. */
static void bench_tiled(mgpu_stream st)
{
    const int W = 7680, H = 4320;
    static const int radii[] = { 2, 8, 16 };
    int fi, ri;
    printf("\n| 8K RGBA optimal-tiled image, radius | buffer blur (mgpu_malloc), ms | in place, ms (x buffer) | "
           "into another image, ms (x buffer) |\n|---|---|---|---|\n");
    for (fi = 0; fi < 2; fi++) {
        const int f32 = fi == 1;
        const size_t bytes = (size_t)W * H * 4 * (f32 ? 4 : 1);
        const VkFormat vf = f32 ? VK_FORMAT_R32G32B32A32_SFLOAT : VK_FORMAT_R8G8B8A8_UNORM;
        vres i1 = make_image_of(W, H, vf), i2 = make_image_of(W, H, vf);
        mgpu_external_memory m1 = import_memory(&i1), m2 = import_memory(&i2);
        mgpu_external_image x1 = NULL;
        mgpu_external_image_desc id;
        unsigned char *host = (unsigned char *)malloc(bytes), *A = NULL, *B = NULL;
        mgpu_image sa, sb;
        size_t i;
        memset(&id, 0, sizeof id);
        id.width = W; id.height = H; id.channels = 4; id.format = f32 ? MGPU_PIXEL_F32 : MGPU_PIXEL_U8;
        id.flags = MGPU_EXTERNAL_IMAGE_STORAGE;
        MG_OK(mgpu_external_memory_image(m1, &id, &x1));
        MG_OK(mgpu_external_memory_image(m2, &id, &bench_dst));
        if (!host) { fprintf(stderr, "out of host memory\n"); exit(1); }
        fill_random(host, bytes);
        if (f32)
            for (i = 0; i < bytes / 4; i++) ((float *)(void *)host)[i] = (float)host[i * 4] / 255.0f;
        MG_OK(mgpu_malloc((void **)&A, bytes));
        MG_OK(mgpu_malloc((void **)&B, bytes));
        MG_OK(mgpu_memcpy(A, host, bytes));
        sa = rgba(A, W, H);
        sb = rgba(B, W, H);
        sa.format = sb.format = id.format;
        sa.pitch = sb.pitch = 0;
        MG_OK(mgpu_external_image_write_async(x1, &sa, st));
        for (ri = 0; ri < (int)(sizeof radii / sizeof radii[0]); ri++) {
            mgpu_blur_params bp;
            double buf, inpl, into;
            memset(&bp, 0, sizeof bp);
            bp.radius = radii[ri];
            bp.sigma = (float)radii[ri] / 2;
            bench_bp = &bp;
            buf = time_op(&sa, &sb, NULL, 0, st);
            inpl = time_op(NULL, NULL, x1, 'b', st);
            into = time_op(NULL, NULL, x1, 'B', st);
            bench_bp = NULL;
            printf("| %s, %d | %.3f | %.3f (%.3fx) | %.3f (%.3fx) |\n", f32 ? "f32" : "8-bit", radii[ri], buf, inpl, buf / inpl,
                   into, buf / into);
        }
        MG_OK(mgpu_stream_synchronize(st));
        MG_OK(mgpu_external_memory_destroy(m1));
        MG_OK(mgpu_external_memory_destroy(m2));
        MG_OK(mgpu_free(A));
        MG_OK(mgpu_free(B));
        free(host);
        VK_OK(vk.vkDeviceWaitIdle(dev));
        destroy(&i1);
        destroy(&i2);
    }
}

static void bench(void)
{
    const int W4 = 3840, H4 = 2160, W8 = 7680, H8 = 4320;
    const size_t f4 = (size_t)W4 * H4 * 4, f8 = (size_t)W8 * H8 * 4;
    mgpu_external_semaphore sem = NULL;
    VkSemaphore vs = make_semaphore(1, &sem), local = make_semaphore(1, NULL);
    vres render = make_buffer(f4, 0, 0), present = make_buffer(f4, 0, 0), staging = make_buffer(f4, 0, 1);
    vres frame = make_buffer(2 * f4, 1, 0);
    mgpu_external_memory mf = import_memory(&frame);
    unsigned char *fp = NULL, *host = (unsigned char *)malloc(f8), *dA = NULL, *dB = NULL;
    mgpu_stream st = NULL;
    mgpu_image s, d;
    VkCommandBuffer write_cb, read_cb, rt_out, rt_in;
    double t[FRAMES], interop_ms, host_ms, to_mgpu, to_vk, buf_ms, own_ms, img_ms, copy_ms, ab_ms, read_ms, write_ms, x;
    uint64_t v = 0;
    int i;
    MG_OK(mgpu_set_device(gpu));
    MG_OK(mgpu_stream_create_flags(&st, MGPU_STREAM_NON_BLOCKING));
    MG_OK(mgpu_external_memory_buffer(mf, 0, 2 * f4, (void **)&fp));
    fill_random(host, f4);
    memcpy(staging.map, host, f4);
    write_cb = cmd_begin();                   /* the "render": a frame into render, once */
    copy_buffer(write_cb, &staging, 0, &render, 0, f4);
    VK_OK(vk.vkEndCommandBuffer(write_cb));
    submit(write_cb, VK_NULL_HANDLE, 0, VK_NULL_HANDLE, 0, 1);
    /* frame loop, interop: Vulkan writes A, releases it, signals; mgpu waits, blurs A -> B,
       signals; Vulkan waits, acquires B, reads it into present */
    write_cb = cmd_begin();
    copy_buffer(write_cb, &render, 0, &frame, 0, f4);
    ownership(write_cb, &frame, 1, VK_IMAGE_LAYOUT_UNDEFINED);
    VK_OK(vk.vkEndCommandBuffer(write_cb));
    read_cb = cmd_begin();
    ownership(read_cb, &frame, 0, VK_IMAGE_LAYOUT_UNDEFINED);
    copy_buffer(read_cb, &frame, f4, &present, 0, f4);
    VK_OK(vk.vkEndCommandBuffer(read_cb));
    s = rgba(fp, W4, H4);
    d = rgba(fp + f4, W4, H4);
    for (i = -WARM; i < FRAMES; i++) {
        double t0 = now_us();
        submit(write_cb, VK_NULL_HANDLE, 0, vs, v + 1, 0);
        MG_OK(mgpu_external_semaphore_wait_async(sem, v + 1, st));
        MG_OK(mgpu_blur_async(&s, &d, NULL, st));
        MG_OK(mgpu_external_semaphore_signal_async(sem, v + 2, st));
        submit(read_cb, vs, v + 2, VK_NULL_HANDLE, 0, 1);
        v += 2;
        if (i >= 0) t[i] = (now_us() - t0) / 1000;
    }
    interop_ms = median(t, FRAMES);
    /* frame loop, host round trip: Vulkan writes the frame and copies it to host-visible
       memory; the host copies it out, uploads it, mgpu blurs, downloads; the host copies it
       back; Vulkan copies it in and reads it */
    MG_OK(mgpu_malloc((void **)&dA, f8));
    MG_OK(mgpu_malloc((void **)&dB, f8));
    rt_out = cmd_begin();
    copy_buffer(rt_out, &render, 0, &present, 0, f4);
    copy_buffer(rt_out, &present, 0, &staging, 0, f4);
    VK_OK(vk.vkEndCommandBuffer(rt_out));
    rt_in = cmd_begin();
    copy_buffer(rt_in, &staging, 0, &present, 0, f4);
    VK_OK(vk.vkEndCommandBuffer(rt_in));
    s = rgba(dA, W4, H4);
    d = rgba(dB, W4, H4);
    for (i = -WARM; i < FRAMES; i++) {
        double t0 = now_us();
        submit(rt_out, VK_NULL_HANDLE, 0, VK_NULL_HANDLE, 0, 1);
        memcpy(host, staging.map, f4);
        MG_OK(mgpu_memcpy(dA, host, f4));
        MG_OK(mgpu_blur(&s, &d, NULL, st));
        MG_OK(mgpu_memcpy(host, dB, f4));
        memcpy(staging.map, host, f4);
        submit(rt_in, VK_NULL_HANDLE, 0, VK_NULL_HANDLE, 0, 1);
        if (i >= 0) t[i] = (now_us() - t0) / 1000;
    }
    host_ms = median(t, FRAMES);
    /* hand-over latency. Vulkan -> mgpu: the stream already waits; from the host's submit of
       the signal to the end of an event recorded after the wait. mgpu -> Vulkan: a queue
       waits for the value and signals a second (Vulkan-only) semaphore; from the host's
       signal on the stream to that second value on the host. */
    {
        mgpu_event e;
        double a[FRAMES], b[FRAMES];
        uint64_t u = 0;
        MG_OK(mgpu_event_create_flags(&e, MGPU_EVENT_DISABLE_TIMING));
        for (i = -WARM; i < FRAMES; i++) {
            double t0;
            MG_OK(mgpu_external_semaphore_wait_async(sem, v + 1, st));
            MG_OK(mgpu_event_record(e, st));
            pause_ms(2);
            t0 = now_us();
            submit(VK_NULL_HANDLE, VK_NULL_HANDLE, 0, vs, v + 1, 0);
            MG_OK(mgpu_event_synchronize(e));
            if (i >= 0) a[i] = now_us() - t0;
            submit(VK_NULL_HANDLE, vs, v + 2, local, u + 1, 0);
            pause_ms(2);
            t0 = now_us();
            MG_OK(mgpu_external_semaphore_signal_async(sem, v + 2, st));
            host_wait(local, u + 1);
            if (i >= 0) b[i] = now_us() - t0;
            v += 2;
            u += 1;
        }
        MG_OK(mgpu_event_destroy(e));
        to_mgpu = median(a, FRAMES);
        to_vk = median(b, FRAMES);
    }
    MG_OK(mgpu_stream_synchronize(st));
    VK_OK(vk.vkDeviceWaitIdle(dev));
    MG_OK(mgpu_external_memory_destroy(mf));
    destroy(&frame);
    /* 8K: an imported buffer against mgpu_malloc memory, and the tiled image */
    {
        vres big = make_buffer(2 * f8, 1, 0), img = make_image(W8, H8), img2 = make_image(W8, H8);
        mgpu_external_memory mb = import_memory(&big), mi = import_memory(&img), mi2 = import_memory(&img2);
        mgpu_external_image ximg = NULL, xcopy = NULL;
        mgpu_external_image_desc id;
        unsigned char *bp = NULL;
        mgpu_image is, idst, ms, md;
        double r1[3], r2[3];
        int k;
        MG_OK(mgpu_external_memory_buffer(mb, 0, 2 * f8, (void **)&bp));
        memset(&id, 0, sizeof id);
        id.width = W8; id.height = H8; id.channels = 4; id.format = MGPU_PIXEL_U8; id.flags = MGPU_EXTERNAL_IMAGE_STORAGE;
        MG_OK(mgpu_external_memory_image(mi, &id, &ximg));
        MG_OK(mgpu_external_memory_image(mi2, &id, &bench_dst));
        id.flags = 0;                          /* the same image without a surface: the copy path's peer */
        MG_OK(mgpu_external_memory_image(mi, &id, &xcopy));
        fill_random(host, f8);
        MG_OK(mgpu_memcpy(bp, host, f8));
        MG_OK(mgpu_memcpy(dA, host, f8));
        is = rgba(bp, W8, H8);
        idst = rgba(bp + f8, W8, H8);
        ms = rgba(dA, W8, H8);
        md = rgba(dB, W8, H8);
        MG_OK(mgpu_external_image_write_async(ximg, &ms, st));
        for (k = 0; k < 3; k++) {                /* alternating, three rounds */
            r1[k] = time_op(&is, &idst, NULL, 0, st);
            r2[k] = time_op(&ms, &md, NULL, 0, st);
        }
        buf_ms = median(r1, 3);
        own_ms = median(r2, 3);
        img_ms = time_op(NULL, NULL, ximg, 'b', st);
        for (k = 0; k < 3; k++) {                /* alternating, three rounds */
            r1[k] = time_op(NULL, NULL, ximg, 'B', st);
            r2[k] = time_op(NULL, NULL, xcopy, 'B', st);
        }
        ab_ms = median(r1, 3);
        copy_ms = median(r2, 3);
        read_ms = time_op(NULL, &md, ximg, 'r', st);
        write_ms = time_op(&ms, NULL, ximg, 'w', st);
        MG_OK(mgpu_external_memory_destroy(mb));
        MG_OK(mgpu_external_memory_destroy(mi));
        MG_OK(mgpu_external_memory_destroy(mi2));
        destroy(&big);
        destroy(&img);
        destroy(&img2);
    }
    x = 2.0 * (double)f8 / 1e6;                /* bytes read + written, in MB: / ms = GB/s */
    printf("\n| measurement (one GPU, mgpu device %d) | mgpu interop | peer | ratio |\n|---|---|---|---|\n", gpu);
    printf("| 4K RGBA frame loop, ms/frame (Vulkan writes, semaphore, blur, semaphore, Vulkan reads) | %.3f | host round trip %.3f | %.1fx |\n",
           interop_ms, host_ms, host_ms / interop_ms);
    printf("| semaphore hand-over Vulkan -> mgpu (host submit to stream past the wait), us | %.1f | | |\n", to_mgpu);
    printf("| semaphore hand-over mgpu -> Vulkan (stream signal to Vulkan queue's signal seen on the host), us | %.1f | | |\n", to_vk);
    printf("| 8K RGBA blur, imported Vulkan buffer vs mgpu_malloc, ms (GB/s) | %.3f (%.0f) | %.3f (%.0f) | %.3fx |\n",
           buf_ms, x / buf_ms, own_ms, x / own_ms, own_ms / buf_ms);
    printf("| 8K RGBA blur in place, optimal-tiled image (one pass, after saving its frame) vs the imported buffer, ms | %.3f | %.3f | %.3fx |\n",
           img_ms, buf_ms, buf_ms / img_ms);
    printf("| 8K RGBA blur, optimal-tiled image into another of another import vs the imported buffer, ms | %.3f | %.3f | %.3fx |\n",
           ab_ms, buf_ms, buf_ms / ab_ms);
    printf("| 8K RGBA blur into another image, the source without a surface (copy, blur, copy) vs the imported buffer, ms | %.3f | %.3f | %.3fx |\n",
           copy_ms, buf_ms, buf_ms / copy_ms);
    printf("| into another image: both with surfaces vs the source without, speed-up | %.3f | %.3f | %.2fx |\n", ab_ms, copy_ms,
           copy_ms / ab_ms);
    printf("| 8K RGBA image -> linear copy (copy kernel, surface to mgpu_malloc memory), ms (GB/s) | %.3f (%.0f) | | |\n", read_ms,
           x / read_ms);
    printf("| 8K RGBA linear -> image copy (copy kernel), ms (GB/s) | %.3f (%.0f) | | |\n", write_ms, x / write_ms);
    MG_OK(mgpu_free(dA));
    MG_OK(mgpu_free(dB));
    bench_tiled(st);
    MG_OK(mgpu_stream_destroy(st));
    MG_OK(mgpu_external_semaphore_destroy(sem));
    VK_OK(vk.vkDeviceWaitIdle(dev));
    vk.vkDestroySemaphore(dev, vs, NULL);
    vk.vkDestroySemaphore(dev, local, NULL);
    destroy(&render);
    destroy(&present);
    destroy(&staging);
    free(host);
}

/* ---- OpenGL through EGL (a surfaceless context on the EGL device that is the GPU): GL
   imports the Vulkan allocation (GL_EXT_memory_object_fd) as a buffer and two binary
   semaphores (GL_EXT_semaphore_fd); mgpu imports the same allocation and semaphores. GL
   writes the frame and signals; mgpu waits, blurs, signals; GL waits and reads it back. */
#if __has_include(<EGL/egl.h>) && __has_include(<GL/glext.h>)
#include <EGL/egl.h>
#include <EGL/eglext.h>
#include <GL/gl.h>
#include <GL/glext.h>
#define GL_FUNCS(X) X(PFNGLGETUNSIGNEDBYTEVEXTPROC, glGetUnsignedBytevEXT) \
    X(PFNGLCREATEMEMORYOBJECTSEXTPROC, glCreateMemoryObjectsEXT) X(PFNGLDELETEMEMORYOBJECTSEXTPROC, glDeleteMemoryObjectsEXT) \
    X(PFNGLMEMORYOBJECTPARAMETERIVEXTPROC, glMemoryObjectParameterivEXT) X(PFNGLIMPORTMEMORYFDEXTPROC, glImportMemoryFdEXT) \
    X(PFNGLCREATEBUFFERSPROC, glCreateBuffers) X(PFNGLDELETEBUFFERSPROC, glDeleteBuffers) \
    X(PFNGLNAMEDBUFFERSTORAGEMEMEXTPROC, glNamedBufferStorageMemEXT) X(PFNGLNAMEDBUFFERSUBDATAPROC, glNamedBufferSubData) \
    X(PFNGLGETNAMEDBUFFERSUBDATAPROC, glGetNamedBufferSubData) X(PFNGLGENSEMAPHORESEXTPROC, glGenSemaphoresEXT) \
    X(PFNGLDELETESEMAPHORESEXTPROC, glDeleteSemaphoresEXT) X(PFNGLIMPORTSEMAPHOREFDEXTPROC, glImportSemaphoreFdEXT) \
    X(PFNGLSIGNALSEMAPHOREEXTPROC, glSignalSemaphoreEXT) X(PFNGLWAITSEMAPHOREEXTPROC, glWaitSemaphoreEXT) \
    X(PFNGLCREATETEXTURESPROC, glCreateTextures) X(PFNGLTEXTUREPARAMETERIPROC, glTextureParameteri) \
    X(PFNGLTEXTURESTORAGEMEM2DEXTPROC, glTextureStorageMem2DEXT) X(PFNGLTEXTURESUBIMAGE2DPROC, glTextureSubImage2D) \
    X(PFNGLGETTEXTUREIMAGEPROC, glGetTextureImage) X(gl_delete_fn, glDeleteTextures) \
    X(gl_void_fn, glFlush) X(gl_void_fn, glFinish) X(gl_error_fn, glGetError)
typedef void (APIENTRYP gl_void_fn)(void);              /* GL 1.0's and 1.1's: glext.h has no types for them */
typedef GLenum (APIENTRYP gl_error_fn)(void);
typedef void (APIENTRYP gl_delete_fn)(GLsizei n, const GLuint *names);
#define GL_FIELD(type, name) type name;
static struct { GL_FUNCS(GL_FIELD) int unused_; } gl;

/* 1 ok, 0 differs, -1 skipped (with a line). */
static int gl_check(const uint8_t uuid[16])
{
    enum { W = 517, H = 333 };
    const size_t bytes = (size_t)W * H * 4, half = (bytes + 255) & ~(size_t)255;
    static const EGLint cfg_attrs[] = { EGL_SURFACE_TYPE, EGL_PBUFFER_BIT, EGL_RENDERABLE_TYPE, EGL_OPENGL_BIT, EGL_NONE };
    static const EGLint ctx_attrs[] = { EGL_CONTEXT_MAJOR_VERSION, 4, EGL_CONTEXT_MINOR_VERSION, 5, EGL_NONE };
    PFNEGLGETPROCADDRESSPROC gpa;
    PFNEGLQUERYDEVICESEXTPROC query_devices;
    PFNEGLGETPLATFORMDISPLAYEXTPROC platform_display;
    PFNEGLINITIALIZEPROC initialize;
    PFNEGLCHOOSECONFIGPROC choose;
    PFNEGLBINDAPIPROC bind;
    PFNEGLCREATECONTEXTPROC create;
    PFNEGLMAKECURRENTPROC make_current;
    PFNEGLDESTROYCONTEXTPROC destroy_context;
    PFNEGLTERMINATEPROC terminate;
    EGLDeviceEXT devices[16];
    EGLDisplay dpy = EGL_NO_DISPLAY;
    EGLContext ctx = EGL_NO_CONTEXT;
    EGLConfig cfg;
    EGLint ndev = 0, ncfg = 0, i;
    GLubyte gl_uuid[GL_UUID_SIZE_EXT];
    GLuint mem = 0, buf = 0, sem[2] = { 0, 0 }, one = 1;
    GLint dedicated = 1;
    unsigned char *in, *ref, *out, *p = NULL;
    vres vb;
    VkSemaphore vs[2];
    mgpu_external_semaphore ms[2] = { NULL, NULL };
    mgpu_external_memory mm;
    mgpu_image s, d;
    int ok, k;
    void *lib = dlopen("libEGL.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib || !(*(void **)&gpa = dlsym(lib, "eglGetProcAddress"))) { printf("skip gl: no libEGL.so.1\n"); return -1; }
#define EGL_GET(var, type, name) var = (type)gpa(name);
    EGL_GET(query_devices, PFNEGLQUERYDEVICESEXTPROC, "eglQueryDevicesEXT")
    EGL_GET(platform_display, PFNEGLGETPLATFORMDISPLAYEXTPROC, "eglGetPlatformDisplayEXT")
    EGL_GET(initialize, PFNEGLINITIALIZEPROC, "eglInitialize") EGL_GET(choose, PFNEGLCHOOSECONFIGPROC, "eglChooseConfig")
    EGL_GET(bind, PFNEGLBINDAPIPROC, "eglBindAPI") EGL_GET(create, PFNEGLCREATECONTEXTPROC, "eglCreateContext")
    EGL_GET(make_current, PFNEGLMAKECURRENTPROC, "eglMakeCurrent")
    EGL_GET(destroy_context, PFNEGLDESTROYCONTEXTPROC, "eglDestroyContext") EGL_GET(terminate, PFNEGLTERMINATEPROC, "eglTerminate")
    if (!query_devices || !platform_display || !initialize || !query_devices(16, devices, &ndev)) {
        printf("skip gl: EGL has no device enumeration (EGL_EXT_device_enumeration)\n");
        return -1;
    }
    /* the EGL device whose GL context has the Vulkan device's UUID */
    for (i = 0; i < ndev && ctx == EGL_NO_CONTEXT; i++) {
        dpy = platform_display(EGL_PLATFORM_DEVICE_EXT, devices[i], NULL);
        if (dpy == EGL_NO_DISPLAY || !initialize(dpy, NULL, NULL) || !bind(EGL_OPENGL_API) ||
            !choose(dpy, cfg_attrs, &cfg, 1, &ncfg) || ncfg < 1) continue;
        ctx = create(dpy, cfg, EGL_NO_CONTEXT, ctx_attrs);
        if (ctx == EGL_NO_CONTEXT || !make_current(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, ctx)) { ctx = EGL_NO_CONTEXT; continue; }
#define LOAD_GL(type, name) gl.name = (type)gpa(#name);
        GL_FUNCS(LOAD_GL)
        memset(gl_uuid, 0, sizeof gl_uuid);
        if (gl.glGetUnsignedBytevEXT) gl.glGetUnsignedBytevEXT(GL_DEVICE_UUID_EXT, gl_uuid);
        if (!gl.glImportMemoryFdEXT || !gl.glImportSemaphoreFdEXT || memcmp(gl_uuid, uuid, 16)) {
            make_current(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
            destroy_context(dpy, ctx);
            ctx = EGL_NO_CONTEXT;
        }
    }
    if (ctx == EGL_NO_CONTEXT) {
        printf("skip gl: none of the %d EGL devices gives a GL 4.5 context with GL_EXT_memory_object_fd on the GPU\n", (int)ndev);
        return -1;
    }
    in = (unsigned char *)malloc(bytes);
    ref = (unsigned char *)malloc(bytes);
    out = (unsigned char *)malloc(bytes);
    fill_random(in, bytes);
    cpu_blur(in, ref, W, H);
    /* Vulkan allocates; GL and mgpu each import the allocation and the two semaphores */
    vb = make_buffer(2 * half, 1, 0);
    for (k = 0; k < 2; k++) vs[k] = make_semaphore(0, &ms[k]);
    mm = import_memory(&vb);
    MG_OK(mgpu_external_memory_buffer(mm, 0, 2 * half, (void **)&p));
    gl.glCreateMemoryObjectsEXT(1, &mem);
    gl.glMemoryObjectParameterivEXT(mem, GL_DEDICATED_MEMORY_OBJECT_EXT, &dedicated);
    gl.glImportMemoryFdEXT(mem, vb.alloc, GL_HANDLE_TYPE_OPAQUE_FD_EXT, memory_fd(&vb));
    gl.glCreateBuffers(1, &buf);
    gl.glNamedBufferStorageMemEXT(buf, (GLsizeiptr)(2 * half), mem, 0);
    gl.glGenSemaphoresEXT(2, sem);
    for (k = 0; k < 2; k++) gl.glImportSemaphoreFdEXT(sem[k], GL_HANDLE_TYPE_OPAQUE_FD_EXT, semaphore_fd(vs[k]));
    if (gl.glGetError() != GL_NO_ERROR) { printf("FAIL gl: importing the memory or the semaphores: GL error\n"); return 0; }
    /* GL writes the frame, signals; mgpu waits, blurs it into the second half, signals; GL waits, reads */
    gl.glNamedBufferSubData(buf, 0, (GLsizeiptr)bytes, in);
    gl.glSignalSemaphoreEXT(sem[0], 1, &buf, 0, NULL, NULL);
    gl.glFlush();
    s = rgba(p, W, H);
    d = rgba(p + half, W, H);
    MG_OK(mgpu_set_device(gpu));
    MG_OK(mgpu_external_semaphore_wait_async(ms[0], 0, NULL));
    MG_OK(mgpu_blur_async(&s, &d, NULL, NULL));
    MG_OK(mgpu_external_semaphore_signal_async(ms[1], 0, NULL));
    gl.glWaitSemaphoreEXT(sem[1], 1, &buf, 0, NULL, NULL);
    gl.glGetNamedBufferSubData(buf, (GLintptr)half, (GLsizeiptr)bytes, out);
    gl.glFinish();
    MG_OK(mgpu_device_synchronize(gpu));
    ok = gl.glGetError() == GL_NO_ERROR && !memcmp(out, ref, bytes);
    printf("%s gl: a %dx%d RGBA GL buffer (GL_EXT_memory_object_fd, EGL surfaceless) written by GL, blurred by mgpu, "
           "read by GL: %s the CPU device's\n", ok ? "ok  " : "FAIL", W, H, ok ? "identical to" : "DIFFERS from");
    /* A GL texture: Vulkan allocates an optimal-tiled RGBA8 image's memory; GL makes a 2D
       texture of the same format and size on it (glTextureStorageMem2DEXT), mgpu maps it as an
       image. GL writes the texture and signals (the texture in GL_LAYOUT_GENERAL_EXT); mgpu
       waits, blurs it in place (the tiled path), signals; GL waits and reads it. */
    if (ok) {
        vres vt = make_image(W, H);
        mgpu_external_memory mt = import_memory(&vt);
        mgpu_external_image xt = NULL;
        mgpu_external_image_desc id;
        GLuint tmem = 0, tex = 0;
        GLenum layout = GL_LAYOUT_GENERAL_EXT;
        memset(&id, 0, sizeof id);
        id.width = W; id.height = H; id.channels = 4; id.format = MGPU_PIXEL_U8; id.flags = MGPU_EXTERNAL_IMAGE_STORAGE;
        MG_OK(mgpu_external_memory_image(mt, &id, &xt));
        gl.glCreateMemoryObjectsEXT(1, &tmem);
        gl.glMemoryObjectParameterivEXT(tmem, GL_DEDICATED_MEMORY_OBJECT_EXT, &dedicated);
        gl.glImportMemoryFdEXT(tmem, vt.alloc, GL_HANDLE_TYPE_OPAQUE_FD_EXT, memory_fd(&vt));
        gl.glCreateTextures(GL_TEXTURE_2D, 1, &tex);
        gl.glTextureParameteri(tex, GL_TEXTURE_TILING_EXT, GL_OPTIMAL_TILING_EXT);
        gl.glTextureStorageMem2DEXT(tex, 1, GL_RGBA8, W, H, tmem, 0);
        if (gl.glGetError() != GL_NO_ERROR) { printf("FAIL gl: the texture on the imported memory: GL error\n"); return 0; }
        memset(out, 0, bytes);
        gl.glTextureSubImage2D(tex, 0, 0, 0, W, H, GL_RGBA, GL_UNSIGNED_BYTE, in);
        gl.glSignalSemaphoreEXT(sem[0], 0, NULL, 1, &tex, &layout);
        gl.glFlush();
        MG_OK(mgpu_external_semaphore_wait_async(ms[0], 0, NULL));
        MG_OK(mgpu_external_image_blur_async(xt, xt, NULL, NULL));
        MG_OK(mgpu_external_semaphore_signal_async(ms[1], 0, NULL));
        gl.glWaitSemaphoreEXT(sem[1], 0, NULL, 1, &tex, &layout);
        gl.glGetTextureImage(tex, 0, GL_RGBA, GL_UNSIGNED_BYTE, (GLsizei)bytes, out);
        gl.glFinish();
        MG_OK(mgpu_device_synchronize(gpu));
        ok = gl.glGetError() == GL_NO_ERROR && !memcmp(out, ref, bytes);
        printf("%s gl: a %dx%d RGBA8 GL texture (glTextureStorageMem2DEXT on Vulkan memory) written by GL, blurred in place "
               "by mgpu as an optimal-tiled image, read by GL: %s the CPU device's\n", ok ? "ok  " : "FAIL", W, H,
               ok ? "identical to" : "DIFFERS from");
        gl.glDeleteTextures(1, &tex);
        gl.glDeleteMemoryObjectsEXT(1, &tmem);
        gl.glFinish();
        MG_OK(mgpu_external_memory_destroy(mt));
        destroy(&vt);
    }
    gl.glDeleteSemaphoresEXT(2, sem);
    gl.glDeleteBuffers(1, &buf);
    gl.glDeleteMemoryObjectsEXT(1, &mem);
    gl.glFinish();
    make_current(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
    destroy_context(dpy, ctx);
    terminate(dpy);
    for (k = 0; k < 2; k++) MG_OK(mgpu_external_semaphore_destroy(ms[k]));
    MG_OK(mgpu_external_memory_destroy(mm));
    VK_OK(vk.vkDeviceWaitIdle(dev));
    for (k = 0; k < 2; k++) vk.vkDestroySemaphore(dev, vs[k], NULL);
    destroy(&vb);
    (void)one;
    free(in);
    free(ref);
    free(out);
    return ok;
}
#else
static int gl_check(const uint8_t uuid[16])
{
    (void)uuid;
    printf("skip gl: built without the EGL and GL headers (libegl-dev, libgl-dev)\n");
    return -1;
}
#endif

int main(int argc, char **argv)
{
    int ok;
    MG_OK(mgpu_init(NULL));
    if (!vk_open()) { mgpu_shutdown(); return 0; }
    ok = check();
    if (ok) ok = sweep();
    if (ok) {
        mgpu_device_info info;
        MG_OK(mgpu_device_info_get(gpu, &info));
        ok = gl_check(info.uuid) != 0;
    }
    if (ok && argc > 1 && !strcmp(argv[1], "--bench")) bench();
    vk.vkDestroyFence(dev, fence, NULL);
    vk.vkDestroyCommandPool(dev, pool, NULL);
    vk.vkDestroyDevice(dev, NULL);
    vk.vkDestroyInstance(inst, NULL);
    mgpu_shutdown();
    if (ok) printf("ok\n");
    return ok ? 0 : 1;
}
#endif
