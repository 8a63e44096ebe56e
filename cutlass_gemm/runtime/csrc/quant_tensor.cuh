// Dynamic per-tensor quantization in one cooperative kernel: every CTA loads its share of the tensor
// and reduces its absmax, all CTAs meet at a grid barrier, each reduces the per-CTA maxima, then
// quantizes what it holds. Each thread keeps kCache vectors in registers and args.tensor_smem_vecs more
// in dynamic shared memory (launch_tensor sizes it: 0 when the registers suffice), so on an H100 a
// tensor of up to ~45 MB (17 MB of registers + 30 MB of shared memory over 132 SMs) is read from memory
// once; the rest of a larger one is read again after the barrier, in reverse order, so that its most
// recently read part is still in L2. Replaces a zeroed counter + absmax kernel + quant kernel.
// Small tensors (at most kClusterMax CTAs' worth) skip the cooperative launch and its software grid
// barrier, which cost ~2.5 us at decode sizes: one CTA needs no barrier, and on SM90 up to 8 CTAs
// launched as one thread-block cluster are co-scheduled by the hardware and meet at its barrier.
#pragma once
#include <cooperative_groups.h>

#include "quant_common.cuh"

namespace cg_quant {

// How the CTAs of tensor_quant_kernel meet once every partial absmax is written.
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
  Stats st;
  stats_init(st);
#pragma unroll
  for (int j = 0; j < kCache; ++j)
    if (f0 + j * stride < total) stats_add_vec<false, false>(st, c[j]);
  // Shared-memory part: slot j of this thread holds vector f0 + (kCache + j) * stride. Each thread reads
  // back only its own slots, so no barrier is needed between the writes and the reads.
  extern __shared__ __align__(16) unsigned char cg_tensor_smem[];
  V* sm = reinterpret_cast<V*>(cg_tensor_smem);
  const int ns = args.tensor_smem_vecs;
  const int64_t sbase = f0 + kCache * stride;
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
  if (threadIdx.x == 0) args.partials[blockIdx.x] = st.amax_bits;
  if constexpr (kSync == TensorSync::kGrid) {
    cooperative_groups::this_grid().sync();
  } else if constexpr (kSync == TensorSync::kCluster) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    cooperative_groups::this_cluster().sync();  // release/acquire at cluster scope: the partials are seen
#endif
  } else {
    __syncthreads();
  }

  Stats t;
  stats_init(t);
  for (int b = threadIdx.x; b < static_cast<int>(gridDim.x); b += kThreads)
    t.amax_bits = max(t.amax_bits, __ldcg(args.partials + b));  // L2: written by other SMs
  t = block_stats<kThreads, false, false, 1>(t);
  const bool bad = bits_bad(t.amax_bits);
  const float scale = scale_from_amax(__uint_as_float(t.amax_bits), QTraits<TQ>::kMax, !bad);
  if (blockIdx.x == 0 && threadIdx.x == 0) args.scale_out[0] = scale;
  const float inv = __frcp_rn(scale);

#pragma unroll
  for (int j = 0; j < kCache; ++j)
    if (f0 + j * stride < total) quant_store<TQ, false>(reinterpret_cast<TQ*>(q + f0 + j * stride), c[j], inv, 0.0f, bad);
  for (int j = 0; j < ns; ++j)
    if (sbase + j * stride < total)
      quant_store<TQ, false>(reinterpret_cast<TQ*>(q + sbase + j * stride), sm[j * kThreads + threadIdx.x], inv, 0.0f, bad);
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
      if (f + k * stride < total) quant_store<TQ, false>(reinterpret_cast<TQ*>(q + f + k * stride), b[k], inv, 0.0f, bad);
  }
}

}  // namespace cg_quant
