// Session 10 harness: the W8A8 decode GEMV's register kernel and shared-memory ring kernel
// (cutlass_gemm/runtime/csrc/gemv_w8a8.cuh), every output checked against a naive int32 reference kernel
// (int8: the same float32 epilogue, so equal bits), timed with CUDA events on weights rotated beyond L2.
// nvcc -std=c++17 -O3 -arch=sm_90 -I cutlass_gemm/runtime/csrc gemv_bench.cu -o gemv_bench
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include "gemv_w8a8.cuh"

#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("CUDA %s at %d\n", cudaGetErrorString(e), __LINE__); exit(1); } } while (0)

__global__ void ref_kernel(cg_gemv::GemvArgs p) {
  int col = blockIdx.x * blockDim.x + threadIdx.x, row = blockIdx.y;
  if (col >= p.n) return;
  int acc = 0;
  const int8_t* a = reinterpret_cast<const int8_t*>(p.a) + (int64_t)row * p.lda;
  const int8_t* w = reinterpret_cast<const int8_t*>(p.w) + (int64_t)col * p.ldw;
  for (int k = 0; k < p.k; ++k) acc += int(a[k]) * int(w[k]);
  float v = p.scale_a[p.sa_vec ? row : 0] * (p.scale_b[p.sb_vec ? col : 0] * static_cast<float>(acc));
  if (p.bias) v = v + __bfloat162float(static_cast<const __nv_bfloat16*>(p.bias)[col]);
  static_cast<__nv_bfloat16*>(p.out)[(int64_t)row * p.ldo + col] = __float2bfloat16_rn(v);
}

__global__ void fill(uint8_t* p, int64_t n, uint32_t seed) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x) {
    uint32_t h = (uint32_t)i * 2654435761u ^ seed;
    h ^= h >> 13; h *= 0x5bd1e995u; h ^= h >> 15;
    p[i] = (uint8_t)h;
  }
}

using Launch = std::function<void(cg_gemv::GemvArgs const&)>;

template <int kMT, int kW, int kU>
Launch reg() {
  return [](cg_gemv::GemvArgs const& a) {
    cg_gemv::gemv_w8a8_kernel<false, __nv_bfloat16, kMT, kW, kU><<<(a.n + 15) / 16, kW * 32>>>(a);
  };
}
template <int kMT, int kW, int kS, int kU>
Launch ring() {
  return [](cg_gemv::GemvArgs const& a) {
    auto k = cg_gemv::gemv_w8a8_ring_kernel<false, __nv_bfloat16, kMT, kW, kS, kU>;
    constexpr int smem = cg_gemv::RingShape<kW, kS, kU>::kSmem;
    static bool once = [&] { CK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, smem)); return true; }();
    (void)once;
    k<<<(a.n + 15) / 16, kW * 32, smem>>>(a);
  };
}

