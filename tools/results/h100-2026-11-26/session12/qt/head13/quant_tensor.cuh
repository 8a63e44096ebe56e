// Dynamic per-tensor quantization in one kernel: every CTA loads its share of the tensor and reduces
// its absmax, the CTAs meet, each takes the maximum of the per-CTA maxima, then quantizes what it holds.
// Each thread keeps kCache vectors in registers and args.tensor_smem_vecs more in dynamic shared memory
// (launch_tensor sizes it: 0 when the registers suffice), so on an H100 a tensor of up to ~45 MB (17 MB
// of registers + 30 MB of shared memory over 132 SMs) is read from memory once; the rest of a larger one
// is read again after the meeting, in reverse order, so that its most recently read part is still in L2.
// (Fetching the shared-memory part with cp.async instead of through registers was measured slower:
// 2048x8192 32.5 us vs 26.9, session8/call1/qt8.log.)
// How the CTAs meet (TensorSync): one CTA needs nobody; up to 16 CTAs launched as one thread-block
// cluster (SM90) are co-scheduled by the hardware and exchange their maxima through distributed shared
// memory (no L2 round trip); larger grids use a cooperative launch, global partials and a grid barrier.
#pragma once
#include <cooperative_groups.h>

#include "quant_common.cuh"

namespace cg_quant {

// How the CTAs of tensor_quant_kernel meet once every partial absmax is known.
enum class TensorSync : int { kGrid = 0, kCluster = 1, kNone = 2 };

template <typename TIn, typename TQ, int kVec, int kCache, int kThreads, bool kContig, TensorSync kSync>
__global__ void __launch_bounds__(kThreads, 1024 / kThreads) tensor_quant_kernel(RowArgs args) {
  using V = VecT<TIn, kVec>;
  using VQ = VecT<TQ, kVec>;
  constexpr int kBatch = 4;  // vectors in flight per thread beyond the cached part
  const int64_t nvec = args.cols / kVec, total = args.rows * nvec;
  const int64_t stride = static_cast<int64_t>(gridDim.x) * kThreads;
  const int64_t f0 = static_cast<int64_t>(blockIdx.x) * kThreads + threadIdx.x;
  // Flat vector index f over (rows, nvec); q is contiguous, x may have a row stride.
  auto xv = [&](int64_t f) -> V {
    if (kContig) return reinterpret_cast<const V*>(args.x)[f];
    const int64_t r = f / nvec;
    return reinterpret_cast<const V*>(static_cast<const TIn*>(args.x) + r * args.ldx)[f - r * nvec];
  };
  VQ* q = static_cast<VQ*>(args.q);

  V c[kCache];
#pragma unroll
  for (int j = 0; j < kCache; ++j)
    if (f0 + j * stride < total) c[j] = xv(f0 + j * stride);
  // Shared-memory part: slot j of this thread holds vector f0 + (kCache + j) * stride. Each thread reads
  // back only its own slots, so no barrier is needed between the writes and the reads.
  extern __shared__ __align__(16) unsigned char cg_tensor_smem[];
  V* sm = reinterpret_cast<V*>(cg_tensor_smem);
  const int ns = args.tensor_smem_vecs;
  const int64_t sbase = f0 + kCache * stride;
  Stats st;
  stats_init(st);
#pragma unroll
  for (int j = 0; j < kCache; ++j)
    if (f0 + j * stride < total) stats_add_vec<false, false>(st, c[j]);
  for (int j0 = 0; j0 < ns; j0 += kBatch) {
    V b[kBatch];
#pragma unroll
    for (int k = 0; k < kBatch; ++k)
      if (j0 + k < ns && sbase + (j0 + k) * stride < total) b[k] = xv(sbase + (j0 + k) * stride);
#pragma unroll
    for (int k = 0; k < kBatch; ++k)
      if (j0 + k < ns && sbase + (j0 + k) * stride < total) {
        stats_add_vec<false, false>(st, b[k]);
        sm[(j0 + k) * kThreads + threadIdx.x] = b[k];
      }
  }
  const int64_t rest = sbase + static_cast<int64_t>(ns) * stride;
  for (int64_t f = rest; f < total; f += kBatch * stride) {
    V b[kBatch];
#pragma unroll
    for (int k = 0; k < kBatch; ++k)
      if (f + k * stride < total) b[k] = xv(f + k * stride);
#pragma unroll
    for (int k = 0; k < kBatch; ++k)
      if (f + k * stride < total) stats_add_vec<false, false>(st, b[k]);
  }
  st = block_stats<kThreads, false, false>(st);
  Stats t = st;
  if constexpr (kSync == TensorSync::kGrid) {
    if (threadIdx.x == 0) args.partials[blockIdx.x] = st.amax_bits;
    cooperative_groups::this_grid().sync();
    stats_init(t);
    for (int b = threadIdx.x; b < static_cast<int>(gridDim.x); b += kThreads)
      t.amax_bits = max(t.amax_bits, __ldcg(args.partials + b));  // L2: written by other SMs
    t = block_stats<kThreads, false, false, 1>(t);
  } else if constexpr (kSync == TensorSync::kCluster) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    // Every thread already holds its CTA's maximum (block_stats); thread 0 publishes it in shared memory,
    // the cluster barrier (release/acquire at cluster scope) makes it visible, and lane r of every warp
    // reads CTA r's through distributed shared memory: a warp shuffle finishes, no block barrier.
    __shared__ unsigned cta_amax;
    auto cluster = cooperative_groups::this_cluster();
    if (threadIdx.x == 0) cta_amax = st.amax_bits;
    cluster.sync();
    const unsigned lane = threadIdx.x % 32, n = cluster.num_blocks();
    unsigned a = lane < n ? *cluster.map_shared_rank(&cta_amax, lane) : 0u;
    for (int m = 16; m > 0; m >>= 1) a = max(a, __shfl_xor_sync(0xffffffffu, a, m));
    t.amax_bits = a;
    // No CTA may leave (releasing its shared memory) before every CTA has read it: arrive now, wait at
    // the end, so the stores below overlap the wait.
    asm volatile("barrier.cluster.arrive.release;\n" ::: "memory");
#endif
  }
  const bool bad = bits_bad(t.amax_bits);
  const float scale = scale_from_amax(__uint_as_float(t.amax_bits), QTraits<TQ>::kMax, !bad);
  if (blockIdx.x == 0 && threadIdx.x == 0) args.scale_out[0] = scale;
  const float inv = __frcp_rn(scale);

#pragma unroll
  for (int j = 0; j < kCache; ++j)
    if (f0 + j * stride < total) quant_store<TQ, false, false>(reinterpret_cast<TQ*>(q + f0 + j * stride), c[j], inv, 0.0f, bad);
  for (int j = 0; j < ns; ++j)
    if (sbase + j * stride < total)
      quant_store<TQ, false, false>(reinterpret_cast<TQ*>(q + sbase + j * stride), sm[j * kThreads + threadIdx.x], inv, 0.0f, bad);
  // The re-read part backwards: the batches read last before the barrier are the likeliest still in L2.
  const int64_t nb = rest < total ? (total - rest + kBatch * stride - 1) / (kBatch * stride) : 0;
  for (int64_t bi = nb - 1; bi >= 0; --bi) {
    const int64_t f = rest + bi * kBatch * stride;
    V b[kBatch];
#pragma unroll
    for (int k = 0; k < kBatch; ++k)
      if (f + k * stride < total) b[k] = xv(f + k * stride);
#pragma unroll
    for (int k = 0; k < kBatch; ++k)
      if (f + k * stride < total) quant_store<TQ, false, false>(reinterpret_cast<TQ*>(q + f + k * stride), b[k], inv, 0.0f, bad);
  }
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  if constexpr (kSync == TensorSync::kCluster) asm volatile("barrier.cluster.wait.acquire;\n" ::: "memory");
#endif
}

}  // namespace cg_quant
