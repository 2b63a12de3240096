// image_blur.cu - the 8-bit blur of an optimal-tiled image (a CUDA array through a surface object)
// in one pass (mgpu_kernels.cu's imgpipe, with its in-place frame imgframe) against the copy path
// (mgpu_img_read, the pipelined buffer kernel, mgpu_img_write) and the buffer blur alone, on one GPU:
// 8K arrays (cudaMallocArray, cudaArraySurfaceLoadStore), radius 2, every result checked against a
// CPU blur of the same integer arithmetic (several borders, shapes and channel counts too).
// CUDA events, median of 20 after 3 warm-ups.
// Build: make build/blur_section.cu && nvcc -O3 -std=c++17 -arch=sm_90 -Ibuild -o build/bench_image_blur bench/image_blur.cu
// Run: build/bench_image_blur surftest (16-byte surface words on arrays of 1..16-byte pixels, in a
// process of its own: a refused access ends the context), then build/bench_image_blur [sop16].
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include <algorithm>
#include <string>
#include "blur_section.cu"
#define CK(x) do { cudaError_t e_ = (x); if (e_) { printf("%s: %s (line %d)\n", #x, cudaGetErrorString(e_), __LINE__); exit(1); } } while (0)

template <int C, int SOP, int MINB>
__global__ void __launch_bounds__(128, MINB) k_imgp(const mgpu_blr::args a, const mgpu_blr::imgp g) { mgpu_blr::imgpipe<C, SOP, 4>(a, g); }
template <int SOP>
__global__ void __launch_bounds__(256) k_frame(const mgpu_blr::args a, const mgpu_blr::imgp g) { mgpu_blr::imgframe<SOP>(a, g); }
template <int C> __global__ void __launch_bounds__(128, 4) k_pipe(const mgpu_blr::args a) { mgpu_blr::pipe<C, MGPU_BLUR_PIPE_PF, 4, MGPU_BLUR_PIPE_CACHE, MGPU_BLUR_PIPE_ARITH>(a); }

// ---- surftest: uint4 reads and writes at 16-byte offsets on arrays of px-byte pixels
template <typename P> struct Desc;
__global__ void k_rd16(cudaSurfaceObject_t s, uint4 *out, int wb, int h)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x, n = wb / 16;
    if (t < n * h) out[t] = surf2Dread<uint4>(s, (t % n) * 16, t / n);
}
__global__ void k_wr16(cudaSurfaceObject_t s, const uint4 *in, int wb, int h)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x, n = wb / 16;
    if (t < n * h) surf2Dwrite<uint4>(in[t], s, (t % n) * 16, t / n);
}
static int surftest(int px, cudaChannelFormatDesc fd)
{
    const int w = 256, h = 16, wb = w * px;
    cudaArray_t arr; cudaSurfaceObject_t s;
    CK(cudaMallocArray(&arr, &fd, w, h, cudaArraySurfaceLoadStore));
    cudaResourceDesc rd; memset(&rd, 0, sizeof rd); rd.resType = cudaResourceTypeArray; rd.res.array.array = arr;
    CK(cudaCreateSurfaceObject(&s, &rd));
    std::vector<unsigned char> a(wb * h), b(wb * h), c(wb * h);
    for (auto &x : a) x = rand() >> 5;
    for (auto &x : b) x = rand() >> 5;
    uint4 *d; CK(cudaMalloc(&d, wb * h));
    CK(cudaMemcpy2DToArray(arr, 0, 0, a.data(), wb, wb, h, cudaMemcpyHostToDevice));
    k_rd16<<<(wb * h / 16 + 127) / 128, 128>>>(s, d, wb, h);
    cudaError_t e = cudaDeviceSynchronize();
    if (e) { printf("| %d-byte pixels | uint4 surf2Dread | error %s |\n", px, cudaGetErrorString(e)); return 1; }
    CK(cudaMemcpy(c.data(), d, wb * h, cudaMemcpyDeviceToHost));
    printf("| %d-byte pixels | uint4 surf2Dread | %s |\n", px, memcmp(a.data(), c.data(), wb * h) ? "WRONG" : "right bytes");
    int bad = memcmp(a.data(), c.data(), wb * h) != 0;
    CK(cudaMemcpy(d, b.data(), wb * h, cudaMemcpyHostToDevice));
    k_wr16<<<(wb * h / 16 + 127) / 128, 128>>>(s, d, wb, h);
    e = cudaDeviceSynchronize();
    if (e) { printf("| %d-byte pixels | uint4 surf2Dwrite | error %s |\n", px, cudaGetErrorString(e)); return 1; }
    CK(cudaMemcpy2DFromArray(c.data(), wb, arr, 0, 0, wb, h, cudaMemcpyDeviceToHost));
    printf("| %d-byte pixels | uint4 surf2Dwrite | %s |\n", px, memcmp(b.data(), c.data(), wb * h) ? "WRONG" : "right bytes");
    bad |= memcmp(b.data(), c.data(), wb * h) != 0;
    cudaDestroySurfaceObject(s); cudaFreeArray(arr); cudaFree(d);
    return bad;
}

