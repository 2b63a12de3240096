/* CUDA_VISIBLE_DEVICES is honoured: a child process that sees only GPU 1 finds one device,
   with the UUID the parent sees for device 1. */
#include "test.h"

#ifndef _WIN32
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;
#endif

/* build/mgpu_tests --child-visible: prints "count=N uuid=UUID" for the CUDA backend. */
int t_child_visible(void)
{
    mgpu_desc d;
    mgpu_device_info info;
    memset(&d, 0, sizeof d);
    d.backend = MGPU_BACKEND_CUDA;
    if (mgpu_init(&d) != MGPU_SUCCESS) {
        printf("error=%s\n", mgpu_last_error());
        return 1;
    }
    memset(&info, 0, sizeof info);
    if (mgpu_device_info_get(0, &info) != MGPU_SUCCESS) {
        printf("error=%s\n", mgpu_last_error());
        mgpu_shutdown();
        return 1;
    }
    printf("count=%d uuid=%s\n", mgpu_device_count(), info.uuid_string);
    mgpu_shutdown();
    return 0;
}

#ifdef _WIN32
TEST(cuda_visible_devices)
{
    SKIP("the child process is started with fork and execve (POSIX only)");
}
#else
/* The value that selects the parent's device 1: "1", or the second entry of the parent's
   own CUDA_VISIBLE_DEVICES list. */
static void visible_second(char *out, size_t cap)
{
    const char *v = getenv("CUDA_VISIBLE_DEVICES"), *comma;
    size_t len;
    if (!v || !*v) { snprintf(out, cap, "1"); return; }
    comma = strchr(v, ',');
    if (!comma) { snprintf(out, cap, "1"); return; }
    v = comma + 1;
    comma = strchr(v, ',');
    len = comma ? (size_t)(comma - v) : strlen(v);
    if (len >= cap) len = cap - 1;
    memcpy(out, v, len);
    out[len] = 0;
}

TEST(cuda_visible_devices)
{
    mgpu_device_info info;
    char value[128], assign[160], output[4096], want[128];
    char *argv[3], **envp;
    size_t nenv = 0, i, k = 0, got = 0;
    int fds[2], status = 0;
    pid_t pid;
    ssize_t r;
    TINIT();
    if (mgpu_device_count() < 2) {
        int count = mgpu_device_count();
        mgpu_shutdown();
        SKIP("needs 2 GPUs, this machine has %d", count);
    }
    REQUIRE_OK(mgpu_device_info_get(1, &info));
    CHECK_OK(mgpu_shutdown());

    visible_second(value, sizeof value);
    snprintf(assign, sizeof assign, "CUDA_VISIBLE_DEVICES=%s", value);
    while (environ[nenv]) nenv++;
    envp = (char **)tmalloc((nenv + 2) * sizeof *envp);
    for (i = 0; i < nenv; i++)
        if (strncmp(environ[i], "CUDA_VISIBLE_DEVICES=", 21)) envp[k++] = environ[i];
    envp[k++] = assign;
    envp[k] = NULL;
    argv[0] = (char *)"/proc/self/exe";
    argv[1] = (char *)"--child-visible";
    argv[2] = NULL;

    REQUIRE(pipe(fds) == 0);
    fflush(stdout);
    pid = fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
        dup2(fds[1], 1);
        close(fds[0]);
        close(fds[1]);
        execve("/proc/self/exe", argv, envp);
        _exit(127);
    }
    close(fds[1]);
    while (got + 1 < sizeof output && (r = read(fds[0], output + got, sizeof output - 1 - got)) > 0) got += (size_t)r;
    output[got] = 0;
    close(fds[0]);
    REQUIRE(waitpid(pid, &status, 0) == pid);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        t_fail(__FILE__, __LINE__, "child with %s failed (status 0x%x): %s", assign, status, output);
    snprintf(want, sizeof want, "count=1 uuid=%s", info.uuid_string);
    if (!strstr(output, want))
        t_fail(__FILE__, __LINE__, "child with %s printed \"%s\", expected \"%s\"", assign, output, want);
}
#endif
