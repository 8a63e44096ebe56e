// Host side of the weight-only small-M GEMM (plain CUDA runtime, no torch): the tile configuration for
// each M, the split-K plan, and the launch. Used by the torch extension (wo_ops.cu) and by standalone
// harnesses (tools/results/h100-2026-11-23/wo/wb.cu), which also instantiate tuning variants.
#pragma once
#include <algorithm>
#include <atomic>
#include <mutex>

#include "wo_gemm.cuh"
#include "wo_kernel.h"
#include "wo_direct.cuh"
#include "wo_spread.h"
#include "wo_stream.cuh"

namespace cg_wo {

// Split-K bounds (wo_plan).
constexpr int kMinStagesPerSplit = 4;
constexpr int kMaxSplits = 16;
constexpr int64_t kPartialL2Bytes = int64_t{8} << 20;

template <typename T, int kBits, bool kZero, int kMTiles, int kWarpsN, int kWarpsK, int kStages, int kMinBlocks = 1>
WoKernel wo_kernel() {
  using S = WoShape<kBits, kZero, kMTiles, kWarpsN, kWarpsK, kStages>;
  return {wo_gemm_kernel<T, kBits, kZero, kMTiles, kWarpsN, kWarpsK, kStages, kMinBlocks>, S::kSmem, S::kBN, kWarpsK, S::kRows,
          S::kThreads, kBits, S::kRows, 0, 0, true};
}

// A "stream" kernel (wo_stream.cuh): kXRows rows of x at most.
template <typename T, int kBits, bool kZero, int kXRows, int kWarpsN, int kWarpsK, int kStages>
WoKernel ws_kernel() {
  using S = WsShape<kBits, kZero, kXRows, kWarpsN, kWarpsK, kStages>;
  return {wo_stream_kernel<T, kBits, kZero, kXRows, kWarpsN, kWarpsK, kStages>, S::kSmem, S::kBN, kWarpsK, S::kRows,
          S::kThreads, kBits, S::kAcc};
}

// A "direct" kernel (wo_direct.cuh): kXRows rows of x at most; its shared memory is sized per launch.
template <typename T, int kBits, bool kZero, int kXRows, int kWarpsN, int kWarpsK, int kUnroll, int kSMThreads>
WoKernel wd_kernel() {
  // int8 weights with zero points need more registers than 768 or 1024 threads per SM leave (ptxas spills 100-200
  // bytes): those kernels keep 512 threads per SM (128 registers).
  constexpr int kT = kBits == 8 && kZero && kSMThreads > 512 ? 512 : kSMThreads;
  using S = WdShape<kBits, kZero, kXRows, kWarpsN, kWarpsK, kUnroll, kT>;
  return {wo_direct_kernel<T, kBits, kZero, kXRows, kWarpsN, kWarpsK, kUnroll, kT>, kWdXBudget, S::kBN, kWarpsK, S::kRows,
          S::kThreads, kBits, S::kAcc, S::kXTile, S::kRedBytes};
}

// Bytes of x a direct kernel's CTA stages for K = k cut into `splits` (the largest split's range).
inline int64_t wd_x_bytes(WoKernel const& kernel, int k, int splits) {
  const int stages = (k / kTileK + kernel.warps_k - 1) / kernel.warps_k;
  return static_cast<int64_t>((stages + splits - 1) / splits) * kernel.warps_k * kernel.x_tile;
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

// Kernel variants selectable per call (wo_gemm's `variant`; 0 = wo_default_kernel by M). The ids are
// stable names: the heuristics table (cutlass_gemm/ops/wo_heuristics.py, which mirrors this list and is
// checked against it by a CPU test) and the sweep rows (tools/bench_wo_sweep.py) refer to them.
// "mma mtA WNxWK sS": wo_gemm.cuh with A m16 tiles; "stream xR WNxWK sS": wo_stream.cuh serving M <= R.
struct WoVariantInfo {
  int id;
  const char* name;
  int rows;  // M capacity
};
inline constexpr WoVariantInfo kWoVariants[] = {
    {1, "mma mt1 1x4 s4", 16},     {2, "mma mt2 4x1 s4", 32},     {3, "mma mt4 4x1 s3", 64},
    {4, "mma mt1 2x4 s4", 16},     {5, "stream x1 4x1 s8", 1},    {6, "stream x4 4x1 s8", 4},
    {7, "stream x8 4x1 s6", 8},    {8, "stream x8 8x1 s4", 8},    {9, "stream x8 2x2 s6", 8},
    {10, "stream x16 4x1 s4", 16}, {11, "stream x16 8x1 s3", 16}, {12, "stream x32 4x1 s3", 32},
    {13, "stream x64 4x1 s2", 64},
    {14, "direct x1 1x4 u1 t1024", 1},
    {15, "direct x1 4x2 u1 t768", 1},
    {16, "direct x8 4x2 u1 t1024", 8},
    {17, "direct x8 4x2 u1 t768", 8},
    {18, "direct x16 4x2 u1 t768", 16},
    {19, "direct x8 2x4 u1 t1024", 8},
    {20, "direct x16 2x4 u2 t512", 16},
    {21, "direct x16 4x2 u2 t512", 16},
    {22, "direct x16 4x2 u1 t512", 16},
    // One column block per CTA, K over 8-16 warps (session 29): at 8192 columns the warps of 256 CTAs fill the SMs
    // without the split-K partials, counters and last-CTA sum the 1 x 4 / 4 x 2 CTAs need there.
    {23, "direct x1 1x16 u1 t1024", 1},
    {24, "direct x16 1x8 u1 t512", 16},
    {25, "direct x8 1x16 u1 t1024", 8},
    {26, "direct x1 1x8 u1 t1024", 1},
    // The mma pipeline kernel with 2 m16 tiles and 8 warps (session 33): at 17..32 rows 4-23% faster than variant 2.
    {27, "mma mt2 4x2 s3", 32},
    {28, "mma mt2 2x4 s3", 32},
    // 33..64 rows (session 35): the 8-warp CTA shapes with 3 / 4 m16 tiles. With 4 tiles they take 130-160 registers
    // and run one CTA per SM, slower than variant 3 (session35/call1, ids 29-31 there: 4x2, 2x4, 8x1); capped for two
    // or four CTAs per SM ("bB") only 2 x 4 wins anywhere (4096 x 4096, session35/call2; 33 = 4x2 b2 and 35 = 4x1 b4
    // there, dropped).
    {32, "mma mt3 4x2 s3", 48},
    {34, "mma mt4 2x4 s3 b2", 64},
    // Session 41 also measured "mma mt2 4x1 s5", "mma mt1 1x8 s3" and "mma mt2 8x1 s3" (ids 35-37 there) on the batch-1
    // 1x1 convs: at most 3-4% ahead of these anywhere (tools/results/h200-2026-11-28/session41/call1/sweep/sweep.md);
    // dropped.
};
constexpr int kWoVariantCount = sizeof(kWoVariants) / sizeof(kWoVariants[0]);

template <typename T, int kBits, bool kZero>
WoKernel wo_variant_kernel(int variant, int m) {
  switch (variant) {
    case 0: return wo_default_kernel<T, kBits, kZero>(m);
    case 1: return wo_kernel<T, kBits, kZero, 1, 1, 4, 4>();
    case 2: return wo_kernel<T, kBits, kZero, 2, 4, 1, 4>();
    case 3: return wo_kernel<T, kBits, kZero, 4, 4, 1, 3>();
    case 4: return wo_kernel<T, kBits, kZero, 1, 2, 4, 4>();
    case 5: return ws_kernel<T, kBits, kZero, 1, 4, 1, 8>();
    case 6: return ws_kernel<T, kBits, kZero, 4, 4, 1, 8>();
    case 7: return ws_kernel<T, kBits, kZero, 8, 4, 1, 6>();
    case 8: return ws_kernel<T, kBits, kZero, 8, 8, 1, 4>();
    case 9: return ws_kernel<T, kBits, kZero, 8, 2, 2, 6>();
    case 10: return ws_kernel<T, kBits, kZero, 16, 4, 1, 4>();
    case 11: return ws_kernel<T, kBits, kZero, 16, 8, 1, 3>();
    case 12: return ws_kernel<T, kBits, kZero, 32, 4, 1, 3>();
    case 13: return ws_kernel<T, kBits, kZero, 64, 4, 1, 2>();
    case 14: return wd_kernel<T, kBits, kZero, 1, 1, 4, 1, 1024>();
    case 15: return wd_kernel<T, kBits, kZero, 1, 4, 2, 1, 768>();
    case 16: return wd_kernel<T, kBits, kZero, 8, 4, 2, 1, 1024>();
    case 17: return wd_kernel<T, kBits, kZero, 8, 4, 2, 1, 768>();
    case 18: return wd_kernel<T, kBits, kZero, 16, 4, 2, 1, 768>();
    case 19: return wd_kernel<T, kBits, kZero, 8, 2, 4, 1, 1024>();
    case 20: return wd_kernel<T, kBits, kZero, 16, 2, 4, 2, 512>();
    case 21: return wd_kernel<T, kBits, kZero, 16, 4, 2, 2, 512>();
    case 22: return wd_kernel<T, kBits, kZero, 16, 4, 2, 1, 512>();
    case 23: return wd_kernel<T, kBits, kZero, 1, 1, 16, 1, 1024>();
    case 24: return wd_kernel<T, kBits, kZero, 16, 1, 8, 1, 512>();
    case 25: return wd_kernel<T, kBits, kZero, 8, 1, 16, 1, 1024>();
    case 26: return wd_kernel<T, kBits, kZero, 1, 1, 8, 1, 1024>();
    case 27: return wo_kernel<T, kBits, kZero, 2, 4, 2, 3>();
    case 28: return wo_kernel<T, kBits, kZero, 2, 2, 4, 3>();
    case 32: return wo_kernel<T, kBits, kZero, 3, 4, 2, 3>();
    case 34: return wo_kernel<T, kBits, kZero, 4, 2, 4, 3, 2>();
    default: return {};  // unknown id: fn == nullptr
  }
}

// The kernel of `variant` for an (m, k) call; a direct kernel whose CTAs could not stage their x at K = k even at
// the most splits (k > ~49K at 16 rows, ~98K at 8) is replaced by the default kernel for m.
inline WoKernel wo_select(ActType t, int bits, bool zero, int m, int variant, int k) {
  auto pick = [&](int v) {
    if (t == ActType::kHalf) {
      if (bits == 4) return zero ? wo_variant_kernel<__half, 4, true>(v, m) : wo_variant_kernel<__half, 4, false>(v, m);
      return zero ? wo_variant_kernel<__half, 8, true>(v, m) : wo_variant_kernel<__half, 8, false>(v, m);
    }
    if (bits == 4)
      return zero ? wo_variant_kernel<__nv_bfloat16, 4, true>(v, m) : wo_variant_kernel<__nv_bfloat16, 4, false>(v, m);
    return zero ? wo_variant_kernel<__nv_bfloat16, 8, true>(v, m) : wo_variant_kernel<__nv_bfloat16, 8, false>(v, m);
  };
  WoKernel kern = pick(variant);
  if (kern.fn != nullptr && kern.x_tile > 0 && wd_x_bytes(kern, k, kMaxSplits) > kWdXBudget) kern = pick(0);
  return kern;
}

// CTAs of `k` resident per SM, the SM count and the SM's shared memory, on the current device; the first call per
// (kernel, device) also raises the kernel's dynamic shared memory limit to the device's maximum (launch_wo_gemm may ask
// for more than the kernel uses, to spread its CTAs). Cached: these are host queries.
struct WoDeviceFit {
  int per_sm = 1, sms = 1;
  int smem_sm = 0, smem_reserved = 0;  // shared memory per SM, and what the driver reserves per CTA (bytes)
  int static_smem = 0;                 // the kernel's static shared memory
  cudaError_t err = cudaSuccess;
};
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
  int optin = 0;
  cudaFuncAttributes attr{};
  fit.err = cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev);
  if (fit.err == cudaSuccess) fit.err = cudaFuncGetAttributes(&attr, k.fn);
  if (fit.err == cudaSuccess) {
    fit.static_smem = static_cast<int>(attr.sharedSizeBytes);
    fit.err = cudaFuncSetAttribute(k.fn, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                   std::max(k.smem, optin - fit.static_smem));
  }
  if (fit.err == cudaSuccess) fit.err = cudaDeviceGetAttribute(&fit.sms, cudaDevAttrMultiProcessorCount, dev);
  if (fit.err == cudaSuccess) fit.err = cudaDeviceGetAttribute(&fit.smem_sm, cudaDevAttrMaxSharedMemoryPerMultiprocessor, dev);
  if (fit.err == cudaSuccess) fit.err = cudaDeviceGetAttribute(&fit.smem_reserved, cudaDevAttrReservedSharedMemoryPerBlock, dev);
  // A direct kernel's shared memory depends on the call; its residency is set by its registers (the x of a
  // decode call, a few KB, is assumed).
  const int smem = k.x_tile > 0 ? std::max(k.red, 8192) : k.smem;
  if (fit.err == cudaSuccess) fit.err = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&fit.per_sm, k.fn, k.threads, smem);
  if (fit.err != cudaSuccess) return fit;
  fit.per_sm = std::max(1, fit.per_sm);
  if (used < 256) cache[used++] = Entry{k.fn, dev, fit};
  return fit;
}

