// Session 33 probe (c): the mma.sync pipeline kernel (wo_gemm.cuh) with one m16 tile in other CTA shapes than the
// committed variants 1 (mt1 1x4 s4) and 4 (mt1 2x4 s4), at 16 and 8 rows, int4 g128 and int8 per channel, bf16 x; each
// candidate timed in alternation with variant 22 (direct x16 4x2, the table's kernel at 16 x 8192^2) on weight copies
// rotated past L2, outputs compared with it. A probe.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "wo_launch.cuh"

using namespace cg_wo;
using T = __nv_bfloat16;

__global__ void spin(long long ns) {
  long long t0 = clock64();
  while (clock64() - t0 < ns) {}
}
__global__ void fill_bytes(uint8_t* p, size_t n, uint32_t seed) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
    uint32_t v = (uint32_t)i * 2654435761u ^ seed;
    v ^= v >> 13; v *= 0x5bd1e995u; v ^= v >> 15;
    p[i] = (uint8_t)v;
  }
}
__global__ void fill_t(T* p, size_t n, uint32_t seed, float amp) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
    uint32_t v = (uint32_t)i * 2654435761u ^ seed;
    v ^= v >> 13; v *= 0x5bd1e995u; v ^= v >> 15;
    p[i] = __float2bfloat16(((v & 0xffff) / 65536.0f - 0.5f) * amp);
  }
}

struct Cand {
  std::string name;
  WoKernel kern;
  int splits;  // 0: the plan's
};

template <int B>
std::vector<Cand> candidates(int m) {
  return {
      {"v22 direct x16 4x2 u1 t512", wd_kernel<T, B, false, 16, 4, 2, 1, 512>(), 0},
      {"v4 mma mt1 2x4 s4", wo_kernel<T, B, false, 1, 2, 4, 4>(), 0},
      {"v1 mma mt1 1x4 s4", wo_kernel<T, B, false, 1, 1, 4, 4>(), 0},
      {"mma mt1 4x2 s3", wo_kernel<T, B, false, 1, 4, 2, 3>(), 0},
      {"mma mt1 4x2 s4", wo_kernel<T, B, false, 1, 4, 2, 4>(), 0},
      {"mma mt1 2x4 s3", wo_kernel<T, B, false, 1, 2, 4, 3>(), 0},
      {"mma mt1 2x4 s6", wo_kernel<T, B, false, 1, 2, 4, 6>(), 0},
      {"mma mt1 4x1 s6", wo_kernel<T, B, false, 1, 4, 1, 6>(), 0},
      {"mma mt1 2x2 s4", wo_kernel<T, B, false, 1, 2, 2, 4>(), 0},
      {"mma mt1 8x1 s4", wo_kernel<T, B, false, 1, 8, 1, 4>(), 0},
  };
}

