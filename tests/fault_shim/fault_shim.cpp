/* fault_shim.cpp - a libcuda in front of another one that fails a chosen driver call, so
   tests/suites/faults.c runs against the real NVIDIA driver as it does against the fake
   (tests/fake_cuda). A test aid, not part of mgpu; Linux only.

   mgpu loads it as its driver (MGPU_CUDA_PATH=build/libcuda_faultshim.so); it loads the
   driver named by FAULTSHIM_REAL (default libcuda.so.1) and forwards to it: cuDriverGetVersion
   and cuInit as they are, and cuGetProcAddress_v2, which hands out, for each entry point of
   mgpu's list (MGPU__CU_FUNCS in mgpu.h), a typed wrapper around the real one, and the real
   pointer for any other name. Each wrapper counts the call; the chosen one returns the chosen
   error without calling the driver (so it changes nothing), the others forward. It exports
   the fake's control functions under the fake's names, so faults.c drives both alike:
   fake_cuda_fail_call(k, error) fails the k-th call from now (0: none), fake_cuda_calls()
   counts the calls so far, fake_cuda_failed_name() names the entry point failed last ("" if
   none since the last fake_cuda_fail_call with k > 0), fake_cuda_live(text, size)
   how many allocations, streams, events, modules and retained primary contexts the driver
   handed out through the wrappers and did not get back (after mgpu_shutdown all must be 0).

     make build/libcuda_faultshim.so build/suite_faults
     MGPU_CUDA_PATH=$PWD/build/libcuda_faultshim.so ./build/suite_faults            # real GPUs
     MGPU_CUDA_PATH=$PWD/build/libcuda_faultshim.so \
       FAULTSHIM_REAL=$PWD/build/libfake_cuda.so ./build/suite_faults init           # CI */
#define MGPU_STATIC
#define MGPU_NO_EMBEDDED_KERNELS
#define MGPU_IMPLEMENTATION
#include "mgpu.h"
#include <dlfcn.h>
#include <mutex>

#define SHIM_EXPORT extern "C" __attribute__((visibility("default")))
#define FAULT_EXPORT __attribute__((visibility("default")))
#include "tests/fake_cuda/fault_control.h"     /* fake_cuda_fail_call, fake_cuda_calls, fake_cuda_failed_name */