// Split-K of the mma kernels (wo_gemm.cuh) through a thread block cluster of each column tile's splits (SM90): the most
// splits a launch adds that way (kDefaultClusterSplits; at most kMaxClusterSplits, the portable cluster size; 0 or 1:
// always the global workspace); wo_set_cluster_reduce sets it, for measurements and tests. H200,
// tools/results/h200-2026-11-28/session41/call1/sweep/sweep.md: 51 of 53 2-split launches were faster as a cluster, the
// other two at most 1.3% slower (49 x 512 x 2048 variant 1 4.99 -> 4.39 us, 64 x 2048 x 2048 variant 28 6.88 -> 6.03, 64 x
// 4096^2 variant 34 15.30 -> 14.08, 196 x 512 x 1024 variant 28 5.46 -> 4.67); at 4-8 splits 1.4-1.8x slower on every
// linear layer (48 x 4096^2 variant 32 12.34 -> 22.11 us, 64 x 8192^2 variant 3 36.05 -> 60.89), as on the H100 for the
// direct kernels (session31/call2), and mixed on the convs' small grids; 3 not measured.
constexpr int kMaxClusterSplits = 8;
constexpr int kDefaultClusterSplits = 2;
inline std::atomic<int>& wo_cluster_policy() {
  static std::atomic<int> v{kDefaultClusterSplits};
  return v;
}

