// Host launchers of the activation-quant kernels (plain CUDA runtime, no torch): the kernel shape for
// each problem, chosen here once for the torch extension (quant_ops.cu) and for standalone harnesses.
#pragma once
#include <algorithm>
#include <map>
#include <tuple>
#include <mutex>

#include "quant_rows.cuh"
#include "quant_tensor.cuh"

namespace cg_quant {

enum class InType : int { kFloat = 0, kHalf = 1, kBFloat16 = 2 };
enum class OutType : int { kInt8 = 0, kFp8 = 1 };

// Per-tensor kernel: threads per CTA and vectors each holds across the grid barrier in registers.
constexpr int kTensorThreads = 512;
constexpr int kTensorCache = 8;

// Most 16-byte vectors per thread the per-tensor kernel keeps in shared memory: as many as let
// 2048 / kTensorThreads / 2 CTAs (the register-bound residency: 1024 threads per SM) share an SM's
// shared memory, cached per device; 0 turns the shared-memory part off (a variable for the harness).
inline int& tensor_smem_vecs_override() {
  static int v = -1;  // -1: derive from the device
  return v;
}
inline int tensor_smem_vecs_max() {
  if (tensor_smem_vecs_override() >= 0) return tensor_smem_vecs_override();
  static int cache[64] = {};  // 0 unknown, else vectors + 1
  int dev = 0;
  if (cudaGetDevice(&dev) != cudaSuccess || dev >= 64) return 0;
  if (cache[dev] == 0) {
    int per_sm = 0, per_block = 0, reserved = 0;
    cudaDeviceGetAttribute(&per_sm, cudaDevAttrMaxSharedMemoryPerMultiprocessor, dev);
    cudaDeviceGetAttribute(&per_block, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev);
    cudaDeviceGetAttribute(&reserved, cudaDevAttrReservedSharedMemoryPerBlock, dev);
    const int ctas = 1024 / kTensorThreads;
    const int bytes = std::min(per_block, per_sm / ctas - reserved);
    cache[dev] = std::max(0, bytes / (kTensorThreads * 16)) + 1;
  }
  return cache[dev] - 1;
}

// Threads of the row kernels allowed to be resident per SM (0: as many as registers allow). At ~32
// registers 16 CTAs of 128 threads fit, so a 2048-row problem starts every row in one wave and no
// row's writes overlap another's reads; a cap keeps some rows waiting until earlier ones finish.
// It is imposed through dynamic shared memory the kernels never touch. Chosen from the "cap" rows of
// tools/results/h100-2026-11-23/quant_v2/qb.cu; a variable so that harness can compare settings.
inline int& row_threads_per_sm_cap() {
  static int cap = 1024;
  return cap;
}

// Dynamic shared memory that lets at most `ctas` CTAs share an SM (0 when no cap applies), and the
// kernel set to prefer the shared-memory carveout that makes exactly that many fit. A kernel whose registers
// already keep it at or below the cap (RMSNorm's, at 64 registers and more) gets none and keeps the default
// carveout: the reserved shared memory would only shrink L1, from which every row's CTA reads RMSNorm's weight
// (session18/call1/qt18.log: RMSNorm 2048 x 8192 +5%, 8192 x 8192 +8.5%, with a residual +4-5%). Whether
// registers suffice is asked once per (device, kernel, cap): the occupancy query is not free.
template <typename K>
size_t cap_smem(K kernel, int threads) {
  const int cap = row_threads_per_sm_cap();
  if (cap <= 0 || cap / threads < 1) return 0;
  static int smem_sm[64] = {}, reserved[64] = {};
  int dev = 0;
  if (cudaGetDevice(&dev) != cudaSuccess || dev >= 64) return 0;
  if (smem_sm[dev] == 0) {
    cudaDeviceGetAttribute(&smem_sm[dev], cudaDevAttrMaxSharedMemoryPerMultiprocessor, dev);
    cudaDeviceGetAttribute(&reserved[dev], cudaDevAttrReservedSharedMemoryPerBlock, dev);
  }
  const int ctas = cap / threads;
  {
    static std::mutex m;
    static std::map<std::tuple<int, const void*, int>, bool> within;  // keyed by address: one pointer type
    std::lock_guard<std::mutex> g(m);
    const auto key = std::make_tuple(dev, reinterpret_cast<const void*>(kernel), ctas);
    auto it = within.find(key);
    if (it == within.end()) {
      int n = 0;
      cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout, cudaSharedmemCarveoutDefault);
      cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, kernel, threads, 0);
      const bool by_registers = n > 0 && n <= ctas;
      if (!by_registers)
        cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout, cudaSharedmemCarveoutMaxShared);
      it = within.emplace(key, by_registers).first;
    }
    if (it->second) return 0;
  }
  // (ctas + 1) CTAs of this size overflow the SM; ctas of them fit (allocation granularity included)
  const size_t per_cta = static_cast<size_t>(smem_sm[dev]) / (ctas + 1) + 1;
  if (per_cta <= static_cast<size_t>(reserved[dev]) || per_cta - reserved[dev] > 48 * 1024) return 0;
  return per_cta - reserved[dev];
}