namespace shim {

enum Entry {
#define X_ENTRY(name, ver, params) e_##name,
    MGPU__CU_FUNCS(X_ENTRY)
#undef X_ENTRY
    ENTRIES
};
static const char *const names[ENTRIES] = {
#define X_NAME(name, ver, params) #name,
    MGPU__CU_FUNCS(X_NAME)
#undef X_NAME
};

static std::mutex lock;
static void *driver;                                   /* the real one */
static void *real[ENTRIES];                            /* its entry points, as cuGetProcAddress_v2 gave them */

/* What a successful call hands out (+1) or takes back (-1), by kind, for fake_cuda_live. */
enum Kind { ALLOCATION, STREAM, EVENT, MODULE, CONTEXT, POOL, EXTERNAL, KINDS };
static long live[KINDS];
static void track(int entry)
{
    switch (entry) {
    case e_cuMemAlloc: case e_cuMemAllocAsync: case e_cuMemAllocFromPoolAsync: case e_cuMemAllocManaged:
    case e_cuMemHostAlloc: case e_cuIpcOpenMemHandle: case e_cuMemPoolImportPointer:
    case e_cuExternalMemoryGetMappedBuffer: live[ALLOCATION]++; break;
    case e_cuMemFree: case e_cuMemFreeAsync: case e_cuMemFreeHost: case e_cuIpcCloseMemHandle: live[ALLOCATION]--; break;
    case e_cuStreamCreate: live[STREAM]++; break;
    case e_cuStreamDestroy: live[STREAM]--; break;
    case e_cuEventCreate: case e_cuIpcOpenEventHandle: live[EVENT]++; break;
    case e_cuEventDestroy: live[EVENT]--; break;
    case e_cuModuleLoadData: live[MODULE]++; break;
    case e_cuModuleUnload: live[MODULE]--; break;
    case e_cuDevicePrimaryCtxRetain: live[CONTEXT]++; break;
    case e_cuDevicePrimaryCtxRelease: live[CONTEXT]--; break;
    case e_cuMemPoolCreate: case e_cuMemPoolImportFromShareableHandle: live[POOL]++; break;
    case e_cuMemPoolDestroy: live[POOL]--; break;
    case e_cuImportExternalMemory: case e_cuExternalMemoryGetMappedMipmappedArray: case e_cuImportExternalSemaphore:
    case e_cuSurfObjectCreate: live[EXTERNAL]++; break;
    case e_cuDestroyExternalMemory: case e_cuMipmappedArrayDestroy: case e_cuDestroyExternalSemaphore:
    case e_cuSurfObjectDestroy: live[EXTERNAL]--; break;
    default: break;
    }
}

/* After a successful call: nothing, but for cuDevicePrimaryCtxRetain the shim keeps a
   reference of its own to each device's primary context (once, never released, not in
   fake_cuda_live), so the real driver does not destroy and build it again for each of the
   runs of suite_faults (about 1,300, each an mgpu_init and mgpu_shutdown: seconds apiece). */
template <int I, typename... A> static void after_success(A...) {}
template <> void after_success<e_cuDevicePrimaryCtxRetain>(mgpu__CUcontext *, mgpu__CUdevice dev)
{
    static bool kept[MGPU_MAX_DEVICES];
    mgpu__CUcontext ctx;
    std::lock_guard<std::mutex> g(lock);
    if (dev < 0 || dev >= MGPU_MAX_DEVICES || kept[dev]) return;
    kept[dev] = ((mgpu__pfn_cuDevicePrimaryCtxRetain)real[e_cuDevicePrimaryCtxRetain])(&ctx, dev) == MGPU__CUDA_SUCCESS;
}

template <int I, typename F> struct Wrap;
template <int I, typename... A> struct Wrap<I, mgpu__CUresult (*)(A...)> {
    static mgpu__CUresult call(A... a)
    {
        mgpu__CUresult e;
        void *fn;
        if (fault::now(&e, [] { return names[I]; })) return e;
        {
            std::lock_guard<std::mutex> g(lock);
            fn = real[I];
        }
        e = ((mgpu__CUresult (*)(A...))fn)(a...);
        if (e != MGPU__CUDA_SUCCESS) return e;
        {
            std::lock_guard<std::mutex> g(lock);
            track(I);
        }
        after_success<I>(a...);
        return e;
    }
};
static void *const wrappers[ENTRIES] = {
#define X_WRAP(name, ver, params) (void *)&Wrap<e_##name, mgpu__pfn_##name>::call,
    MGPU__CU_FUNCS(X_WRAP)
#undef X_WRAP
};

/* The real driver's symbol, loading it on first use; NULL (and a line on stderr, once) if
   it cannot be loaded: a test tool may say why. */
static void *real_sym(const char *name)
{
    std::lock_guard<std::mutex> g(lock);
    static bool said;
    if (!driver) {
        const char *path = getenv("FAULTSHIM_REAL");
        driver = dlopen(path && *path ? path : "libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
        if (!driver) {
            if (!said) fprintf(stderr, "fault shim: cannot load the real driver (FAULTSHIM_REAL): %s\n", dlerror());
            said = true;
            return NULL;
        }
    }
    return dlsym(driver, name);
}

} /* namespace shim */

SHIM_EXPORT long fake_cuda_live(char *text, size_t size)
{
    std::lock_guard<std::mutex> g(shim::lock);
    const long *n = shim::live;
    long all = 0;
    snprintf(text, size, "%ld allocation(s), %ld stream(s), %ld event(s), %ld module(s), %ld primary context(s), %ld pool(s), "
             "%ld external object(s)", n[shim::ALLOCATION], n[shim::STREAM], n[shim::EVENT], n[shim::MODULE],
             n[shim::CONTEXT], n[shim::POOL], n[shim::EXTERNAL]);
    for (int k = 0; k < shim::KINDS; k++) all += n[k];
    return all;
}

SHIM_EXPORT mgpu__CUresult cuDriverGetVersion(int *version)
{
    mgpu__pfn_cuDriverGetVersion f = (mgpu__pfn_cuDriverGetVersion)shim::real_sym("cuDriverGetVersion");
    return f ? f(version) : MGPU__CUDA_ERROR_NOT_FOUND;
}
SHIM_EXPORT mgpu__CUresult cuInit(unsigned flags)
{
    mgpu__pfn_cuInit f = (mgpu__pfn_cuInit)shim::real_sym("cuInit");
    return f ? f(flags) : MGPU__CUDA_ERROR_NOT_FOUND;
}
SHIM_EXPORT mgpu__CUresult cuGetProcAddress_v2(const char *symbol, void **pfn, int version, unsigned long long flags,
                                               mgpu__CUprocStatus *status)
{
    mgpu__pfn_cuGetProcAddress_v2 f = (mgpu__pfn_cuGetProcAddress_v2)shim::real_sym("cuGetProcAddress_v2");
    mgpu__CUresult e = f ? f(symbol, pfn, version, flags, status) : MGPU__CUDA_ERROR_NOT_FOUND;
    if (e != MGPU__CUDA_SUCCESS || !*pfn) return e;
    for (int i = 0; i < shim::ENTRIES; i++)
        if (!strcmp(symbol, shim::names[i])) {
            std::lock_guard<std::mutex> g(shim::lock);
            shim::real[i] = *pfn;
            *pfn = shim::wrappers[i];
            break;
        }
    return e;
}