// What one call launches: grid (ntiles, splits, mblocks) and the workspace it needs (floats; 0 without split-K).
struct WoPlan {
  WoKernel kernel;
  int ntiles = 0, splits = 1, mblocks = 1;
  bool cluster = false;  // the splits of a column tile launch as one thread block cluster (no workspace, no counters)
  int64_t ws_floats = 0;
  cudaError_t err = cudaSuccess;
  int64_t counters() const { return static_cast<int64_t>(ntiles) * mblocks; }  // split-K arrival counters it needs
};

// Row blocks a call of m rows takes on `kernel` (1 where m fits its CTA; 0 where it does not and the kernel has no
// row blocks).
inline int wo_row_blocks(WoKernel const& kernel, int m) {
  if (m <= kernel.rows) return 1;
  return kernel.row_blocks ? (m + kernel.rows - 1) / kernel.rows : 0;
}

// Split-K only where the N tiles leave resident CTA slots empty (small N, long K): as many splits as
// fill those slots, each split keeping at least kMinStagesPerSplit pipeline stages, and the fp32
// partials (written and read back through L2) at most a quarter of the weight bytes or, if more,
// kPartialL2Bytes in all (L2-resident: without it a narrow layer at M = 49, N = 512, K = 2048 ran on 4
// CTAs, 22 us against cuDNN's 8.7 for the same 1x1 conv, session8/call2/bench_conv_wo.log). `force_splits`
// > 0 overrides (tuning); it is clamped to the number of stages and to kMaxSplits (the workspace bound). `m` > the
// kernel's rows: row blocks (wo_row_blocks), each with the N tiles' CTAs, and the partials' cap shared among them.
inline WoPlan wo_plan(WoKernel const& kernel, int n, int k, int force_splits = 0, int m = 1) {
  WoPlan p;
  p.kernel = kernel;
  if (kernel.fn == nullptr) {
    p.err = cudaErrorInvalidDeviceFunction;
    return p;
  }
  p.mblocks = wo_row_blocks(kernel, m);
  if (p.mblocks == 0 || p.mblocks > 65535) {
    p.err = cudaErrorInvalidValue;
    return p;
  }
  p.ntiles = (n + kernel.bn - 1) / kernel.bn;
  const int stages = (k / kTileK + kernel.warps_k - 1) / kernel.warps_k;
  if (force_splits > 0) {
    p.splits = std::max(1, std::min({force_splits, stages, kMaxSplits}));
  } else {
    const WoDeviceFit fit = wo_fit(kernel);
    if ((p.err = fit.err) != cudaSuccess) return p;
    const int slots = fit.per_sm * fit.sms;
    const int64_t ctas = static_cast<int64_t>(p.ntiles) * p.mblocks;
    const int64_t partial_cap = std::max<int64_t>(static_cast<int64_t>(k) * kernel.bits / (4 * 8 * 4 * kernel.ws_rows),  // per n: k*bits/8/4 bytes
                                                  kPartialL2Bytes / (static_cast<int64_t>(n) * kernel.ws_rows * 4 * p.mblocks));
    if (ctas < slots)
      p.splits = static_cast<int>(std::min<int64_t>({slots / ctas, stages / kMinStagesPerSplit, kMaxSplits, partial_cap}));
    p.splits = std::max(1, p.splits);
  }
  if (kernel.x_tile > 0) {  // a direct kernel: enough splits that each CTA's x fits its shared memory
    while (p.splits < std::min(stages, kMaxSplits) && wd_x_bytes(kernel, k, p.splits) > kWdXBudget) ++p.splits;
    if (wd_x_bytes(kernel, k, p.splits) > kWdXBudget) p.err = cudaErrorInvalidValue;  // wo_select avoids it
  }
  p.cluster = kernel.row_blocks && p.splits > 1 && p.splits <= wo_cluster_policy().load(std::memory_order_relaxed) &&
              cg_pdl::device_supports();
  if (p.splits > 1 && !p.cluster)
    p.ws_floats = static_cast<int64_t>(p.splits) * p.ntiles * kernel.bn * kernel.ws_rows * p.mblocks;
  return p;
}

