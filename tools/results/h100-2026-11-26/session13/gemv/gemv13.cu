// Session 13 harness (session 12's gemv12.cu, other copies): the W8A8 decode GEMV of commit dc3239d (v0), with two weight
// tiles per CTA at M 9..16 (v1), and the new code with one tile (v2); make_variants.sh writes the copies.
// Each copy is compiled here in a namespace of its own; outputs compared byte for byte; times
// side by side (batched events behind a GPU sleep, weights rotated over copies larger than L2), against the weight
// bytes at the 1 GiB device-to-device copy rate.
// Build (repository root): bash tools/results/h100-2026-11-26/session13/gemv/make_variants.sh && cd <this folder> && nvcc -std=c++17 -O3 -gencode=arch=compute_90,code=sm_90 gemv13.cu -o gemv13
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include <random>
#include <algorithm>
#define cg cg_v0
#define cg_gemv cg_gemv_v0
#include "../../../../../devtmp/gemv13/v0/gemv_w8a8.cu"
#undef cg
#undef cg_gemv
#define cg cg_v1
#define cg_gemv cg_gemv_v1
#include "../../../../../devtmp/gemv13/v1/gemv_w8a8.cu"
#undef CG_GEMV_TILES16
#undef cg
#undef cg_gemv
#define cg cg_v2
#define cg_gemv cg_gemv_v2
#include "../../../../../devtmp/gemv13/v2/gemv_w8a8.cu"
#undef CG_GEMV_TILES16
#undef cg
#undef cg_gemv

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { printf("CUDA error %s at %s:%d\n", cudaGetErrorString(e_), __FILE__, __LINE__); exit(1); } } while (0)
using LaunchFn = int (*)(void const*, void const*, void*, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, void const*,
                         void const*, void const*, void const*, void const*, void const*, void*, size_t, void*, int);