// ---- CPU reference: the library's 8-bit arithmetic (mgpu_kernels.cu, Gaussian blur)
static int mapi(int p, int n, int border)
{
    if (p >= 0 && p < n) return p;
    if (border == 0) return p < 0 ? 0 : n - 1;
    if (border != 1) return -1;
    if (n == 1) return 0;
    for (;;) { if (p < 0) p = -p; else if (p >= n) p = (n - 1) - (p - (n - 1)); else return p; }
}
static void cpu_blur(const unsigned char *src, unsigned char *dst, int w, int h, int C, int r, int border, int cval, const unsigned *wi)
{
    const size_t rl = (size_t)w * C;
    std::vector<unsigned> hr((size_t)h * rl);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            for (int c = 0; c < C; c++) {
                unsigned acc = 0;
                for (int k = -r; k <= r; k++) {
                    int m = mapi(x + k, w, border);
                    unsigned v = m < 0 ? (unsigned)cval : src[(size_t)y * rl + (size_t)m * C + c];
                    acc += wi[k < 0 ? -k : k] * v;
                }
                hr[(size_t)y * rl + (size_t)x * C + c] = acc;
            }
    const unsigned hc = (unsigned)cval * 4096u;
    for (int y = 0; y < h; y++)
        for (size_t e = 0; e < rl; e++) {
            unsigned acc = 1u << 23;
            for (int k = -r; k <= r; k++) {
                int m = mapi(y + k, h, border);
                acc += wi[k < 0 ? -k : k] * (m < 0 ? hc : hr[(size_t)m * rl + e]);
            }
            dst[(size_t)y * rl + e] = (unsigned char)(acc >> 24);
        }
}

struct Img {
    int w, h, C; size_t rl;
    cudaArray_t A, B; cudaSurfaceObject_t sa, sb;
    unsigned char *L0, *L1, *frame; size_t fbytes;
    std::vector<unsigned char> host, ref;
};
static void img_make(Img &m, int w, int h, int C)
{
    m.w = w; m.h = h; m.C = C; m.rl = (size_t)w * C;
    cudaChannelFormatDesc fd = C == 4 ? cudaCreateChannelDesc<uchar4>() : C == 2 ? cudaCreateChannelDesc<uchar2>() : cudaCreateChannelDesc<unsigned char>();
    CK(cudaMallocArray(&m.A, &fd, w, h, cudaArraySurfaceLoadStore));
    CK(cudaMallocArray(&m.B, &fd, w, h, cudaArraySurfaceLoadStore));
    cudaResourceDesc rd; memset(&rd, 0, sizeof rd); rd.resType = cudaResourceTypeArray;
    rd.res.array.array = m.A; CK(cudaCreateSurfaceObject(&m.sa, &rd));
    rd.res.array.array = m.B; CK(cudaCreateSurfaceObject(&m.sb, &rd));
    CK(cudaMalloc(&m.L0, m.rl * h)); CK(cudaMalloc(&m.L1, m.rl * h));
    m.fbytes = 64u << 20; CK(cudaMalloc(&m.frame, m.fbytes));
    m.host.resize(m.rl * h); m.ref.resize(m.rl * h);
    for (auto &x : m.host) x = (unsigned char)(rand() >> 7);
}
static void img_free(Img &m)
{
    cudaDestroySurfaceObject(m.sa); cudaDestroySurfaceObject(m.sb); cudaFreeArray(m.A); cudaFreeArray(m.B);
    cudaFree(m.L0); cudaFree(m.L1); cudaFree(m.frame);
}
static void upload(Img &m, cudaArray_t arr) { CK(cudaMemcpy2DToArray(arr, 0, 0, m.host.data(), m.rl, m.rl, m.h, cudaMemcpyHostToDevice)); }
static size_t check_arr(Img &m, cudaArray_t arr)
{
    std::vector<unsigned char> got(m.rl * m.h);
    CK(cudaDeviceSynchronize());
    CK(cudaMemcpy2DFromArray(got.data(), m.rl, arr, 0, 0, m.rl, m.h, cudaMemcpyDeviceToHost));
    size_t bad = 0;
    for (size_t i = 0; i < got.size(); i++) bad += got[i] != m.ref[i];
    return bad;
}
static size_t check_lin(Img &m, unsigned char *p)
{
    std::vector<unsigned char> got(m.rl * m.h);
    CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(got.data(), p, got.size(), cudaMemcpyDeviceToHost));
    size_t bad = 0;
    for (size_t i = 0; i < got.size(); i++) bad += got[i] != m.ref[i];
    return bad;
}

