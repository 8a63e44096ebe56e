// Session 23 harness kernels for dynamic per-tensor quantization of tensors beyond the two-pass range (> 8 MiB).
// 1. probe_kernel: the library's cooperative tensor_quant_kernel (quant_tensor.cuh) copied with two switches, to
//    time its phases apart: kSync off (each CTA uses its own absmax: wrong bytes, timing only), kStore off (no
//    quantized stores: the read phase + barrier).
// 2. bulk_kernel: one CTA of 1024 threads per SM, each owning one contiguous chunk of the flat tensor; the first
//    `smem_vecs` vectors of its chunk arrive in shared memory through bulk asynchronous copies (cp.async.bulk,
//    the TMA engine, one mbarrier per piece: no registers, no per-thread loads), the next 8 per thread in registers,
//    the rest streamed (absmax only) and re-read backwards after the grid barrier, as the library does.
//    Contiguous, 16-byte-vectorized input only (the library keeps its kernel for strided rows).
#pragma once
#include <cooperative_groups.h>

namespace s23 {
using namespace cg_quant;

// ---- 1. the library kernel with switches -------------------------------------------------------------------
template <typename TIn, typename TQ, int kVec, int kCache, int kThreads, bool kSync, bool kStore>
__global__ void __launch_bounds__(kThreads, 1024 / kThreads) probe_kernel(RowArgs args) {
  using V = VecT<TIn, kVec>;
  using VQ = VecT<TQ, kVec>;
  constexpr int kBatch = 4;
  const int64_t nvec = args.cols / kVec, total = args.rows * nvec;
  const int64_t stride = static_cast<int64_t>(gridDim.x) * kThreads;
  const int64_t f0 = static_cast<int64_t>(blockIdx.x) * kThreads + threadIdx.x;
  const FlatX<TIn, kVec, true> xv{args, nvec};
  VQ* q = static_cast<VQ*>(args.q);
  V c[kCache];
#pragma unroll
  for (int j = 0; j < kCache; ++j)
    if (f0 + j * stride < total) c[j] = xv(f0 + j * stride);
  extern __shared__ __align__(16) unsigned char probe_smem[];
  V* sm = reinterpret_cast<V*>(probe_smem);
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
  if constexpr (kSync) {
    if (threadIdx.x == 0) args.partials[blockIdx.x] = st.amax_bits;
    cooperative_groups::this_grid().sync();
    stats_init(t);
    for (int b = threadIdx.x; b < static_cast<int>(gridDim.x); b += kThreads) t.amax_bits = max(t.amax_bits, __ldcg(args.partials + b));
    t = block_stats<kThreads, false, false, 1>(t);
  }
  const bool bad = bits_bad(t.amax_bits);
  const float scale = scale_from_amax(__uint_as_float(t.amax_bits), QTraits<TQ>::kMax, !bad);
  if (blockIdx.x == 0 && threadIdx.x == 0) args.scale_out[0] = scale;
  const float inv = __frcp_rn(scale);
  if (!kStore) {
    if (inv == 12345.0f) q[f0] = VQ{};  // keeps the loads alive; never true for these inputs
    return;
  }
#pragma unroll
  for (int j = 0; j < kCache; ++j)
    if (f0 + j * stride < total) quant_store<TQ, false, false>(reinterpret_cast<TQ*>(q + f0 + j * stride), c[j], inv, 0.0f, bad);
  for (int j = 0; j < ns; ++j)
    if (sbase + j * stride < total)
      quant_store<TQ, false, false>(reinterpret_cast<TQ*>(q + sbase + j * stride), sm[j * kThreads + threadIdx.x], inv, 0.0f, bad);
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

// The library's launch_tensor grid / shared-memory sizing for the probe (cooperative launch: the barrier needs it;
// without kSync a plain launch of the same grid).
template <typename TIn, typename TQ, int kVec, bool kSync, bool kStore>
cudaError_t launch_probe(RowArgs const& a, cudaStream_t s) {
  constexpr int kT = kTensorThreads, kC = kTensorCache;
  const int64_t total = a.rows * (a.cols / kVec);
  const int64_t want = std::max<int64_t>(1, (total + kT * kC - 1) / (kT * kC));
  auto kernel = probe_kernel<TIn, TQ, kVec, kC, kT, kSync, kStore>;
  const int plain = coresident_blocks(kernel, kT);
  RowArgs copy = a;
  copy.tensor_smem_vecs = 0;
  int smem = 0, blocks = static_cast<int>(std::min<int64_t>(want, plain));
  if (want > plain) {
    const int smem_vecs = tensor_smem_vecs_max();
    smem = smem_vecs * kT * 16;
    const int with = smem_vecs > 0 ? coresident_blocks(kernel, kT, smem) : 0;
    if (with * 2 >= plain) {
      const int64_t per_thread = (total + static_cast<int64_t>(with) * kT - 1) / (static_cast<int64_t>(with) * kT);
      copy.tensor_smem_vecs = static_cast<int>(std::min<int64_t>(smem_vecs, std::max<int64_t>(0, per_thread - kC)));
      smem = copy.tensor_smem_vecs * kT * 16;
      blocks = with;
    } else {
      smem = 0;
    }
  }
  if (!kSync) {
    kernel<<<blocks, kT, smem, s>>>(copy);
    return cudaGetLastError();
  }
  void* params[] = {&copy};
  return cudaLaunchCooperativeKernel(reinterpret_cast<void*>(kernel), dim3(blocks), dim3(kT), params, static_cast<size_t>(smem), s);
}

// ---- 2. bulk-copy kernel ---------------------------------------------------------------------------------
__device__ __forceinline__ uint32_t s_addr(const void* p) { return static_cast<uint32_t>(__cvta_generic_to_shared(p)); }
__device__ __forceinline__ void mbar_init(uint64_t* b, unsigned n) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(s_addr(b)), "r"(n) : "memory");
}
__device__ __forceinline__ void mbar_fence_init() { asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory"); }
__device__ __forceinline__ void mbar_arrive_tx(uint64_t* b, unsigned bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(s_addr(b)), "r"(bytes) : "memory");
}
__device__ __forceinline__ void bulk_load(void* dst, const void* src, unsigned bytes, uint64_t* b) {
  asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];"
               ::"r"(s_addr(dst)), "l"(src), "r"(bytes), "r"(s_addr(b)) : "memory");
}
__device__ __forceinline__ void mbar_wait(uint64_t* b, unsigned parity) {
  asm volatile(
      "{\n\t.reg .pred P1;\n"
      "LAB_WAIT:\n\t"
      "mbarrier.try_wait.parity.shared::cta.b64 P1, [%0], %1;\n\t"
      "@P1 bra DONE;\n\t"
      "bra LAB_WAIT;\n"
      "DONE:\n\t}" ::"r"(s_addr(b)), "r"(parity) : "memory");
}