// Most CTAs of a kernel that can be resident at once on the current device (what a cooperative launch
// may use) with `smem` bytes of dynamic shared memory each, cached per (device, kernel, threads, smem):
// the occupancy query is a host computation, not free. Every kernel here has the same pointer type, so
// the cache is keyed by address, not by type. A kernel asking for more than 48 KB is allowed it first.
template <typename K>
int coresident_blocks(K kernel, int threads, int smem = 0) {
  static std::mutex m;
  static std::map<std::tuple<int, const void*, int, int>, int> cache;
  int dev = 0;
  if (cudaGetDevice(&dev) != cudaSuccess) return 0;
  const auto key = std::make_tuple(dev, reinterpret_cast<const void*>(kernel), threads, smem);
  std::lock_guard<std::mutex> g(m);
  auto it = cache.find(key);
  if (it != cache.end()) return it->second;
  if (smem > 48 * 1024) {
    cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem);
    cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout, cudaSharedmemCarveoutMaxShared);
  }
  int per_sm = 0, sms = 0;
  cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, smem);
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
  return cache[key] = per_sm * sms;
}

// One row kernel shape (kCache vectors per thread, kThreads per CTA, min-blocks hint), launched one CTA per
// row, `capped` by row_threads_per_sm_cap. The variant is picked here: exact (the row fills every slot: no
// per-vector tests) and, for RMSNorm, with or without a residual.
template <typename TIn, typename TQ, int kVec, RowMode kMode, int kCache, int kThreads, int kMinBlocks, Ld kLd = Ld::kPlain>
void launch_row_shape(RowArgs const& a, cudaStream_t s, bool capped) {
  constexpr bool kE = kCache > 0, kR = kMode == RowMode::kRmsNorm;  // the variants that can exist
  const bool exact = kE && a.cols / kVec == static_cast<int64_t>(kCache) * kThreads;
  const bool res = kR && a.residual != nullptr;
  auto go = [&](auto kernel) {
    cg_pdl::launch(kernel, dim3(static_cast<unsigned>(a.rows)), dim3(kThreads), capped ? cap_smem(kernel, kThreads) : 0, s,
                   cg_pdl::active(), a);
  };
  if (exact && res) go(row_quant_kernel<TIn, TQ, kVec, kCache, kThreads, kMode, kMinBlocks, kE, kR, kLd>);
  else if (exact) go(row_quant_kernel<TIn, TQ, kVec, kCache, kThreads, kMode, kMinBlocks, kE, false, kLd>);
  else if (res) go(row_quant_kernel<TIn, TQ, kVec, kCache, kThreads, kMode, kMinBlocks, false, kR, kLd>);
  else go(row_quant_kernel<TIn, TQ, kVec, kCache, kThreads, kMode, kMinBlocks, false, false, kLd>);
}