template <int B>
void run_bits(int M, cudaStream_t s, cudaEvent_t e0, cudaEvent_t e1) {
  const int shapes[][2] = {{8192, 8192}, {28672, 4096}, {4096, 14336}};
  const std::vector<Cand> cands = candidates<B>(M);
  const int gshift = B == 8 ? kPerChannelShift : 7;  // int8 per channel, int4 group 128
  printf("\nint%d (%s), bf16 x, M = %d; us per call (median of 15 batches of 20, each candidate in alternation with the "
         "committed kernel)\n\n| N x K | candidate | splits | CTAs | us | committed us | ratio | max rel diff |\n"
         "|---|---|---|---|---|---|---|---|\n", B, B == 8 ? "per channel" : "group 128", M);
  for (auto const& sh : shapes) {
    const int n = sh[0], k = sh[1];
    const size_t wbytes = (size_t)n * k * B / 8, srows = B == 8 ? 1 : k / 128;
    const int copies = std::max<size_t>(2, (200u << 20) / wbytes + 1);
    std::vector<uint8_t*> w(copies);
    std::vector<T*> sc(copies);
    for (int i = 0; i < copies; ++i) {
      cudaMalloc(&w[i], wbytes);
      cudaMalloc(&sc[i], srows * n * 2);
      fill_bytes<<<1024, 256>>>(w[i], wbytes, 17 + i);
      fill_t<<<64, 256>>>(sc[i], srows * n, 5 + i, B == 8 ? 0.03f : 0.3f);
    }
    T *x, *y0, *y1;
    cudaMalloc(&x, (size_t)M * k * 2);
    cudaMalloc(&y0, (size_t)M * n * 2);
    cudaMalloc(&y1, (size_t)M * n * 2);
    fill_t<<<256, 256>>>(x, (size_t)M * k, 99, 2.0f);
    float *ws0, *ws1;
    int *ct0, *ct1;
    cudaMalloc(&ws0, 256 << 20);
    cudaMalloc(&ws1, 256 << 20);
    cudaMalloc(&ct0, 1 << 16);
    cudaMalloc(&ct1, 1 << 16);
    cudaMemset(ct0, 0, 1 << 16);
    cudaMemset(ct1, 0, 1 << 16);
    auto args = [&](int i, T* y, float* ws, int* ct) {
      WoArgs a{};
      a.x = x, a.ldx = k, a.w = reinterpret_cast<const uint32_t*>(w[i]), a.scales = sc[i], a.zeros = nullptr;
      a.bias = nullptr, a.out = y, a.ldo = n, a.m = M, a.n = n, a.k = k, a.group_shift = gshift;
      a.workspace = ws, a.counters = ct;
      return a;
    };
    const WoPlan base = wo_plan(cands[0].kern, n, k);
    for (size_t ci = 0; ci < cands.size(); ++ci) {
      auto const& c = cands[ci];
      const WoPlan p = wo_plan(c.kern, n, k, c.splits);
      if (p.err != cudaSuccess || p.ws_floats * 4 > (256 << 20)) {
        printf("| %dx%d | %s | plan failed |\n", n, k, c.name.c_str());
        continue;
      }
      cudaMemsetAsync(y1, 0xff, (size_t)M * n * 2, s);
      int rc = (int)launch_wo_gemm(args(0, y0, ws0, ct0), base, s);
      rc |= (int)launch_wo_gemm(args(0, y1, ws1, ct1), p, s);
      cudaStreamSynchronize(s);
      rc |= (int)cudaGetLastError();
      std::vector<T> a((size_t)M * n), b(a.size());
      cudaMemcpy(a.data(), y0, a.size() * 2, cudaMemcpyDeviceToHost);
      cudaMemcpy(b.data(), y1, b.size() * 2, cudaMemcpyDeviceToHost);
      double num = 0, den = 0;
      for (size_t i = 0; i < a.size(); ++i) {
        const double d = (double)__bfloat162float(a[i]) - (double)__bfloat162float(b[i]);
        num = std::max(num, std::fabs(d));
        den = std::max(den, std::fabs((double)__bfloat162float(a[i])));
      }
      std::vector<float> t0, t1;
      int it = 0;
      for (int r = 0; r < 15; ++r)
        for (int which = 0; which < 2; ++which) {
          const bool cand = (which == 1) == (r % 2 == 0);
          spin<<<1, 1, 0, s>>>(200000);
          cudaEventRecord(e0, s);
          for (int j = 0; j < 20; ++j, ++it) {
            const int i = it % copies;
            rc |= cand ? (int)launch_wo_gemm(args(i, y1, ws1, ct1), p, s) : (int)launch_wo_gemm(args(i, y0, ws0, ct0), base, s);
          }
          cudaEventRecord(e1, s);
          cudaEventSynchronize(e1);
          float ms;
          cudaEventElapsedTime(&ms, e0, e1);
          (cand ? t1 : t0).push_back(ms * 1000.0f / 20);
        }
      std::sort(t0.begin(), t0.end());
      std::sort(t1.begin(), t1.end());
      printf("| %dx%d | %s | %d | %d | %.2f | %.2f | %.3f | %.1e%s |\n", n, k, c.name.c_str(), p.splits, p.ntiles * p.splits,
             t1[7], t0[7], t1[7] / t0[7], den > 0 ? num / den : num, rc ? " ERROR" : "");
      fflush(stdout);
    }
    for (int i = 0; i < copies; ++i) { cudaFree(w[i]); cudaFree(sc[i]); }
    cudaFree(x); cudaFree(y0); cudaFree(y1); cudaFree(ws0); cudaFree(ws1); cudaFree(ct0); cudaFree(ct1);
  }
}

int main() {
  cudaDeviceProp prop;
  cudaGetDeviceProperties(&prop, 0);
  printf("%s, %d SMs\n", prop.name, prop.multiProcessorCount);
  cudaStream_t s;
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  cudaEvent_t e0, e1;
  cudaEventCreate(&e0);
  cudaEventCreate(&e1);
  for (int m : {16, 8}) run_bits<4>(m, s, e0, e1);
  run_bits<8>(16, s, e0, e1);
  return 0;
}