// Which weight-only kernels are launched as programmatic dependents (wo_set_pdl_policy, for measurements): 0 the direct
// and int4 kernels only, without the spread below (the rule of sessions 20-21), 1 every kernel without it, 2 every kernel
// with it (the default).
inline std::atomic<int>& wo_pdl_policy() {
  static std::atomic<int> v{2};
  return v;
}

// Dynamic shared memory that keeps a launch of `ctas` CTAs at ceil(ctas / SMs) per SM where its kernel could hold more
// (`smem` when it could not; wo_spread.h).
inline int wo_spread_smem(WoDeviceFit const& fit, int64_t ctas, int smem) {
  return wo_spread_smem_bytes(ctas, fit.sms, fit.per_sm, fit.smem_sm, fit.smem_reserved, fit.static_smem, smem);
}

// Launch a plan. `a.workspace` must hold plan.ws_floats floats and `a.counters` plan.counters() ints that
// are zero (the kernel leaves them zero) when plan.splits > 1.
inline cudaError_t launch_wo_gemm(WoArgs const& a, WoPlan const& p, cudaStream_t stream) {
  if (p.err != cudaSuccess) return p.err;
  if (p.kernel.fn == nullptr) return cudaErrorInvalidDeviceFunction;
  if (a.m < 1 || a.m > p.kernel.rows * p.mblocks || a.m <= p.kernel.rows * (p.mblocks - 1) || a.n % kTileN || a.k % kTileK || a.ldx % 8 || a.ldo % 2)
    return cudaErrorInvalidValue;
  if (p.splits > 1 && !p.cluster && (a.workspace == nullptr || a.counters == nullptr)) return cudaErrorInvalidValue;
  const WoDeviceFit fit = wo_fit(p.kernel);  // sets the shared memory limit on first use
  if (fit.err != cudaSuccess) return fit.err;
  const int smem = p.kernel.x_tile > 0 ? static_cast<int>(std::max<int64_t>(p.kernel.red, wd_x_bytes(p.kernel, a.k, p.splits)))
                                       : p.kernel.smem;
  // A programmatic dependent where the device takes it (pdl.cuh): every kernel, its CTAs spread evenly over the SMs.
  // A dependent's CTAs are placed while the kernel ahead still runs, on the slots it leaves free and then on the SMs it
  // frees first, so a launch of fewer CTAs than the device holds could pile three on some SMs and one on others, and
  // take the time of the most loaded SM: on the H100 the early start alone made the int8 mma / stream kernels 15-25%
  // slower (1 x 8192^2 mma 27.4 -> 31.5 us, 16 x 28672 x 4096 stream 46.2 -> 57.5; session20/call2/probe_pdl.md), and
  // they stayed plain launches in sessions 20-21. Asking for shared memory such that no SM holds more than
  // ceil(CTAs / SMs) of them (wo_spread_smem) keeps the placement even: then every kernel gains from the early start
  // (session22/call2/wo22.md, policy 0 / 1 / 2: int8 16 x 8192^2 mma 29.68 / 34.59 / 28.42 us, 16 x 28672 x 4096
  // stream 45.95 / 57.28 / 44.73; the direct kernels at 28672 x 4096, 224 CTAs, 1 x int8 45.61 / 44.09 / 41.89 and
  // 8 x int4 33.64 / 33.63 / 26.96; the rest within noise). A direct kernel's warps also prefetch their first tiles,
  // pdl.cuh's budget over the CTAs resident at once.
  const int policy = wo_pdl_policy().load(std::memory_order_relaxed);
  const bool pdl = cg_pdl::active() && (policy > 0 || p.kernel.x_tile > 0 || p.kernel.bits == 4);
  const int64_t ctas = static_cast<int64_t>(p.ntiles) * p.splits * p.mblocks;
  const int smem_launch = pdl && policy == 2 ? wo_spread_smem(fit, ctas, smem) : smem;
  WoArgs b = a;
  b.prefetch = 0;
  if (pdl && p.kernel.x_tile > 0) {
    const int64_t resident = std::min<int64_t>(ctas, static_cast<int64_t>(fit.per_sm) * fit.sms);
    b.prefetch = cg_pdl::prefetch_units(resident, p.kernel.threads / 32, int64_t{kTileN} * kTileK * p.kernel.bits / 8);
  }
  // A cluster launch: a column tile's splits are one cluster (dims (1, splits, 1), so a CTA's rank is its split).
  b.cluster_splits = p.cluster ? p.splits : 0;
  return cg_pdl::launch_clustered(p.kernel.fn, dim3(p.ntiles, p.splits, p.mblocks), dim3(1, p.cluster ? p.splits : 1, 1),
                                  dim3(p.kernel.threads), static_cast<size_t>(smem_launch), stream, pdl, b);
}

}  // namespace cg_wo