// One CTA per row, each thread holding up to 4 vectors of it (8 for long rows). The 4-vector kernels' min-blocks
// hints let 1024 threads share an SM, the residency cap's: 64 registers, which only RMSNorm with a residual
// needed fewer than it takes unhinted (78: 6 CTAs of 128 per SM; ptxas -v shows no spill at 64). The 8-vector
// kernel is not hinted (tools/results/h100-2026-11-23/run3: capping its registers spilled and was slower).
// A few rows (at most kFewRows) leave most SMs idle and each CTA's chain of dependent steps is the
// time: there, twice the threads per row, each holding up to kFewCache vectors.
constexpr int64_t kFewRows = 256;
template <typename TIn, typename TQ, int kVec, RowMode kMode, int kFewCache = 2>
void launch_rows(RowArgs const& a, cudaStream_t s) {
  const int64_t nvec = a.cols / kVec;
  // RMSNorm without a residual takes the kernels of the other modes. (It had its own, 8 vectors per thread and
  // half the threads per row, while every slot was tested and every bf16 widened in three instructions; since the
  // exact variant and the two-instruction widening the 4-vector kernels are faster: session17/call2/qt17b.log,
  // 2048 x 4096 12.78 vs 13.90 us, 4096 x 4096 21.65 vs 22.95, 2048 x 8192 23.01 vs 23.34. The sum of squares is
  // added in another order than the 8-vector kernel's: results agree with the reference to its rounding.)
  if (kVec > 1 && a.rows <= kFewRows && nvec <= kFewCache * 512) {
    constexpr Ld kS = Ld::kStream;
    if (nvec <= kFewCache * 128) launch_row_shape<TIn, TQ, kVec, kMode, kFewCache, 128, 1, kS>(a, s, false);
    else if (nvec <= kFewCache * 256) launch_row_shape<TIn, TQ, kVec, kMode, kFewCache, 256, 1, kS>(a, s, false);
    else launch_row_shape<TIn, TQ, kVec, kMode, kFewCache, 512, 1, kS>(a, s, false);
  } else if (kVec > 1 && nvec <= 4 * 128) launch_row_shape<TIn, TQ, kVec, kMode, 4, 128, 8>(a, s, true);
  else if (kVec > 1 && nvec <= 4 * 256) launch_row_shape<TIn, TQ, kVec, kMode, 4, 256, 4>(a, s, true);
  else if (kVec > 1 && nvec <= 8 * 512) launch_row_shape<TIn, TQ, kVec, kMode, 8, 512, 1>(a, s, false);
  else launch_row_shape<TIn, TQ, kVec, kMode, 0, 512, 1>(a, s, false);
}

// Per-group launch: 128-thread CTAs over (row, chunk of kPer * 128 vectors). One capped 256-thread CTA per
// row was measured slower (2048x8192 bf16 g128 22.97 us vs 21.85, session8/call5/qt8_rows.log) and removed.
template <typename TIn, typename TQ, int kVec, int kLanes>
void launch_groups_lanes(RowArgs const& a, cudaStream_t s) {
  const int64_t nvec = a.cols / kVec;
  auto go = [&](auto per) {
    constexpr int kPer = decltype(per)::value;
    dim3 grid(static_cast<unsigned>(a.rows), static_cast<unsigned>((nvec + kPer * 128 - 1) / (kPer * 128)));
    cg_pdl::launch(group_quant_kernel<TIn, TQ, kVec, kPer, 128, kLanes>, grid, dim3(128), 0, s, cg_pdl::active(), a);
  };
  if (nvec <= 128) go(std::integral_constant<int, 1>{});
  else if (nvec <= 256) go(std::integral_constant<int, 2>{});
  else go(std::integral_constant<int, 4>{});
}

// a.group_lanes (8, 16 or 32 vectors per group; quant_ops.cu checks) as a template argument
template <typename TIn, typename TQ, int kVec>
cudaError_t launch_groups(RowArgs const& a, cudaStream_t s) {
  switch (a.group_lanes) {
    case 8: launch_groups_lanes<TIn, TQ, kVec, 8>(a, s); return cudaSuccess;
    case 16: launch_groups_lanes<TIn, TQ, kVec, 16>(a, s); return cudaSuccess;
    case 32: launch_groups_lanes<TIn, TQ, kVec, 32>(a, s); return cudaSuccess;
    default: return cudaErrorInvalidValue;
  }
}

// Upper bound on the per-tensor kernel's grid (the size of RowArgs::partials).
inline int tensor_partials_capacity() {
  int dev = 0, sms = 0;
  cudaGetDevice(&dev);
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
  return sms * (2048 / kTensorThreads);
}

