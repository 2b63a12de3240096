/* readme_processes.c - the program for several processes in docs/processes.md (keep the two identical).
   Two processes share device memory through an IPC handle: the parent allocates and fills
   a buffer on its device 0 and sends the handle's bytes down a pipe; the child opens it on
   its own device 0, sums it with mgpu_reduce and answers. Fork before mgpu_init: the CUDA
   driver does not survive a fork. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>
#include "mgpu.h"

#define N 4096

static int child(int from_parent, int to_parent)
{
    mgpu_ipc_handle handle;
    void *shared;
    uint32_t sum = 0;
    if (read(from_parent, &handle, sizeof handle) != (ssize_t)sizeof handle) return 1;
    if (mgpu_init(NULL) != MGPU_SUCCESS || mgpu_ipc_open_memory(&handle, &shared) != MGPU_SUCCESS ||
        mgpu_reduce(shared, N, MGPU_U32, MGPU_OP_SUM, &sum, NULL) != MGPU_SUCCESS) {
        fprintf(stderr, "child: %s\n", mgpu_last_error());
        return 1;
    }
    mgpu_ipc_close_memory(shared);           /* before the exporter frees it */
    mgpu_shutdown();
    return write(to_parent, &sum, sizeof sum) == (ssize_t)sizeof sum ? 0 : 1;
}

int main(void)
{
    int down[2], up[2], status = 1;
    uint32_t host[N], sum = 0, want = 0;
    mgpu_ipc_handle handle;
    uint32_t *buf;
    pid_t pid;
    if (pipe(down) != 0 || pipe(up) != 0) return 1;
    if ((pid = fork()) == 0) { close(down[1]); close(up[0]); _exit(child(down[0], up[1])); }
    close(down[0]);                          /* so that a read sees the other side exit */
    close(up[1]);

    mgpu_init(NULL);
    for (int i = 0; i < N; i++) { host[i] = (uint32_t)i * 7u; want += host[i]; }
    if (mgpu_malloc((void **)&buf, sizeof host) != MGPU_SUCCESS || mgpu_memcpy(buf, host, sizeof host) != MGPU_SUCCESS ||
        mgpu_ipc_export_memory(buf, &handle) != MGPU_SUCCESS) {
        fprintf(stderr, "parent: %s\n", mgpu_last_error());
        return 1;
    }
    if (write(down[1], &handle, sizeof handle) != (ssize_t)sizeof handle) return 1;
    if (read(up[0], &sum, sizeof sum) != (ssize_t)sizeof sum) sum = ~want;   /* the child failed */
    waitpid(pid, &status, 0);
    printf("the child summed the parent's %d words: %u (expected %u)\n", N, sum, want);
    mgpu_free(buf);                          /* the child has closed it */
    mgpu_shutdown();
    return sum == want && status == 0 ? 0 : 1;
}