__global__ void spin(long long cycles) { long long t0 = clock64(); while (clock64() - t0 < cycles) {} }
template <typename F>
static float batched(F&& f, int batch = 20, int batches = 9) {
  for (int i = 0; i < 3; ++i) f(i);
  CK(cudaDeviceSynchronize());
  std::vector<float> t;
  cudaEvent_t a, b; CK(cudaEventCreate(&a)); CK(cudaEventCreate(&b));
  int k = 0;
  for (int r = 0; r < batches; ++r) {
    spin<<<1, 1>>>(3000000);
    CK(cudaEventRecord(a, 0));
    for (int i = 0; i < batch; ++i) f(k++);
    CK(cudaEventRecord(b, 0));
    CK(cudaEventSynchronize(b));
    float ms; CK(cudaEventElapsedTime(&ms, a, b)); t.push_back(ms * 1000.f / batch);
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

int main() {
  cudaDeviceProp p; CK(cudaGetDeviceProperties(&p, 0));
  printf("device %s, %d SMs\n", p.name, p.multiProcessorCount);
  // copy rate
  const size_t gib = size_t(1) << 30;
  void *cs, *cd; CK(cudaMalloc(&cs, gib)); CK(cudaMalloc(&cd, gib)); CK(cudaMemset(cs, 1, gib));
  const float tcopy = batched([&](int) { CK(cudaMemcpyAsync(cd, cs, gib, cudaMemcpyDeviceToDevice, 0)); }, 3, 5);
  CK(cudaFree(cs)); CK(cudaFree(cd));
  const float bw = 2.0f * gib / (tcopy * 1e-6f) / 1e9f;
  printf("copy bandwidth (1 GiB device-to-device, read + written): %.0f GB/s\n", bw);
  struct S { bool fp8; int m, n, k; };
  const std::vector<S> shapes = {{false, 1, 8192, 8192}, {false, 16, 8192, 8192}, {false, 1, 4096, 14336}, {false, 16, 4096, 14336},
                                 {false, 4, 8192, 8192}, {false, 1, 28672, 4096}, {false, 16, 14336, 4096}, {false, 8, 4096, 4096},
                                 {true, 1, 8192, 8192}, {true, 8, 4096, 14336}, {true, 16, 4096, 4096}, {true, 1, 28672, 4096}};
  LaunchFn fns[3][2];
  for (int f = 0; f < 2; ++f) {
    fns[0][f] = reinterpret_cast<LaunchFn>(cg_v0::gemv_w8a8_address(f, true, true, true));
    fns[1][f] = reinterpret_cast<LaunchFn>(cg_v1::gemv_w8a8_address(f, true, true, true));
    fns[2][f] = reinterpret_cast<LaunchFn>(cg_v2::gemv_w8a8_address(f, true, true, true));
  }
  printf("%-5s %-16s %10s %10s %10s   %6s %6s %6s  %s\n", "type", "M x N x K", "v0 us", "2 tiles", "1 tile", "v0 %", "v1 %", "v2 %", "bytes");
  int bad = 0;
  for (auto s : shapes) {
    const size_t wbytes = size_t(s.n) * s.k;
    const int nbuf = int(std::min<size_t>(16, std::max<size_t>(2, (400u << 20) / wbytes + 1)));
    std::vector<void*> ws(nbuf);
    std::vector<uint8_t> hw(wbytes), ha(size_t(s.m) * s.k);
    std::mt19937 g(s.m + s.n + s.k);
    for (auto& v : hw) v = s.fp8 ? uint8_t((g() % 0x70) | (g() & 0x80)) : uint8_t(g());  // fp8: finite, |x| < 1 ... < 2^7
    for (auto& v : ha) v = s.fp8 ? uint8_t((g() % 0x70) | (g() & 0x80)) : uint8_t(g());
    for (auto& w : ws) { CK(cudaMalloc(&w, wbytes)); CK(cudaMemcpy(w, hw.data(), wbytes, cudaMemcpyHostToDevice)); }
    void *a, *out[3], *bias; float *sa, *sb;
    CK(cudaMalloc(&a, ha.size())); CK(cudaMemcpy(a, ha.data(), ha.size(), cudaMemcpyHostToDevice));
    for (auto& o : out) CK(cudaMalloc(&o, size_t(s.m) * s.n * 2));
    CK(cudaMalloc(&bias, s.n * 2)); CK(cudaMemset(bias, 0x3c, s.n * 2));
    std::vector<float> hs(std::max(s.m, s.n), 0.01f);
    CK(cudaMalloc(&sa, s.m * 4)); CK(cudaMemcpy(sa, hs.data(), s.m * 4, cudaMemcpyHostToDevice));
    CK(cudaMalloc(&sb, s.n * 4)); CK(cudaMemcpy(sb, hs.data(), s.n * 4, cudaMemcpyHostToDevice));
    auto call = [&](int v, int i) {
      int rc = fns[v][s.fp8](a, ws[i % nbuf], out[v], s.m, s.n, s.k, s.k, s.k, s.n, sa, sb, nullptr, nullptr, nullptr, bias,
                             nullptr, 0, nullptr, 0);
      if (rc) { printf("launch failed (variant %d)\n", v); exit(1); }
    };
    for (int v = 0; v < 3; ++v) { CK(cudaMemset(out[v], 0x7f, size_t(s.m) * s.n * 2)); call(v, 0); }
    CK(cudaDeviceSynchronize());
    std::vector<uint8_t> o0(size_t(s.m) * s.n * 2), o1(o0.size()), o2(o0.size());
    CK(cudaMemcpy(o0.data(), out[0], o0.size(), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(o1.data(), out[1], o0.size(), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(o2.data(), out[2], o0.size(), cudaMemcpyDeviceToHost));
    const bool same = o0 == o1 && o0 == o2;
    bad += !same;
    float t[3] = {0, 0, 0};
    for (int r = 0; r < 3; ++r)  // three rounds, order turning; the smallest median of each
      for (int j = 0; j < 3; ++j) {
        const int v = (j + r) % 3;
        const float x = batched([&](int i) { call(v, i); });
        t[v] = r == 0 ? x : std::min(t[v], x);
      }
    const float floor_us = (wbytes + ha.size() + size_t(s.m) * s.n * 2) / (bw * 1e3f);
    printf("%-5s %5dx%5dx%-5d %10.2f %10.2f %10.2f   %5.1f%% %5.1f%% %5.1f%%  %s\n", s.fp8 ? "e4m3" : "int8", s.m, s.n, s.k, t[0], t[1],
           t[2], 100 * floor_us / t[0], 100 * floor_us / t[1], 100 * floor_us / t[2], same ? "same" : "DIFFERENT");
    for (auto& w : ws) cudaFree(w);
    cudaFree(a); for (auto& o : out) cudaFree(o); cudaFree(bias); cudaFree(sa); cudaFree(sb);
  }
  printf("CHECKS: %d differ\n", bad);
  return bad;
}