// Inputs of more than tensor_two_pass_min() and at most tensor_two_pass_max() bytes take the two-pass form
// (tensor_absmax_kernel + tensor_apply_kernel) instead of the cooperative kernel: bf16 -> fp8 on the H100
// (tools/results/h100-2026-11-26/session18/call5/qt18e.log, rotated copies beyond L2) 16 x 8192 5.90 -> 4.85 us,
// 128 x 4096 8.12 -> 5.45, 512 x 4096 8.84 -> 7.61, 1024 x 4096 (8 MiB) 10.83 -> 10.75; slower from 2048 x 4096
// (16.8 MB: 15.80 -> 16.91, 33.6 MB: 25.12 -> 31.29; pass 2 then misses L2 more than the one kernel's barrier
// costs). It replaced the SM90 thread-block cluster form between 16 KiB and 512 KiB (16 x 8192 above). Up to
// 16 KiB one CTA does it all. Variables so that a harness can compare the forms.
inline int64_t& tensor_two_pass_min() {
  static int64_t v = int64_t{16} << 10;
  return v;
}
inline int64_t& tensor_two_pass_max() {
  static int64_t v = int64_t{8} << 20;
  return v;
}

template <typename TIn, typename TQ, int kVec, bool kC>
cudaError_t launch_tensor_two_pass(RowArgs const& a, int64_t total, cudaStream_t s) {
  constexpr int kThreads1 = 512, kPer = 4, kThreads2 = 256;
  const int parts = static_cast<int>(std::min<int64_t>(tensor_partials_capacity(), (total + kThreads1 * 4 - 1) / (kThreads1 * 4)));
  tensor_absmax_kernel<TIn, kVec, kThreads1, kC><<<parts, kThreads1, 0, s>>>(a);
  cudaError_t err = cudaGetLastError();
  if (err != cudaSuccess) return err;
  // Pass 2 is always a programmatic dependent where the device takes it (pdl.cuh), whatever the switch says: it
  // was built with pass 1 as one pair (its early loads of x are safe: x was complete before pass 1 started).
  return cg_pdl::launch(tensor_apply_kernel<TIn, TQ, kVec, kPer, kThreads2, kC>,
                        dim3(static_cast<unsigned>((total + kPer * kThreads2 - 1) / (kPer * kThreads2))), dim3(kThreads2), 0,
                        s, cg_pdl::device_supports(), a, parts);
}

template <typename TIn, typename TQ, int kVec>
cudaError_t launch_tensor(RowArgs const& a, cudaStream_t s) {
  const bool contig = a.rows <= 1 || a.ldx == a.cols;
  const int64_t total = a.rows * (a.cols / kVec);
  const int64_t want = std::max<int64_t>(1, (total + kTensorThreads * kTensorCache - 1) / (kTensorThreads * kTensorCache));
  const int64_t bytes = total * kVec * static_cast<int64_t>(sizeof(TIn));
  auto go = [&](auto kc) {
    constexpr bool kC = decltype(kc)::value;
    if (bytes <= tensor_two_pass_min()) {
      tensor_quant_kernel<TIn, TQ, kVec, kTensorCache, kTensorThreads, kC, TensorSync::kNone><<<1, kTensorThreads, 0, s>>>(a);
      return cudaGetLastError();
    }
    if (bytes <= tensor_two_pass_max()) return launch_tensor_two_pass<TIn, TQ, kVec, kC>(a, total, s);
    auto kernel = tensor_quant_kernel<TIn, TQ, kVec, kTensorCache, kTensorThreads, kC, TensorSync::kGrid>;
    const int plain = coresident_blocks(kernel, kTensorThreads);
    RowArgs copy = a;
    copy.tensor_smem_vecs = 0;
    int smem = 0, blocks = static_cast<int>(std::min<int64_t>(want, plain));
    if (want > plain) {  // the registers of a full grid cannot hold it: add shared memory (tensor_quant_kernel)
      const int smem_vecs = tensor_smem_vecs_max();
      smem = smem_vecs * kTensorThreads * 16;
      const int with = smem_vecs > 0 ? coresident_blocks(kernel, kTensorThreads, smem) : 0;
      if (with * 2 >= plain) {  // keep the shared memory only if it costs at most half the resident CTAs
        const int64_t per_thread = (total + static_cast<int64_t>(with) * kTensorThreads - 1) / (static_cast<int64_t>(with) * kTensorThreads);
        copy.tensor_smem_vecs = static_cast<int>(std::min<int64_t>(smem_vecs, std::max<int64_t>(0, per_thread - kTensorCache)));
        smem = copy.tensor_smem_vecs * kTensorThreads * 16;
        blocks = with;  // fewer bytes than asked for keep at least `with` CTAs resident
      } else {
        smem = 0;
      }
    }
    void* params[] = {&copy};
    return cudaLaunchCooperativeKernel(reinterpret_cast<void*>(kernel), dim3(blocks), dim3(kTensorThreads), params,
                                       static_cast<size_t>(smem), s);
  };
  if (contig) return go(std::true_type{});
  return go(std::false_type{});
}

