// image_copy.cu - copies between a CUDA array (through a surface object) and pitch-linear memory on
// one GPU: the thread layouts behind mgpu_img_read / mgpu_img_write (mgpu_kernels.cu's imgcopy),
// against cudaMemcpy2D{From,To}ArrayAsync and a linear copy of the same bytes; 8K RGBA8 and RGBA32F
// arrays (cudaMallocArray, cudaArraySurfaceLoadStore). CUDA events, median of 20 after 3 warm-ups.
// "WXxWY cyN": WX threads across (16 bytes each) and 256 / WX rows a block, N row groups a thread.
// Build: nvcc -O3 -std=c++17 -arch=sm_90 -o build/bench_image_copy bench/image_copy.cu
// (docs/interop.md section 7 quotes its numbers.)
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <algorithm>
#define CK(x) do { cudaError_t e_ = (x); if (e_) { printf("%s: %s\n", #x, cudaGetErrorString(e_)); exit(1); } } while (0)
template <typename P> struct V16 { enum { V = 16 / sizeof(P) }; };
// WX threads across (16 bytes each), 256/WX rows; CY row groups per thread
template <typename P, int WX, int CY, bool TO>
__global__ void __launch_bounds__(256) cp(cudaSurfaceObject_t s, unsigned char *lin, size_t pitch, int w, int h, int tiles)
{
    enum { V = 16 / sizeof(P), WY = 256 / WX };
    const int t = threadIdx.x, tile = blockIdx.x % tiles, grp = blockIdx.x / tiles;
    const int x = (tile * WX + t % WX) * V, y0 = grp * WY * CY + t / WX;
    if (x >= w) return;
    P v[CY][V];
    if (TO) {
#pragma unroll
        for (int j = 0; j < CY; j++) { int y = y0 + WY * j; if (y < h) { uint4 q = *(const uint4 *)(lin + (size_t)y * pitch + (size_t)x * sizeof(P)); memcpy(v[j], &q, 16); } }
#pragma unroll
        for (int j = 0; j < CY; j++) { int y = y0 + WY * j; if (y < h) for (int k = 0; k < V; k++) surf2Dwrite<P>(v[j][k], s, (x + k) * (int)sizeof(P), y); }
    } else {
#pragma unroll
        for (int j = 0; j < CY; j++) { int y = y0 + WY * j; if (y < h) for (int k = 0; k < V; k++) v[j][k] = surf2Dread<P>(s, (x + k) * (int)sizeof(P), y); }
#pragma unroll
        for (int j = 0; j < CY; j++) { int y = y0 + WY * j; if (y < h) { uint4 q; memcpy(&q, v[j], 16); *(uint4 *)(lin + (size_t)y * pitch + (size_t)x * sizeof(P)) = q; } }
    }
}
// read-only bound: surface reads summed (one word per block written)
template <typename P, int WX>
__global__ void __launch_bounds__(256) rd(cudaSurfaceObject_t s, unsigned *sink, int w, int h, int tiles)
{
    enum { V = 16 / sizeof(P), WY = 256 / WX };
    const int t = threadIdx.x, tile = blockIdx.x % tiles, grp = blockIdx.x / tiles;
    const int x = (tile * WX + t % WX) * V, y0 = grp * WY * 2 + t / WX;
    unsigned acc = 0;
    if (x < w) for (int j = 0; j < 2; j++) { int y = y0 + WY * j; if (y < h) for (int k = 0; k < V; k++) { P p = surf2Dread<P>(s, (x + k) * (int)sizeof(P), y); unsigned u; memcpy(&u, &p, 4); acc ^= u; } }
    if (acc == 0x12345678u) sink[0] = acc;
}
static float timeit(void (*f)(void *), void *ctx)
{
    cudaEvent_t a, b; CK(cudaEventCreate(&a)); CK(cudaEventCreate(&b));
    std::vector<float> v;
    for (int i = -3; i < 20; i++) { CK(cudaEventRecord(a)); f(ctx); CK(cudaEventRecord(b)); CK(cudaEventSynchronize(b)); float ms; CK(cudaEventElapsedTime(&ms, a, b)); if (i >= 0) v.push_back(ms); }
    CK(cudaGetLastError());
    std::sort(v.begin(), v.end()); return v[10];
}
struct Ctx { cudaSurfaceObject_t s; cudaArray_t arr; unsigned char *lin, *lin2; size_t pitch; int w, h, px; unsigned *sink; };
template <typename P, int WX, int CY, bool TO> static void run_cp(void *p) {
    Ctx *c = (Ctx *)p; int tiles = (c->w * c->px + WX * 16 - 1) / (WX * 16), rows = (256 / WX) * CY;
    cp<P, WX, CY, TO><<<tiles * ((c->h + rows - 1) / rows), 256>>>(c->s, c->lin, c->pitch, c->w, c->h, tiles); }
