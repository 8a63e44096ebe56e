// Host side of the per-block int8 GEMM (plain CUDA runtime, no torch): the tile configuration for each
// M, the split-K plan and the launch. Used by the torch extension (bi8_ops.cu) and by the standalone
// harness tools/results/h100-2026-11-23/blockint8/bb.cu.
#pragma once
#include <algorithm>
#include <mutex>

#include "bi8_gemm.cuh"

namespace cg_bi8 {

// One compiled kernel and the shape of its CTA tile.
struct Bi8Kernel {
  void (*fn)(Bi8Args) = nullptr;
  int smem = 0, bm = 0, bn = 0, threads = 0, block = 0;
};

template <typename T, int kBlock, int kBM, int kBN, int kWM, int kWN, int kStages>
Bi8Kernel bi8_kernel() {
  using S = Bi8Shape<kBM, kBN, kWM, kWN, kStages>;
  return {bi8_gemm_kernel<T, kBlock, kBM, kBN, kWM, kWN, kStages>, S::kSmem, kBM, kBN, S::kThreads, kBlock};
}

// Default tiles by M (not yet tuned on a GPU; the harness times the alternatives):
//   M <= 16: 16 x 64, 4 warps along N (16 x 16 warp tiles), 4 stages (40 KB): the weight dominates the
//            bytes, so many small CTAs (several per SM) and split-K keep enough 16-byte copies in flight;
//   M <= 64: 64 x 128, 2 x 4 warps (32 x 32), 4 stages (96 KB);
//   else:    128 x 128, 2 x 4 warps (64 x 32), 4 stages (128 KB).
template <typename T, int kBlock>
Bi8Kernel bi8_default_kernel(int m) {
  if (m <= 16) return bi8_kernel<T, kBlock, 16, 64, 1, 4, 4>();
  if (m <= 64) return bi8_kernel<T, kBlock, 64, 128, 2, 4, 4>();
  return bi8_kernel<T, kBlock, 128, 128, 2, 4, 4>();
}

inline Bi8Kernel bi8_select(bool bf16, int block, int m) {
  if (bf16) return block == 64 ? bi8_default_kernel<__nv_bfloat16, 64>(m) : bi8_default_kernel<__nv_bfloat16, 128>(m);
  return block == 64 ? bi8_default_kernel<__half, 64>(m) : bi8_default_kernel<__half, 128>(m);
}

// CTAs of `k` resident per SM and the SM count on the current device; the first call per (kernel,
// device) also raises the kernel's dynamic shared memory limit. Cached: these are host queries.
struct Bi8Fit { int per_sm = 1, sms = 1; cudaError_t err = cudaSuccess; };
inline Bi8Fit bi8_fit(Bi8Kernel const& k) {
  struct Entry { void (*fn)(Bi8Args); int dev; Bi8Fit fit; };
  static std::mutex mu;
  static Entry cache[128];
  static int used = 0;
  int dev = 0;
  Bi8Fit fit;
  if ((fit.err = cudaGetDevice(&dev)) != cudaSuccess) return fit;
  std::lock_guard<std::mutex> lock(mu);
  for (int i = 0; i < used; ++i)
    if (cache[i].fn == k.fn && cache[i].dev == dev) return cache[i].fit;
  fit.err = cudaFuncSetAttribute(k.fn, cudaFuncAttributeMaxDynamicSharedMemorySize, k.smem);
  if (fit.err == cudaSuccess) fit.err = cudaDeviceGetAttribute(&fit.sms, cudaDevAttrMultiProcessorCount, dev);
  if (fit.err == cudaSuccess) fit.err = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&fit.per_sm, k.fn, k.threads, k.smem);
  if (fit.err != cudaSuccess) return fit;
  fit.per_sm = std::max(1, fit.per_sm);
  if (used < 128) cache[used++] = Entry{k.fn, dev, fit};
  return fit;
}

struct Bi8Plan {
  Bi8Kernel kernel;
  int mtiles = 0, ntiles = 0, splits = 1;
  int64_t ws_floats = 0;
  cudaError_t err = cudaSuccess;
};

// Split-K only where the output tiles leave resident CTA slots empty (small M, or small N): as many
// splits as fill the slots, each keeping at least kMinStagesPerSplit stages of 128 K. `force_splits` > 0
// overrides (tuning, tests); clamped to the stages and kMaxSplits.
constexpr int kMinStagesPerSplit = 4;
constexpr int kMaxSplits = 16;
inline Bi8Plan bi8_plan(Bi8Kernel const& kernel, int m, int n, int k, int force_splits = 0) {
  Bi8Plan p;
  p.kernel = kernel;
  p.mtiles = (m + kernel.bm - 1) / kernel.bm;
  p.ntiles = (n + kernel.bn - 1) / kernel.bn;
  const int tiles = p.mtiles * p.ntiles;
  const int stages = (k + kStageK - 1) / kStageK;
  if (force_splits > 0) {
    p.splits = std::max(1, std::min({force_splits, stages, kMaxSplits}));
  } else {
    const Bi8Fit fit = bi8_fit(kernel);
    if ((p.err = fit.err) != cudaSuccess) return p;
    const int slots = fit.per_sm * fit.sms;
    if (tiles > 0 && tiles < slots) p.splits = std::min({slots / tiles, stages / kMinStagesPerSplit, kMaxSplits});
    p.splits = std::max(1, p.splits);
  }
  if (p.splits > 1)
    p.ws_floats = static_cast<int64_t>(p.splits) * tiles * kernel.bm * kernel.bn;  // kAcc * threads per tile
  return p;
}

// Whether every scale offset the kernel forms fits its 32-bit arithmetic (row * row stride + block *
// column stride, for the largest row and block).
inline bool bi8_offsets_fit(Bi8Args const& a) {
  const int64_t kb = a.k / 64, lim = int64_t{1} << 31;
  return a.sa_rs >= 0 && a.sa_cs >= 0 && a.sb_rs >= 0 && a.sb_cs >= 0 &&
         (a.m - 1) * a.sa_rs + kb * a.sa_cs < lim && (a.n - 1) * a.sb_rs + kb * a.sb_cs < lim;
}

// Launch a plan. With plan.splits > 1, `a.workspace` holds plan.ws_floats floats and `a.counters`
// mtiles * ntiles ints that are zero (the kernel leaves them zero).
inline cudaError_t launch_bi8_gemm(Bi8Args const& a, Bi8Plan const& p, cudaStream_t stream) {
  if (p.err != cudaSuccess) return p.err;
  if (a.m < 1 || a.n < 1 || a.k < p.kernel.block || a.k % p.kernel.block || a.lda % 16 || a.ldb % 16 || p.mtiles > 65535)
    return cudaErrorInvalidValue;
  if (!bi8_offsets_fit(a)) return cudaErrorInvalidValue;
  if (p.splits > 1 && (a.workspace == nullptr || a.counters == nullptr)) return cudaErrorInvalidValue;
  const Bi8Fit fit = bi8_fit(p.kernel);  // sets the shared memory limit on first use
  if (fit.err != cudaSuccess) return fit.err;
  p.kernel.fn<<<dim3(p.ntiles, p.mtiles, p.splits), p.kernel.threads, p.kernel.smem, stream>>>(a);
  return cudaGetLastError();
}

}  // namespace cg_bi8
