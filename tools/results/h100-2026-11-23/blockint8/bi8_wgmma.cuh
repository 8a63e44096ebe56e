// EXPERIMENTAL, harness-only (not built into the library yet): an SM90 (sm_90a) variant of the per-block
// int8 GEMM for large M that issues wgmma instead of mma.sync, for the lead to check and time next to the
// default kernel (bb.cu's "wgmma" rows). Same math, arguments, copy plan and epilogue as bi8_gemm.cuh:
// 128 x 128 CTA tile, two warpgroups of 64 x 128 each, 4-stage cp.async pipeline. The shared-memory layout
// of bi8_gemm.cuh (128-byte rows of K, 16-byte chunks XOR row % 8) is exactly the K-major 128-byte-swizzle
// layout wgmma reads through a descriptor when each operand tile starts at a 1024-byte boundary, so the
// loads are unchanged. Per K block: the int32 accumulators start at the magic bits (bi8_gemm.cuh), kBlock /
// 32 wgmma m64n128k32 s8 accumulate into them, wait, then one fma per element into the fp32 accumulators.
// No split-K (large M only). If it passes the checks and beats the mma.sync kernel, wiring it into the
// extension needs sm_90a code for SM90 (runtime/extension.py builds sm_90 now).
#pragma once
#include "../../../../cutlass_gemm/runtime/csrc/bi8_launch.cuh"

