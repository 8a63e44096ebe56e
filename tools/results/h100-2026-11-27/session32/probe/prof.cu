// Session 32 probe: one weight-only decode kernel, launched 12 times on one weight (bf16 x, symmetric), for Nsight
// Compute (call3/command.sh profiles the 6th launch).  prof CASE, CASE one of the names below. A probe, not a design.
#include <cstdio>
#include <cstring>
#include <string>

#include "wo_launch.cuh"

using namespace cg_wo;
using T = __nv_bfloat16;

__global__ void fill_bytes(uint8_t* p, size_t n, uint32_t seed) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
    uint32_t v = (uint32_t)i * 2654435761u ^ seed;
    v ^= v >> 13; v *= 0x5bd1e995u; v ^= v >> 15;
    p[i] = (uint8_t)v;
  }
}
__global__ void fill_t(T* p, size_t n, float amp) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
    p[i] = __float2bfloat16(((i * 2654435761u >> 16 & 0xffff) / 65536.0f - 0.5f) * amp);
}

int main(int argc, char** argv) {
  const std::string c = argc > 1 ? argv[1] : "";
  int bits = 4, m = 16, n = 8192, k = 8192, force = 0;
  WoKernel kern;
  if (c == "i4_v22_m16") kern = wd_kernel<T, 4, false, 16, 4, 2, 1, 512>();
  else if (c == "i4_v22_m1") { kern = wd_kernel<T, 4, false, 16, 4, 2, 1, 512>(); m = 1; force = 6; }
  else if (c == "i4_v23_m1") { kern = wd_kernel<T, 4, false, 1, 1, 16, 1, 1024>(); m = 1; }
  else if (c == "i4_v16_m8") { kern = wd_kernel<T, 4, false, 8, 4, 2, 1, 1024>(); m = 8; }
  else if (c == "i8_v22_m16") { kern = wd_kernel<T, 8, false, 16, 4, 2, 1, 512>(); bits = 8; }
  else if (c == "i8_v23_m1") { kern = wd_kernel<T, 8, false, 1, 1, 16, 1, 1024>(); bits = 8; m = 1; }
  else { fprintf(stderr, "unknown case\n"); return 2; }
  const int gshift = bits == 8 ? kPerChannelShift : 7;
  const size_t wbytes = (size_t)n * k * bits / 8, srows = bits == 8 ? 1 : k / 128;
  uint8_t* w; T *sc, *x, *y; float* ws; int* ct;
  cudaMalloc(&w, wbytes); cudaMalloc(&sc, srows * n * 2); cudaMalloc(&x, (size_t)m * k * 2); cudaMalloc(&y, (size_t)m * n * 2);
  cudaMalloc(&ws, 64 << 20); cudaMalloc(&ct, 1 << 16); cudaMemset(ct, 0, 1 << 16);
  fill_bytes<<<1024, 256>>>(w, wbytes, 7);
  fill_t<<<64, 256>>>(sc, srows * n, 0.1f);
  fill_t<<<64, 256>>>(x, (size_t)m * k, 2.0f);
  const WoPlan p = wo_plan(kern, n, k, force);
  WoArgs a{};
  a.x = x, a.ldx = k, a.w = reinterpret_cast<const uint32_t*>(w), a.scales = sc, a.out = y, a.ldo = n;
  a.m = m, a.n = n, a.k = k, a.group_shift = gshift, a.workspace = ws, a.counters = ct;
  int rc = 0;
  for (int i = 0; i < 12; ++i) rc |= (int)launch_wo_gemm(a, p, 0);
  rc |= (int)cudaDeviceSynchronize();
  printf("%s: M=%d N=%d K=%d int%d splits %d CTAs %d threads %d rc %d\n", c.c_str(), m, n, k, bits, p.splits,
         p.ntiles * p.splits, p.kernel.threads, rc);
  return rc;
}