static const unsigned WI[3] = { 1640, 1028, 200 };     // 1640 + 2 (1028 + 200) = 4096
static mgpu_blr::args make_args(const Img &m, int border, int strip, int r = 2)
{
    mgpu_blr::args a; memset(&a, 0, sizeof a);
    a.spitch = a.dpitch = m.rl; a.width = m.w; a.height = m.h; a.channels = m.C; a.src_row0 = 0;
    a.y_begin = 0; a.y_end = m.h; a.radius = r; a.border = border; a.strip = strip; a.vec_src = a.vec_dst = 1; a.cval_u8 = 77;
    for (int k = 0; k <= r; k++) a.wi[k] = WI[k];
    if (r < 2) { a.wi[0] = 4096 - 2 * (r ? WI[1] : 0); if (r) a.wi[1] = WI[1]; }
    return a;
}
static int nsegs_of(const Img &m) { return (int)((m.rl / 16 + MGPU_BLUR_IMGP_SEG - 1) / MGPU_BLUR_IMGP_SEG); }
static int auto_strip(const Img &m)
{
    long long per_row = nsegs_of(m), target = 132 * 16;
    long long s = (m.h * per_row + target - 1) / target;
    if (s < 8) s = 8; if (s > 512) s = 512; s = (s + 1) & ~1LL;
    return (int)s;
}

typedef void (*imgp_fn)(const mgpu_blr::args, const mgpu_blr::imgp);
typedef void (*frame_fn)(const mgpu_blr::args, const mgpu_blr::imgp);
static mgpu_blr::imgp make_g(Img &m, const mgpu_blr::args &a, bool inplace, cudaSurfaceObject_t src, cudaSurfaceObject_t dst)
{
    mgpu_blr::imgp g; memset(&g, 0, sizeof g);
    g.src = src; g.dst = dst; g.nsegs = nsegs_of(m); g.nstrips = (m.h + a.strip - 1) / a.strip;
    if (inplace) {
        g.frame = (unsigned long long)m.frame; g.fpitch = m.rl;
        size_t rows = (size_t)4 * g.nstrips * m.rl;
        g.cols = (unsigned long long)(m.frame + ((rows + 255) & ~(size_t)255));
        if (rows + 256 + (size_t)g.nsegs * 2 * m.h * 16 > m.fbytes) { printf("frame too small\n"); exit(1); }
    }
    return g;
}
static void run_imgp(imgp_fn f, frame_fn fr, const mgpu_blr::args &a, const mgpu_blr::imgp &g, const Img &m)
{
    if (g.frame) {
        long long n = (long long)g.nstrips * 4 * (m.rl / 16) + (long long)g.nsegs * 2 * m.h;
        fr<<<(unsigned)((n + 255) / 256), 256>>>(a, g);
    }
    long long items = (long long)g.nsegs * g.nstrips;
    f<<<(unsigned)((items + 3) / 4), 128>>>(a, g);
}
static void run_copy(bool to, cudaSurfaceObject_t s, unsigned char *lin, const Img &m)
{
    mgpu_blr::imgcopy c; memset(&c, 0, sizeof c);
    c.surf = s; c.lin = (unsigned long long)lin; c.pitch = m.rl; c.width = m.w; c.height = m.h; c.px = m.C;
    c.tiles = (int)((m.rl + 63) / 64);
    int groups = (m.h + 127) / 128;
    if (to) mgpu_img_write<<<c.tiles * groups, 256>>>(c); else mgpu_img_read<<<c.tiles * groups, 256>>>(c);
}
static void run_pipe(const mgpu_blr::args &a, const Img &m)
{
    long long per_row = (m.rl + 511) / 512, items = per_row * ((m.h + a.strip - 1) / a.strip);
    unsigned blocks = (unsigned)((items + 3) / 4);
    if (m.C == 4) k_pipe<4><<<blocks, 128>>>(a); else k_pipe<1><<<blocks, 128>>>(a);
}
static int pipe_strip(const Img &m)
{
    long long per_row = (m.rl + 511) / 512, target = 132 * 16, s = (m.h * per_row + target - 1) / target;
    if (s < 16) s = 16; if (s > 512) s = 512; return (int)s;
}
template <typename F> static float timeit(F f)
{
    cudaEvent_t a, b; CK(cudaEventCreate(&a)); CK(cudaEventCreate(&b));
    std::vector<float> v;
    for (int i = -3; i < 20; i++) { CK(cudaEventRecord(a)); f(); CK(cudaEventRecord(b)); CK(cudaEventSynchronize(b)); float ms; CK(cudaEventElapsedTime(&ms, a, b)); if (i >= 0) v.push_back(ms); }
    CK(cudaGetLastError());
    std::sort(v.begin(), v.end()); cudaEventDestroy(a); cudaEventDestroy(b); return v[10];
}