namespace cg_bi8_sm90 {
using namespace cg_bi8;

constexpr int kBM = 128, kBN = 128, kThreads = 256, kStages = 4;
constexpr int kStageBytes = (kBM + kBN) * kStageK;   // 32 KB, a multiple of 1024
constexpr int kSmem = kStages * kStageBytes + 1024;  // + slack to align the base to 1024 bytes

#if defined(__CUDA_ARCH__) && (__CUDA_ARCH__ >= 900) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define CG_BI8_WGMMA 1
// Shared-memory matrix descriptor: K-major, 128-byte swizzle, 8-row groups 1024 bytes apart.
__device__ __forceinline__ uint64_t sw128_desc(uint32_t addr) {
  uint64_t d = static_cast<uint64_t>((addr & 0x3FFFF) >> 4);
  d |= static_cast<uint64_t>(1) << 16;           // leading byte offset (unused by swizzled K-major)
  d |= static_cast<uint64_t>(1024 >> 4) << 32;   // stride byte offset
  d |= static_cast<uint64_t>(1) << 62;           // 128-byte swizzle
  return d;
}
__device__ __forceinline__ void wgmma_fence() { asm volatile("wgmma.fence.sync.aligned;" ::: "memory"); }
__device__ __forceinline__ void wgmma_commit() { asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory"); }
__device__ __forceinline__ void wgmma_wait0() { asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory"); }
__device__ __forceinline__ void fence_proxy_async() { asm volatile("fence.proxy.async.shared::cta;" ::: "memory"); }
__device__ __forceinline__ void wgmma_s8(int (&d)[64], uint64_t desc_a, uint64_t desc_b, int scale_d) {
  asm volatile(
      "{\n"
      ".reg .pred p;\n"
      "setp.ne.b32 p, %66, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n128k32.s32.s8.s8 "
      "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63}, "
      "%64, %65, p;\n"
      "}\n"
      : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3]), "+r"(d[4]), "+r"(d[5]), "+r"(d[6]), "+r"(d[7]), "+r"(d[8]), "+r"(d[9]), "+r"(d[10]), "+r"(d[11]), "+r"(d[12]), "+r"(d[13]), "+r"(d[14]), "+r"(d[15]), "+r"(d[16]), "+r"(d[17]), "+r"(d[18]), "+r"(d[19]), "+r"(d[20]), "+r"(d[21]), "+r"(d[22]), "+r"(d[23]), "+r"(d[24]), "+r"(d[25]), "+r"(d[26]), "+r"(d[27]), "+r"(d[28]), "+r"(d[29]), "+r"(d[30]), "+r"(d[31]), "+r"(d[32]), "+r"(d[33]), "+r"(d[34]), "+r"(d[35]), "+r"(d[36]), "+r"(d[37]), "+r"(d[38]), "+r"(d[39]), "+r"(d[40]), "+r"(d[41]), "+r"(d[42]), "+r"(d[43]), "+r"(d[44]), "+r"(d[45]), "+r"(d[46]), "+r"(d[47]), "+r"(d[48]), "+r"(d[49]), "+r"(d[50]), "+r"(d[51]), "+r"(d[52]), "+r"(d[53]), "+r"(d[54]), "+r"(d[55]), "+r"(d[56]), "+r"(d[57]), "+r"(d[58]), "+r"(d[59]), "+r"(d[60]), "+r"(d[61]), "+r"(d[62]), "+r"(d[63])
      : "l"(desc_a), "l"(desc_b), "r"(scale_d));
}
#endif

template <typename T, int kBlock>
__global__ void __launch_bounds__(256, 1) bi8_wgmma_kernel(Bi8Args p) {
#ifdef CG_BI8_WGMMA
  using T2 = typename Ty<T>::T2;
  constexpr int kBlocksPerStage = kStageK / kBlock;
  constexpr int kCPer = (kBM + kBN) * (kStageK / 16) / kThreads;  // 8 copies of 16 bytes per thread
  extern __shared__ __align__(1024) uint8_t smem[];
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5, wg = tid >> 7;
  const int g = lane >> 2, tig = lane & 3;
  const int row0 = wg * 64 + (warp & 3) * 16 + g;  // this thread's first row in the CTA tile (+8: second)
  const int tile = blockIdx.y * gridDim.x + blockIdx.x;
  const int group = kRasterGroup * gridDim.x;
  const int first_m = tile / group * kRasterGroup;
  const int group_m = min(static_cast<int>(gridDim.y) - first_m, kRasterGroup);
  const int m0 = (first_m + tile % group % group_m) * kBM, n0 = tile % group / group_m * kBN;
  const int kblocks = p.k / kBlock;
  const int iters = (p.k + kStageK - 1) / kStageK;

  const int8_t* src[kCPer];
  uint32_t dst_off[kCPer];
  bool live[kCPer];
  const int cc = tid % 8;
#pragma unroll
  for (int i = 0; i < kCPer; ++i) {
    const int c = i * kThreads + tid, row = c / 8;
    dst_off[i] = row * kStageK + ((cc ^ (row & 7)) << 4);
    if (i < kBM * 8 / kThreads) {
      const int r = m0 + row;
      live[i] = r < p.m;
      src[i] = p.a + static_cast<int64_t>(min(r, p.m - 1)) * p.lda + cc * 16;
    } else {
      const int r = n0 + row - kBM;
      live[i] = r < p.n;
      src[i] = p.b + static_cast<int64_t>(min(r, p.n - 1)) * p.ldb + cc * 16;
    }
  }
  const uint32_t smem_base = (cg_wo::smem_u32(smem) + 1023u) & ~1023u;
  auto load = [&](int slot, int st) {
    const uint32_t base = smem_base + slot * kStageBytes;
    const int k0 = st * kStageK;
    const bool k_live = k0 + cc * 16 < p.k;
#pragma unroll
    for (int i = 0; i < kCPer; ++i) {
      if (live[i] && k_live) cg_wo::cp_async16(base + dst_off[i], src[i] + k0);
      else cg_wo::cp_async16_zero(base + dst_off[i], p.a);
    }
  };

  float acc[64];
#pragma unroll
  for (int i = 0; i < 64; ++i) acc[i] = 0.0f;
  int sa_off[2], sb_off[32];
#pragma unroll
  for (int h = 0; h < 2; ++h) sa_off[h] = min(m0 + row0 + 8 * h, p.m - 1) * static_cast<int>(p.sa_rs);
#pragma unroll
  for (int j = 0; j < 32; ++j) sb_off[j] = min(n0 + (j >> 1) * 8 + tig * 2 + (j & 1), p.n - 1) * static_cast<int>(p.sb_rs);

  auto compute = [&](int slot, int st) {
    const uint32_t as = smem_base + slot * kStageBytes + wg * 64 * kStageK;
    const uint32_t bs = smem_base + slot * kStageBytes + kBM * kStageK;
#pragma unroll
    for (int j = 0; j < kBlocksPerStage; ++j) {
      const int kb = st * kBlocksPerStage + j;
      if (kb >= kblocks) break;
      float sa_v[2], sb_v[32];
#pragma unroll
      for (int h = 0; h < 2; ++h) sa_v[h] = __ldg(p.sa + sa_off[h] + kb * static_cast<int>(p.sa_cs));
#pragma unroll
      for (int q = 0; q < 32; ++q) sb_v[q] = __ldg(p.sb + sb_off[q] + kb * static_cast<int>(p.sb_cs));
      int ci[64];
#pragma unroll
      for (int i = 0; i < 64; ++i) ci[i] = kMagicBits;
      wgmma_fence();
#pragma unroll
      for (int ks = 0; ks < kBlock / 32; ++ks) {
        const uint32_t off = j * kBlock + ks * 32;  // bytes along the 128-byte swizzled row
        wgmma_s8(ci, sw128_desc(as + off), sw128_desc(bs + off), 1);
      }
      wgmma_commit();
      wgmma_wait0();
#pragma unroll
      for (int i = 0; i < 64; ++i)
        acc[i] = fmaf(__int_as_float(ci[i]) - kMagic, sa_v[(i >> 1) & 1] * sb_v[(i >> 2) * 2 + (i & 1)], acc[i]);
    }
  };

#pragma unroll
  for (int i = 0; i < kStages - 1; ++i) {
    if (i < iters) load(i, i);
    cg_wo::cp_async_commit();
  }
  for (int it = 0; it < iters; ++it) {
    cg_wo::cp_async_wait<kStages - 2>();
    fence_proxy_async();  // this thread's cp.async writes, visible to wgmma's async-proxy reads
    __syncthreads();
    const int next = it + kStages - 1;
    if (next < iters) load(next % kStages, next);
    cg_wo::cp_async_commit();
    compute(it % kStages, it);
  }
  cg_wo::cp_async_wait<0>();

  // accumulator i: n8 block i / 4, row + 8 * ((i >> 1) & 1), column 2 * tig + (i & 1)
  T* out = static_cast<T*>(p.out);
  const T* bias = static_cast<const T*>(p.bias);
  const bool pairs = (p.ldo % 2) == 0;
#pragma unroll
  for (int jn = 0; jn < 16; ++jn) {
    const int col = n0 + jn * 8 + tig * 2;
    if (col >= p.n) continue;
    const bool two = col + 1 < p.n;
    float b0 = 0.0f, b1 = 0.0f;
    if (bias != nullptr) {
      b0 = Ty<T>::to_f(bias[col]);
      if (two) b1 = Ty<T>::to_f(bias[col + 1]);
    }
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int row = m0 + row0 + 8 * h;
      if (row >= p.m) continue;
      const float v0 = activate(acc[jn * 4 + 2 * h] + b0, p.act);
      const float v1 = activate(acc[jn * 4 + 2 * h + 1] + b1, p.act);
      T* o = out + static_cast<int64_t>(row) * p.ldo + col;
      const T2 v = Ty<T>::pack(v0, v1);
      if (two && pairs) {
        *reinterpret_cast<T2*>(o) = v;
      } else {
        o[0] = v.x;
        if (two) o[1] = v.y;
      }
    }
  }
#else
  __trap();  // built without sm_90a: the harness never launches it there
#endif
}

// As a Bi8Kernel for bi8_plan / launch_bi8_gemm (plan it with force_splits = 1: no split-K).
template <typename T, int kBlock>
Bi8Kernel bi8_wgmma() {
  return {bi8_wgmma_kernel<T, kBlock>, kSmem, kBM, kBN, kThreads, kBlock};
}

}  // namespace cg_bi8_sm90