template <typename P, int WX> static void run_rd(void *p) {
    Ctx *c = (Ctx *)p; int tiles = (c->w * c->px + WX * 16 - 1) / (WX * 16), rows = (256 / WX) * 2;
    rd<P, WX><<<tiles * ((c->h + rows - 1) / rows), 256>>>(c->s, c->sink, c->w, c->h, tiles); }
static void run_m2d_from(void *p) { Ctx *c = (Ctx *)p; CK(cudaMemcpy2DFromArrayAsync(c->lin, c->pitch, c->arr, 0, 0, (size_t)c->w * c->px, c->h, cudaMemcpyDeviceToDevice)); }
static void run_m2d_to(void *p) { Ctx *c = (Ctx *)p; CK(cudaMemcpy2DToArrayAsync(c->arr, 0, 0, c->lin, c->pitch, (size_t)c->w * c->px, c->h, cudaMemcpyDeviceToDevice)); }
static void run_lin(void *p) { Ctx *c = (Ctx *)p; CK(cudaMemcpyAsync(c->lin2, c->lin, c->pitch * c->h, cudaMemcpyDeviceToDevice)); }
template <typename P> static void suite(const char *name, cudaChannelFormatDesc fd)
{
    Ctx c; c.w = 7680; c.h = 4320; c.px = sizeof(P);
    CK(cudaMallocArray(&c.arr, &fd, c.w, c.h, cudaArraySurfaceLoadStore));
    cudaResourceDesc rd_; memset(&rd_, 0, sizeof rd_); rd_.resType = cudaResourceTypeArray; rd_.res.array.array = c.arr;
    CK(cudaCreateSurfaceObject(&c.s, &rd_));
    c.pitch = ((size_t)c.w * c.px + 255) & ~(size_t)255;
    CK(cudaMalloc(&c.lin, c.pitch * c.h)); CK(cudaMalloc(&c.lin2, c.pitch * c.h)); CK(cudaMalloc(&c.sink, 64));
    std::vector<unsigned char> hst(c.pitch * c.h); for (size_t i = 0; i < hst.size(); i++) hst[i] = (unsigned char)(rand() >> 7);
    CK(cudaMemcpy(c.lin, hst.data(), hst.size(), cudaMemcpyHostToDevice));
    const double mb = 2.0 * c.w * c.h * c.px / 1e6;
    struct { const char *n; void (*f)(void *); } vs[] = {
        { "memcpy2D from array", run_m2d_from }, { "memcpy2D to array", run_m2d_to }, { "linear memcpy (same bytes)", run_lin },
        { "read  32x8 cy1", run_cp<P, 32, 1, false> }, { "read  32x8 cy2 (mgpu)", run_cp<P, 32, 2, false> }, { "read  32x8 cy4", run_cp<P, 32, 4, false> },
        { "read  8x32 cy2", run_cp<P, 8, 2, false> }, { "read  4x64 cy2", run_cp<P, 4, 2, false> },
        { "write 32x8 cy1", run_cp<P, 32, 1, true> }, { "write 32x8 cy2 (mgpu)", run_cp<P, 32, 2, true> }, { "write 32x8 cy4", run_cp<P, 32, 4, true> },
        { "write 8x32 cy2", run_cp<P, 8, 2, true> }, { "write 4x64 cy2", run_cp<P, 4, 2, true> },
        { "surface read only 32x8", run_rd<P, 32> }, { "surface read only 4x64", run_rd<P, 4> } };
    for (auto &v : vs) { float ms = timeit(v.f, &c); printf("| %s | %s | %.3f | %.0f |\n", name, v.n, ms, (strstr(v.n, "read only") ? mb / 2 : mb) / ms); }
    // check: write then read back equals (the reads above overwrote lin)
    CK(cudaMemcpy(c.lin, hst.data(), hst.size(), cudaMemcpyHostToDevice));
    run_cp<P, 32, 2, true>(&c); CK(cudaMemset(c.lin2, 0, c.pitch * c.h));
    { unsigned char *t = c.lin; c.lin = c.lin2; run_cp<P, 32, 2, false>(&c); c.lin = t; }
    std::vector<unsigned char> back(hst.size()); CK(cudaMemcpy(back.data(), c.lin2, back.size(), cudaMemcpyDeviceToHost));
    size_t bad = 0; for (int y = 0; y < c.h; y++) bad += memcmp(&back[y * c.pitch], &hst[y * c.pitch], (size_t)c.w * c.px) != 0;
    printf("| %s | round trip write+read | %s | |\n", name, bad ? "DIFFERS" : "same bytes");
    cudaDestroySurfaceObject(c.s); cudaFreeArray(c.arr); cudaFree(c.lin); cudaFree(c.lin2); cudaFree(c.sink);
}
int main()
{
    printf("| 8K array | variant | ms | GB/s (read + written) |\n|---|---|---|---|\n");
    suite<unsigned>("RGBA8 (4 B)", cudaCreateChannelDesc<uchar4>());
    suite<uint4>("RGBA32F (16 B)", cudaCreateChannelDesc<float4>());
    return 0;
}