struct Var { const char *name; imgp_fn f; frame_fn fr; };
template <int C> static std::vector<Var> variants(bool sop16)
{
    std::vector<Var> v;
    if (sop16) {
        v.push_back({ "sop16 lb4", k_imgp<C, 16, 4>, k_frame<16> });
        v.push_back({ "sop16 lb3", k_imgp<C, 16, 3>, k_frame<16> });
    }
    v.push_back({ C == 4 ? "sop4 lb4" : C == 2 ? "sop2 lb4" : "sop1 lb4", k_imgp<C, C, 4>, k_frame<C> });
    return v;
}

// correctness over shapes, borders, radii; every variant, into another and in place
template <int C> static int correctness(bool sop16)
{
    int fails = 0;
    const int shapes[][2] = { { 4000 / C, 333 }, { 496 / C, 37 }, { 16 / C, 5 }, { 7680 / C, 64 }, { 32 / C, 1 } };
    for (auto &sh : shapes) {
        Img m; img_make(m, sh[0], sh[1], C);
        for (int border = 0; border < 3; border++)
            for (int r = 0; r <= 2; r++) {
                mgpu_blr::args a = make_args(m, border, 0, r);
                cpu_blur(m.host.data(), m.ref.data(), m.w, m.h, C, r, border, a.cval_u8, a.wi);
                for (int strip : { 2, 8, 10, 64 }) {
                    a.strip = strip;
                    for (auto &v : variants<C>(sop16))
                        for (int inplace = 0; inplace < 2; inplace++) {
                            upload(m, m.A);
                            mgpu_blr::imgp g = make_g(m, a, inplace, m.sa, inplace ? m.sa : m.sb);
                            run_imgp(v.f, v.fr, a, g, m);
                            CK(cudaGetLastError());
                            size_t bad = check_arr(m, inplace ? m.A : m.B);
                            if (bad) { fails++; printf("FAIL C=%d %dx%d border %d r %d strip %d %s %s: %zu bytes differ\n", C, m.w, m.h, border, r, strip, v.name, inplace ? "in place" : "into another", bad); }
                        }
                }
            }
        img_free(m);
    }
    printf("correctness C=%d: %s\n", C, fails ? "FAILURES" : "all bit-identical to the CPU blur");
    return fails;
}