constexpr int kBulkThreads = 1024;
constexpr int kBulkRegs = 8;
constexpr int kMaxPieces = 32;

// CTA b owns vectors [b * chunk, min((b + 1) * chunk, total)): the first min(n, smem_vecs) by bulk copies of
// piece_vecs each, then kBulkRegs * 1024 in registers, then the rest streamed.
template <typename TIn, typename TQ, int kVec>
__global__ void __launch_bounds__(kBulkThreads, 1) bulk_kernel(RowArgs args, int64_t chunk, int smem_vecs, int piece_vecs) {
  using V = VecT<TIn, kVec>;
  using VQ = VecT<TQ, kVec>;
  constexpr int kT = kBulkThreads, kBatch = 4;
  extern __shared__ __align__(128) unsigned char bulk_smem[];
  __shared__ __align__(8) uint64_t bars[kMaxPieces];
  V* sm = reinterpret_cast<V*>(bulk_smem);
  const V* x = static_cast<const V*>(args.x);
  VQ* q = static_cast<VQ*>(args.q);
  const int64_t nvec = args.cols / kVec, total = args.rows * nvec;
  const int64_t c0 = static_cast<int64_t>(blockIdx.x) * chunk;
  const int64_t end = c0 + chunk < total ? c0 + chunk : total;
  const int64_t n = end > c0 ? end - c0 : 0;
  const int ns = static_cast<int>(n < smem_vecs ? n : smem_vecs);
  const int pieces = (ns + piece_vecs - 1) / piece_vecs;
  const int tid = threadIdx.x;
  if (tid == 0) {
    for (int p = 0; p < pieces; ++p) mbar_init(&bars[p], 1);
    mbar_fence_init();
  }
  __syncthreads();
  if (tid == 0) {
    for (int p = 0; p < pieces; ++p) {
      const int len = min(piece_vecs, ns - p * piece_vecs);
      mbar_arrive_tx(&bars[p], static_cast<unsigned>(len * sizeof(V)));
      bulk_load(sm + p * piece_vecs, x + c0 + p * piece_vecs, static_cast<unsigned>(len * sizeof(V)), &bars[p]);
    }
  }
  const int64_t r0 = c0 + ns;
  V c[kBulkRegs];
#pragma unroll
  for (int j = 0; j < kBulkRegs; ++j)
    if (r0 + j * kT + tid < end) c[j] = x[r0 + j * kT + tid];
  Stats st;
  stats_init(st);
#pragma unroll
  for (int j = 0; j < kBulkRegs; ++j)
    if (r0 + j * kT + tid < end) stats_add_vec<false, false>(st, c[j]);
  for (int p = 0; p < pieces; ++p) {
    mbar_wait(&bars[p], 0);
    const int len = min(piece_vecs, ns - p * piece_vecs);
    for (int v = tid; v < len; v += kT) stats_add_vec<false, false>(st, sm[p * piece_vecs + v]);
  }
  const int64_t rest = r0 + static_cast<int64_t>(kBulkRegs) * kT;
  const FlatX<TIn, kVec, true> xv{args, nvec};
  absmax_strided<kBatch>(st, xv, rest + tid, kT, end);
  st = block_stats<kT, false, false>(st);
  if (tid == 0) args.partials[blockIdx.x] = st.amax_bits;
  cooperative_groups::this_grid().sync();
  Stats t;
  stats_init(t);
  for (int b = tid; b < static_cast<int>(gridDim.x); b += kT) t.amax_bits = max(t.amax_bits, __ldcg(args.partials + b));
  t = block_stats<kT, false, false, 1>(t);
  const bool bad = bits_bad(t.amax_bits);
  const float scale = scale_from_amax(__uint_as_float(t.amax_bits), QTraits<TQ>::kMax, !bad);
  if (blockIdx.x == 0 && tid == 0) args.scale_out[0] = scale;
  const float inv = __frcp_rn(scale);
  if (rest < end) {  // backwards: the batches read last before the barrier are the likeliest still in L2
    const int64_t nb = (end - rest + kBatch * kT - 1) / (kBatch * kT);
    for (int64_t bi = nb - 1; bi >= 0; --bi) {
      const int64_t f = rest + bi * kBatch * kT + tid;
      V b[kBatch];
#pragma unroll
      for (int k = 0; k < kBatch; ++k)
        if (f + k * kT < end) b[k] = x[f + k * kT];
#pragma unroll
      for (int k = 0; k < kBatch; ++k)
        if (f + k * kT < end) quant_store<TQ, false, false>(reinterpret_cast<TQ*>(q + f + k * kT), b[k], inv, 0.0f, bad);
    }
  }
#pragma unroll
  for (int j = 0; j < kBulkRegs; ++j)
    if (r0 + j * kT + tid < end) quant_store<TQ, false, false>(reinterpret_cast<TQ*>(q + r0 + j * kT + tid), c[j], inv, 0.0f, bad);
  for (int v = tid; v < ns; v += kT) quant_store<TQ, false, false>(reinterpret_cast<TQ*>(q + c0 + v), sm[v], inv, 0.0f, bad);
}

