// Host side of the weight-only small-M GEMM (plain CUDA runtime, no torch): the tile configuration for
// each M, the split-K plan, and the launch. Used by the torch extension (wo_ops.cu) and by standalone
// harnesses (tools/results/h100-2026-11-23/wo/wb.cu), which also instantiate tuning variants.
#pragma once
#include <algorithm>
#include <mutex>

#include "wo_gemm.cuh"

namespace cg_wo {

// One compiled kernel and the shape of its CTA tile.
struct WoKernel {
  void (*fn)(WoArgs) = nullptr;
  int smem = 0;     // dynamic shared memory, bytes
  int bn = 0;       // columns per CTA
  int warps_k = 0;  // 64-feature warp tiles per stage
  int rows = 0;     // M capacity (16 * m tiles)
  int threads = 0;  // 32 * warps
  int bits = 0;
};

template <typename T, int kBits, bool kZero, int kMTiles, int kWarpsN, int kWarpsK, int kStages>
WoKernel wo_kernel() {
  using S = WoShape<kBits, kZero, kMTiles, kWarpsN, kWarpsK, kStages>;
  return {wo_gemm_kernel<T, kBits, kZero, kMTiles, kWarpsN, kWarpsK, kStages>, S::kSmem, S::kBN, kWarpsK, S::kRows,
          S::kThreads, kBits};
}

// Default configurations, by M, from the harness's tuning rows (tools/results/h100-2026-11-23/session5/
// call2/wb.log, int4 g128 at 8192x8192, 28672x4096, 4096x14336). A CTA re-reads the x rows of its K range
// from L2 for its kWarpsN * 32 columns (x bytes per int4 weight byte: M / (8 * kWarpsN)).
//   M <= 16: 1 m tile, 1 x 4 warps (32 columns, 4 warp tiles along K per stage), 4 stages: the most N
//            tiles, so the least split-K (16x8192x8192: 21.1 us vs 24.1 us for 4 x 1 warps)
//   M <= 32: 2 m tiles, 4 x 1 warps, 4 stages (not measured)
//   M <= 64: 4 m tiles, 4 x 1 warps, 3 stages (64x8192x8192: 34.9 us vs 37.8 us with 4 stages)
template <typename T, int kBits, bool kZero>
WoKernel wo_default_kernel(int m) {
  if (m <= 16) return wo_kernel<T, kBits, kZero, 1, 1, 4, 4>();
  if (m <= 32) return wo_kernel<T, kBits, kZero, 2, 4, 1, 4>();
  return wo_kernel<T, kBits, kZero, 4, 4, 1, 3>();
}

inline WoKernel wo_select(ActType t, int bits, bool zero, int m) {
  if (t == ActType::kHalf) {
    if (bits == 4) return zero ? wo_default_kernel<__half, 4, true>(m) : wo_default_kernel<__half, 4, false>(m);
    return zero ? wo_default_kernel<__half, 8, true>(m) : wo_default_kernel<__half, 8, false>(m);
  }
  if (bits == 4) return zero ? wo_default_kernel<__nv_bfloat16, 4, true>(m) : wo_default_kernel<__nv_bfloat16, 4, false>(m);
  return zero ? wo_default_kernel<__nv_bfloat16, 8, true>(m) : wo_default_kernel<__nv_bfloat16, 8, false>(m);
}

// CTAs of `k` resident per SM and the SM count, on the current device; the first call per (kernel,
// device) also raises the kernel's dynamic shared memory limit. Cached: these are host queries.
struct WoDeviceFit { int per_sm = 1, sms = 1; cudaError_t err = cudaSuccess; };
inline WoDeviceFit wo_fit(WoKernel const& k) {
  struct Entry { void (*fn)(WoArgs); int dev; WoDeviceFit fit; };
  static std::mutex mu;
  static Entry cache[256];
  static int used = 0;
  int dev = 0;
  WoDeviceFit fit;
  if ((fit.err = cudaGetDevice(&dev)) != cudaSuccess) return fit;
  std::lock_guard<std::mutex> lock(mu);
  for (int i = 0; i < used; ++i)
    if (cache[i].fn == k.fn && cache[i].dev == dev) return cache[i].fit;
  fit.err = cudaFuncSetAttribute(k.fn, cudaFuncAttributeMaxDynamicSharedMemorySize, k.smem);
  if (fit.err == cudaSuccess) fit.err = cudaDeviceGetAttribute(&fit.sms, cudaDevAttrMultiProcessorCount, dev);
  if (fit.err == cudaSuccess) fit.err = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&fit.per_sm, k.fn, k.threads, k.smem);
  if (fit.err != cudaSuccess) return fit;
  fit.per_sm = std::max(1, fit.per_sm);
  if (used < 256) cache[used++] = Entry{k.fn, dev, fit};
  return fit;
}

