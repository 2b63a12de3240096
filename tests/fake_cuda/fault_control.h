/* fault_control.h - the fault injection tests/suites/faults.c drives, shared by the fake
   libcuda (fake_cuda.cpp) and the fault shim (tests/fault_shim): every driver call goes
   through fault::now, which counts it and fails the chosen one. Include once in a library,
   with FAULT_EXPORT defined to export the control functions:
   fake_cuda_fail_call(k, error) fails the k-th call from now (0: none) with `error`;
   fake_cuda_calls() counts the calls so far; fake_cuda_failed_name() names the entry point
   failed last ("" if none since the last fake_cuda_fail_call with k > 0). */
#include <mutex>

namespace fault {
static std::mutex lock;
static long calls, fail_at;                   /* calls so far; the call to fail (0: none) */
static int error;
static const char *failed_name = "";

/* Counts a call; true, with *e the chosen error, when it is the one to fail (name(): the
   entry point's name, asked only then). */
template <typename R, typename Name> static bool now(R *e, Name name)
{
    std::lock_guard<std::mutex> g(lock);
    if (++calls != fail_at) return false;
    fail_at = 0;
    failed_name = name();
    *e = (R)error;
    return true;
}
} /* namespace fault */

extern "C" {
FAULT_EXPORT void fake_cuda_fail_call(long k, int error)
{
    std::lock_guard<std::mutex> g(fault::lock);
    fault::fail_at = k > 0 ? fault::calls + k : 0;
    fault::error = error;
    if (k > 0) fault::failed_name = "";
}
FAULT_EXPORT const char *fake_cuda_failed_name(void) { return fault::failed_name; }
FAULT_EXPORT long fake_cuda_calls(void)
{
    std::lock_guard<std::mutex> g(fault::lock);
    return fault::calls;
}
}