template <int C> static void perf(bool sop16, std::vector<std::string> &table)
{
    Img m; img_make(m, 7680, 4320, C);
    const double mb = 2.0 * m.rl * m.h / 1e6;
    char line[256];
    mgpu_blr::args a = make_args(m, 0, pipe_strip(m));
    cpu_blur(m.host.data(), m.ref.data(), m.w, m.h, C, 2, 0, a.cval_u8, a.wi);
    // buffer blur
    CK(cudaMemcpy(m.L0, m.host.data(), m.rl * m.h, cudaMemcpyHostToDevice));
    a.src = (unsigned long long)m.L0; a.dst = (unsigned long long)m.L1;
    float tb = timeit([&] { run_pipe(a, m); });
    size_t bad = check_lin(m, m.L1);
    snprintf(line, sizeof line, "| C=%d | buffer blur (pipe, strip %d) | %.4f | %.0f | 1.000 | %s |", C, a.strip, tb, mb / tb, bad ? "WRONG" : "ok"); table.push_back(line);
    // copy path
    for (int inplace = 0; inplace < 2; inplace++) {
        upload(m, m.A);
        cudaSurfaceObject_t dst = inplace ? m.sa : m.sb;
        auto f = [&] { run_copy(false, m.sa, m.L0, m); run_pipe(a, m); run_copy(true, dst, m.L1, m); };
        f(); bad = check_arr(m, inplace ? m.A : m.B);
        float t = timeit(f);
        snprintf(line, sizeof line, "| C=%d | copy path %s | %.4f | %.0f | %.3f | %s |", C, inplace ? "in place" : "into another", t, mb / t, tb / t, bad ? "WRONG" : "ok"); table.push_back(line);
    }
    {
        float t1 = timeit([&] { run_copy(false, m.sa, m.L0, m); }), t2 = timeit([&] { run_copy(true, m.sb, m.L1, m); });
        snprintf(line, sizeof line, "| C=%d | mgpu_img_read / mgpu_img_write alone | %.4f / %.4f | %.0f / %.0f | | |", C, t1, t2, mb / t1, mb / t2); table.push_back(line);
    }
    // one pass
    std::vector<int> strips = { auto_strip(m), 32, 64, 128, 256 };
    for (auto &v : variants<C>(sop16))
        for (int s : strips) {
            a.strip = s;
            for (int inplace = 0; inplace < 2; inplace++) {
                upload(m, m.A);
                mgpu_blr::imgp g = make_g(m, a, inplace, m.sa, inplace ? m.sa : m.sb);
                run_imgp(v.f, v.fr, a, g, m);
                bad = check_arr(m, inplace ? m.A : m.B);
                float t = timeit([&] { run_imgp(v.f, v.fr, a, g, m); });
                snprintf(line, sizeof line, "| C=%d | one pass %s, %s, strip %d | %.4f | %.0f | %.3f | %s |", C, v.name, inplace ? "in place (frame + kernel)" : "into another", s, t, mb / t, tb / t, bad ? "WRONG" : "ok");
                table.push_back(line);
                if (inplace) {
                    long long n = (long long)g.nstrips * 4 * (m.rl / 16) + (long long)g.nsegs * 2 * m.h;
                    float tf = timeit([&] { v.fr<<<(unsigned)((n + 255) / 256), 256>>>(a, g); });
                    snprintf(line, sizeof line, "| C=%d | frame alone (%s, strip %d, %.1f MB) | %.4f | | | |", C, v.name, s, n * 16 / 1e6, tf);
                    table.push_back(line);
                }
            }
        }
    img_free(m);
}

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "surftest")) {
        printf("| array | access | result |\n|---|---|---|\n");
        int bad = surftest(1, cudaCreateChannelDesc<unsigned char>()) | surftest(2, cudaCreateChannelDesc<uchar2>()) |
                  surftest(4, cudaCreateChannelDesc<uchar4>()) | surftest(8, cudaCreateChannelDesc<uint2>()) |
                  surftest(16, cudaCreateChannelDesc<float4>());
        printf("surftest: %s\n", bad ? "FAILED" : "16-byte words work on every pixel size");
        return bad;
    }
    const bool sop16 = argc > 1 && !strncmp(argv[1], "sop16", 5);
    if (argc > 2 && !strcmp(argv[2], "one")) {         // one launch of each one-pass form (for ncu)
        Img m; img_make(m, 7680, 4320, 4);
        mgpu_blr::args a = make_args(m, 0, auto_strip(m));
        Var v = variants<4>(sop16)[0];
        for (int inplace = 0; inplace < 2; inplace++) {
            upload(m, m.A);
            mgpu_blr::imgp g = make_g(m, a, inplace, m.sa, inplace ? m.sa : m.sb);
            run_imgp(v.f, v.fr, a, g, m);
        }
        mgpu_blr::args pa = make_args(m, 0, pipe_strip(m));
        pa.src = (unsigned long long)m.L0; pa.dst = (unsigned long long)m.L1;
        run_pipe(pa, m);
        CK(cudaDeviceSynchronize());
        return 0;
    }
    int fails = correctness<4>(sop16) + correctness<1>(sop16) + correctness<2>(sop16);
    std::vector<std::string> table;
    perf<4>(sop16, table);
    perf<1>(sop16, table);
    printf("\n| image | variant | ms | GB/s (read + written) | x buffer blur | check |\n|---|---|---|---|---|---|\n");
    for (auto &l : table) printf("%s\n", l.c_str());
    printf("correctness failures: %d\n", fails);
    return fails != 0;
}