// Launch `mode` on (rows, cols) of TIn input with 16-byte vectors when `vectorized` (16-byte aligned rows,
// cols a multiple of the vector), one element per access otherwise (kGroup: vectorized only).
template <typename TIn>
cudaError_t launch_quant_in(RowArgs const& a, RowMode mode, OutType out, bool vectorized, cudaStream_t s) {
  cudaError_t err = cudaSuccess;
  auto with_out = [&](auto tq) {
    using TQ = decltype(tq);
    constexpr int kV = 16 / sizeof(TIn);
    auto rows = [&](auto m) {
      constexpr RowMode kM = decltype(m)::value;
      if (vectorized) launch_rows<TIn, TQ, kV, kM>(a, s);
      else launch_rows<TIn, TQ, 1, kM>(a, s);
    };
    switch (mode) {
      case RowMode::kDynamic: rows(std::integral_constant<RowMode, RowMode::kDynamic>{}); break;
      case RowMode::kDynamicAsym:
        if constexpr (std::is_same_v<TQ, int8_t>) rows(std::integral_constant<RowMode, RowMode::kDynamicAsym>{});
        else err = cudaErrorInvalidValue;
        break;
      case RowMode::kStatic: rows(std::integral_constant<RowMode, RowMode::kStatic>{}); break;
      case RowMode::kRmsNorm: rows(std::integral_constant<RowMode, RowMode::kRmsNorm>{}); break;
      case RowMode::kPerTensor:
        err = vectorized ? launch_tensor<TIn, TQ, kV>(a, s) : launch_tensor<TIn, TQ, 1>(a, s);
        break;
      case RowMode::kGroup:
        err = vectorized ? launch_groups<TIn, TQ, kV>(a, s) : cudaErrorInvalidValue;
        break;
      default: err = cudaErrorInvalidValue;
    }
  };
  if (out == OutType::kInt8) with_out(int8_t{});
  else with_out(__nv_fp8_e4m3{});
  return err != cudaSuccess ? err : cudaGetLastError();
}

// The extension compiles each input type's kernels in a translation unit of its own (quant_inst_*.cu, built in
// parallel: one unit holding them all was the extension build's longest step, ~75 s of nvcc). Its units define
// this macro, so none instantiates a type by naming it (launch_quant below names all three); each quant_inst_*.cu
// then instantiates its one type explicitly. A harness that includes this header alone instantiates them all.
#ifdef CG_QUANT_SPLIT_INSTANCES
extern template cudaError_t launch_quant_in<float>(RowArgs const&, RowMode, OutType, bool, cudaStream_t);
extern template cudaError_t launch_quant_in<__half>(RowArgs const&, RowMode, OutType, bool, cudaStream_t);
extern template cudaError_t launch_quant_in<__nv_bfloat16>(RowArgs const&, RowMode, OutType, bool, cudaStream_t);
#endif

inline cudaError_t launch_quant(RowArgs const& a, RowMode mode, InType in, OutType out, bool vectorized, cudaStream_t s) {
  switch (in) {
    case InType::kFloat: return launch_quant_in<float>(a, mode, out, vectorized, s);
    case InType::kHalf: return launch_quant_in<__half>(a, mode, out, vectorized, s);
    case InType::kBFloat16: return launch_quant_in<__nv_bfloat16>(a, mode, out, vectorized, s);
    default: return cudaErrorInvalidValue;
  }
}

}  // namespace cg_quant