int main() {
  float bw;
  {
    int64_t nb = 1ll << 30;
    void *s, *d;
    CK(cudaMalloc(&s, nb)); CK(cudaMalloc(&d, nb));
    cudaEvent_t e0, e1; cudaEventCreate(&e0); cudaEventCreate(&e1);
    std::vector<float> ts;
    for (int r = 0; r < 5; ++r) { cudaEventRecord(e0); CK(cudaMemcpyAsync(d, s, nb, cudaMemcpyDeviceToDevice)); cudaEventRecord(e1); cudaEventSynchronize(e1); float ms; cudaEventElapsedTime(&ms, e0, e1); ts.push_back(ms); }
    std::sort(ts.begin(), ts.end());
    bw = 2.0f * nb / (ts[2] * 1e-3f) / 1e9f;
    printf("copy bandwidth (1 GiB cudaMemcpy, read + written): %.0f GB/s\n", bw);
    cudaFree(s); cudaFree(d);
  }
  struct Shape { int m, n, k; };
  std::vector<Shape> shapes = {{1, 8192, 8192}, {16, 8192, 8192}, {1, 4096, 14336}, {16, 4096, 14336},
                               {1, 14336, 4096}, {16, 14336, 4096}, {1, 28672, 4096}, {8, 1024, 4096}, {13, 2064, 4160}};
  int failures = 0;
  for (auto sh : shapes) {
    const int64_t wbytes = (int64_t)sh.n * sh.k;
    const int copies = std::max<int64_t>(2, (200ll << 20) / wbytes + 1);
    std::vector<uint8_t*> ws(copies);
    for (auto& w : ws) { CK(cudaMalloc(&w, wbytes)); fill<<<1024, 256>>>(w, wbytes, 17u + (uint32_t)(&w - ws.data())); }
    uint8_t* a; float *sa, *sb; __nv_bfloat16 *bias, *out, *ref;
    CK(cudaMalloc(&a, (int64_t)sh.m * sh.k)); fill<<<64, 256>>>(a, (int64_t)sh.m * sh.k, 99);
    std::vector<float> hs(std::max(sh.m, sh.n));
    for (size_t i = 0; i < hs.size(); ++i) hs[i] = 1e-3f * (1 + (i * 37 % 101));
    CK(cudaMalloc(&sa, sh.m * 4)); CK(cudaMemcpy(sa, hs.data(), sh.m * 4, cudaMemcpyHostToDevice));
    CK(cudaMalloc(&sb, sh.n * 4)); CK(cudaMemcpy(sb, hs.data(), sh.n * 4, cudaMemcpyHostToDevice));
    std::vector<__nv_bfloat16> hb(sh.n);
    for (int i = 0; i < sh.n; ++i) hb[i] = __float2bfloat16(0.01f * (i % 13) - 0.05f);
    CK(cudaMalloc(&bias, sh.n * 2)); CK(cudaMemcpy(bias, hb.data(), sh.n * 2, cudaMemcpyHostToDevice));
    CK(cudaMalloc(&out, (int64_t)sh.m * sh.n * 2)); CK(cudaMalloc(&ref, (int64_t)sh.m * sh.n * 2));
    cg_gemv::GemvArgs p{};
    p.a = a; p.w = ws[0]; p.out = ref; p.scale_a = sa; p.scale_b = sb; p.bias = bias;
    p.lda = sh.k; p.ldw = sh.k; p.ldo = sh.n; p.m = sh.m; p.n = sh.n; p.k = sh.k; p.sa_vec = true; p.sb_vec = true;
    ref_kernel<<<dim3((sh.n + 127) / 128, sh.m), 128>>>(p);
    CK(cudaDeviceSynchronize());
    std::vector<uint16_t> href((int64_t)sh.m * sh.n), hout(href.size());
    CK(cudaMemcpy(href.data(), ref, href.size() * 2, cudaMemcpyDeviceToHost));
    const double floor_us = (double)(wbytes + (int64_t)sh.m * sh.k + 2ll * sh.m * sh.n) / (bw * 1e3);
    std::vector<std::pair<std::string, Launch>> vars;
    if (sh.m <= 8) {
      vars = {{"reg w4 u3", reg<1, 4, 3>()}, {"reg w8 u3", reg<1, 8, 3>()}, {"reg w16 u3", reg<1, 16, 3>()},
              {"ring w4 s3 u2", ring<1, 4, 3, 2>()}, {"ring w8 s3 u2", ring<1, 8, 3, 2>()}, {"ring w16 s3 u2", ring<1, 16, 3, 2>()},
              {"ring w4 s4 u2", ring<1, 4, 4, 2>()}, {"ring w8 s4 u2", ring<1, 8, 4, 2>()}, {"ring w8 s6 u1", ring<1, 8, 6, 1>()},
              {"ring w4 s4 u4", ring<1, 4, 4, 4>()}, {"ring w4 s8 u2", ring<1, 4, 8, 2>()}};
    } else {
      vars = {{"reg w4 u2", reg<2, 4, 2>()}, {"reg w8 u2", reg<2, 8, 2>()}, {"reg w16 u2", reg<2, 16, 2>()},
              {"ring w4 s3 u2", ring<2, 4, 3, 2>()}, {"ring w8 s3 u2", ring<2, 8, 3, 2>()}, {"ring w16 s3 u2", ring<2, 16, 3, 2>()},
              {"ring w4 s4 u2", ring<2, 4, 4, 2>()}, {"ring w8 s4 u2", ring<2, 8, 4, 2>()}, {"ring w8 s6 u1", ring<2, 8, 6, 1>()},
              {"ring w4 s4 u4", ring<2, 4, 4, 4>()}, {"ring w4 s8 u2", ring<2, 4, 8, 2>()}};
    }
    printf("%dx%dx%d (floor %.2f us, %d weight copies):", sh.m, sh.n, sh.k, floor_us, copies);
    for (auto& [name, fn] : vars) {
      CK(cudaMemset(out, 0xff, (int64_t)sh.m * sh.n * 2));  // NaN poison
      p.out = out; p.w = ws[0];
      fn(p);
      CK(cudaGetLastError()); CK(cudaDeviceSynchronize());
      CK(cudaMemcpy(hout.data(), out, hout.size() * 2, cudaMemcpyDeviceToHost));
      int64_t bad = 0;
      for (size_t i = 0; i < href.size(); ++i) bad += href[i] != hout[i];
      if (bad) { ++failures; printf("\n  %s: %lld of %zu outputs differ from the reference", name.c_str(), (long long)bad, href.size()); }
      cudaEvent_t e0, e1; cudaEventCreate(&e0); cudaEventCreate(&e1);
      std::vector<float> ts;
      for (int r = 0; r < 9; ++r) {
        cudaEventRecord(e0);
        for (int i = 0; i < 20; ++i) { p.w = ws[(r * 20 + i) % copies]; fn(p); }
        cudaEventRecord(e1); cudaEventSynchronize(e1);
        float ms; cudaEventElapsedTime(&ms, e0, e1); ts.push_back(ms * 1e3f / 20);
      }
      std::sort(ts.begin(), ts.end());
      printf("\n  %-16s %7.2f us  %5.1f%% of floor", name.c_str(), ts[4], 100.0 * floor_us / ts[4]);
      cudaEventDestroy(e0); cudaEventDestroy(e1);
    }
    printf("\n");
    for (auto w : ws) cudaFree(w);
    cudaFree(a); cudaFree(sa); cudaFree(sb); cudaFree(bias); cudaFree(out); cudaFree(ref);
  }
  printf("%d variant/shape failures\n", failures);
  return failures != 0;
}