// smem_cap_bytes < 0: all the shared memory an SM gives one CTA; piece_bytes: size of one bulk copy.
// regs_first: the registers take the first 8 x 1024 vectors of a chunk's count, shared memory what is left of it.
template <typename TIn, typename TQ, int kVec>
cudaError_t launch_bulk(RowArgs const& a, cudaStream_t s, int smem_cap_bytes, int piece_bytes, bool regs_first) {
  auto kernel = bulk_kernel<TIn, TQ, kVec>;
  int dev = 0, sms = 0, optin = 0;
  cudaGetDevice(&dev);
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
  cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev);
  cudaFuncAttributes fa{};
  cudaFuncGetAttributes(&fa, kernel);
  int smem = static_cast<int>(optin - fa.sharedSizeBytes) & ~127;
  if (smem_cap_bytes >= 0) smem = std::min(smem, smem_cap_bytes);
  const int piece_vecs = piece_bytes / 16;
  int smem_vecs = smem / 16;
  smem_vecs = std::min(smem_vecs, piece_vecs * kMaxPieces);
  const int64_t total = a.rows * (a.cols / kVec);
  const int64_t chunk = (total + sms - 1) / sms;
  smem_vecs = static_cast<int>(std::min<int64_t>(smem_vecs, chunk));
  if (regs_first) smem_vecs = static_cast<int>(std::max<int64_t>(0, std::min<int64_t>(smem_vecs, chunk - kBulkRegs * kBulkThreads)));
  const int dyn = std::max(16, smem_vecs * 16);
  cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, dyn);
  RowArgs copy = a;
  int64_t ch = chunk;
  void* params[] = {&copy, &ch, &smem_vecs, const_cast<int*>(&piece_vecs)};
  return cudaLaunchCooperativeKernel(reinterpret_cast<void*>(kernel), dim3(sms), dim3(kBulkThreads), params, static_cast<size_t>(dyn), s);
}

}  // namespace s23
