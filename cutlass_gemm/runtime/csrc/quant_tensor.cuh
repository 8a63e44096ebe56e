// Dynamic per-tensor quantization in one kernel: every CTA loads its share of the tensor and reduces
// its absmax, the CTAs meet, each takes the maximum of the per-CTA maxima, then quantizes what it holds.
// Each thread keeps kCache vectors in registers and args.tensor_smem_vecs more in dynamic shared memory
// (launch_tensor sizes it: 0 when the registers suffice), so on an H100 a tensor of up to ~45 MB (17 MB
// of registers + 30 MB of shared memory over 132 SMs) is read from memory once; the rest of a larger one
// is read again after the meeting, in reverse order, so that its most recently read part is still in L2.
// (Fetching the shared-memory part with cp.async instead of through registers was measured slower:
// 2048x8192 32.5 us vs 26.9, session8/call1/qt8.log.)
// How the CTAs meet (TensorSync): one CTA needs nobody; a grid is a cooperative launch with global partials
// and a grid barrier. Between 16 KiB and 8 MiB of input the two-pass form at the end of this file is faster
// (launch_tensor); it replaced an SM90 form whose CTAs met as one thread-block cluster (session 18).
// Where the time goes (session 23, tools/results/h100-2026-11-27/session23/call2/qt23.log, 2048 x 8192 bf16 -> fp8):
// 25.0 us in all; the reads alone 14.6 (the read phase streams at ~2.9 TB/s once started), with the barrier 16.6;
// without the barrier 24.8: the cost is the 16.8 MB write phase that must follow the last read (~8 us), not the
// meeting. A form that takes its shared-memory part with bulk asynchronous copies (TMA) was no faster below ~45 MB.
#pragma once
#include <cooperative_groups.h>

#include "quant_common.cuh"