// What one call launches: grid (ntiles, splits) and the workspace it needs (floats; 0 without split-K).
struct WoPlan {
  WoKernel kernel;
  int ntiles = 0, splits = 1;
  int64_t ws_floats = 0;
  cudaError_t err = cudaSuccess;
};

// Split-K only where the N tiles leave resident CTA slots empty (small N, long K): as many splits as
// fill those slots, each split keeping at least kMinStagesPerSplit pipeline stages, and the fp32
// partials (written and read back through L2) at most a quarter of the weight bytes. `force_splits` > 0
// overrides (tuning); it is clamped to the number of stages and to kMaxSplits (the workspace bound).
constexpr int kMinStagesPerSplit = 4;
constexpr int kMaxSplits = 16;
inline WoPlan wo_plan(WoKernel const& kernel, int n, int k, int force_splits = 0) {
  WoPlan p;
  p.kernel = kernel;
  p.ntiles = (n + kernel.bn - 1) / kernel.bn;
  const int stages = (k / kTileK + kernel.warps_k - 1) / kernel.warps_k;
  if (force_splits > 0) {
    p.splits = std::max(1, std::min({force_splits, stages, kMaxSplits}));
  } else {
    const WoDeviceFit fit = wo_fit(kernel);
    if ((p.err = fit.err) != cudaSuccess) return p;
    const int slots = fit.per_sm * fit.sms;
    const int64_t partial_cap = static_cast<int64_t>(k) * kernel.bits / (4 * 8 * 4 * kernel.rows);  // per n: k*bits/8/4 bytes
    if (p.ntiles < slots)
      p.splits = static_cast<int>(std::min<int64_t>({slots / p.ntiles, stages / kMinStagesPerSplit, kMaxSplits, partial_cap}));
    p.splits = std::max(1, p.splits);
  }
  if (p.splits > 1) p.ws_floats = static_cast<int64_t>(p.splits) * p.ntiles * kernel.bn * kernel.rows;
  return p;
}

// Launch a plan. `a.workspace` must hold plan.ws_floats floats and `a.counters` plan.ntiles ints that
// are zero (the kernel leaves them zero) when plan.splits > 1.
inline cudaError_t launch_wo_gemm(WoArgs const& a, WoPlan const& p, cudaStream_t stream) {
  if (p.err != cudaSuccess) return p.err;
  if (a.m < 1 || a.m > p.kernel.rows || a.n % kTileN || a.k % kTileK || a.ldx % 8 || a.ldo % 2)
    return cudaErrorInvalidValue;
  if (p.splits > 1 && (a.workspace == nullptr || a.counters == nullptr)) return cudaErrorInvalidValue;
  const WoDeviceFit fit = wo_fit(p.kernel);  // sets the shared memory limit on first use
  if (fit.err != cudaSuccess) return fit.err;
  p.kernel.fn<<<dim3(p.ntiles, p.splits), p.kernel.threads, p.kernel.smem, stream>>>(a);
  return cudaGetLastError();
}

}  // namespace cg_wo