namespace cg_quant {

// Vector f of x seen as one flat run of rows * (cols / kVec) vectors: x may have a row stride, q never has.
template <typename TIn, int kVec, bool kContig>
struct FlatX {
  RowArgs const& args;
  int64_t nvec;
  __device__ __forceinline__ VecT<TIn, kVec> operator()(int64_t f) const {
    using V = VecT<TIn, kVec>;
    if (kContig) return reinterpret_cast<const V*>(args.x)[f];
    const int64_t r = f / nvec;
    return reinterpret_cast<const V*>(static_cast<const TIn*>(args.x) + r * args.ldx)[f - r * nvec];
  }
};

// The absmax of vectors from, from + stride, ... (< total) added to st, kBatch loads in flight per thread.
template <int kBatch, typename TIn, int kVec, bool kContig>
__device__ __forceinline__ void absmax_strided(Stats& st, FlatX<TIn, kVec, kContig> const& xv, int64_t from, int64_t stride,
                                               int64_t total) {
  for (int64_t f = from; f < total; f += kBatch * stride) {
    VecT<TIn, kVec> b[kBatch];
#pragma unroll
    for (int k = 0; k < kBatch; ++k)
      if (f + k * stride < total) b[k] = xv(f + k * stride);
#pragma unroll
    for (int k = 0; k < kBatch; ++k)
      if (f + k * stride < total) stats_add_vec<false, false>(st, b[k]);
  }
}

// How the CTAs of tensor_quant_kernel meet once every partial absmax is known.
enum class TensorSync : int { kGrid = 0, kNone = 2 };

template <typename TIn, typename TQ, int kVec, int kCache, int kThreads, bool kContig, TensorSync kSync>
__global__ void __launch_bounds__(kThreads, 1024 / kThreads) tensor_quant_kernel(RowArgs args) {
  using V = VecT<TIn, kVec>;
  using VQ = VecT<TQ, kVec>;
  constexpr int kBatch = 4;  // vectors in flight per thread beyond the cached part
  const int64_t nvec = args.cols / kVec, total = args.rows * nvec;
  const int64_t stride = static_cast<int64_t>(gridDim.x) * kThreads;
  const int64_t f0 = static_cast<int64_t>(blockIdx.x) * kThreads + threadIdx.x;
  const FlatX<TIn, kVec, kContig> xv{args, nvec};
  VQ* q = static_cast<VQ*>(args.q);
  // The GEMM after it (a programmatic dependent) may take the SM slots this grid leaves and set up; it waits for
  // this kernel's completion before reading q or the scale.
  cg_pdl::launch_dependents();

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
  absmax_strided<kBatch>(st, xv, rest, stride, total);
  st = block_stats<kThreads, false, false>(st);
  Stats t = st;
  if constexpr (kSync == TensorSync::kGrid) {
    if (threadIdx.x == 0) args.partials[blockIdx.x] = st.amax_bits;
    cooperative_groups::this_grid().sync();
    stats_init(t);
    for (int b = threadIdx.x; b < static_cast<int>(gridDim.x); b += kThreads)
      t.amax_bits = max(t.amax_bits, __ldcg(args.partials + b));  // L2: written by other SMs
    t = block_stats<kThreads, false, false, 1>(t);
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
}


// Two-pass form, for tensors that fit in L2 but not in the grid's registers without its barrier's cost: pass 1
// (tensor_absmax_kernel) reduces a grid-stride share per CTA to one partial absmax; pass 2 (tensor_apply_kernel)
// loads its chunk first, waits for pass 1 (griddepcontrol.wait: launched as a programmatic dependent, so its
// CTAs start, and their loads go out, while pass 1's last CTAs finish), takes the maximum of the partials and
// quantizes. The second read of x is served by L2: pass 2's CTAs take the tensor from its end, which pass 1
// read last. Same scale and bytes as tensor_quant_kernel (the maximum is order-free).
template <typename TIn, int kVec, int kThreads, bool kContig>
__global__ void __launch_bounds__(kThreads) tensor_absmax_kernel(RowArgs args) {
  using V = VecT<TIn, kVec>;
  constexpr int kBatch = 4;
  const int64_t nvec = args.cols / kVec, total = args.rows * nvec;
  const int64_t stride = static_cast<int64_t>(gridDim.x) * kThreads;
  const FlatX<TIn, kVec, kContig> xv{args, nvec};
  Stats st;
  stats_init(st);
  absmax_strided<kBatch>(st, xv, static_cast<int64_t>(blockIdx.x) * kThreads + threadIdx.x, stride, total);
  st = block_stats<kThreads, false, false>(st);
  if (threadIdx.x == 0) args.partials[blockIdx.x] = st.amax_bits;
  cg_pdl::launch_dependents();
}

// kPer vectors per thread, CTA b holding the chunk (gridDim.x - 1 - b) of kPer * kThreads consecutive vectors;
// `parts` partials from pass 1.
template <typename TIn, typename TQ, int kVec, int kPer, int kThreads, bool kContig>
__global__ void __launch_bounds__(kThreads) tensor_apply_kernel(RowArgs args, int parts) {
  using V = VecT<TIn, kVec>;
  using VQ = VecT<TQ, kVec>;
  const int64_t nvec = args.cols / kVec, total = args.rows * nvec;
  const int64_t f0 = (static_cast<int64_t>(gridDim.x - 1 - blockIdx.x) * kPer) * kThreads + threadIdx.x;
  const FlatX<TIn, kVec, kContig> xv{args, nvec};
  // As in tensor_quant_kernel: the GEMM after it may start its setup now. Before this trigger, 4096-wide int8 layers
  // at 32-128 rows gained 1.02-1.03x from launching their GEMM early behind this pass, against 1.06-1.12x behind the
  // static quantizer, which triggers first; with it 1.09-1.13x (H200, tools/results/h200-2026-11-28/session45).
  cg_pdl::launch_dependents();
  V c[kPer];
#pragma unroll
  for (int j = 0; j < kPer; ++j)
    if (f0 + j * kThreads < total) c[j] = xv(f0 + j * kThreads);
  cg_pdl::wait();  // pass 1 complete, its partials visible
  Stats t;
  stats_init(t);
  for (int b = threadIdx.x; b < parts; b += kThreads) t.amax_bits = max(t.amax_bits, __ldcg(args.partials + b));
  t = block_stats<kThreads, false, false>(t);
  const bool bad = bits_bad(t.amax_bits);
  const float scale = scale_from_amax(__uint_as_float(t.amax_bits), QTraits<TQ>::kMax, !bad);
  if (blockIdx.x == 0 && threadIdx.x == 0) args.scale_out[0] = scale;
  const float inv = __frcp_rn(scale);
  VQ* q = static_cast<VQ*>(args.q);
#pragma unroll
  for (int j = 0; j < kPer; ++j)
    if (f0 + j * kThreads < total) quant_store<TQ, false, false>(reinterpret_cast<TQ*>(q + f0 + j * kThreads), c[j], inv, 0.0f, bad);
}

}  // namespace cg_quant
