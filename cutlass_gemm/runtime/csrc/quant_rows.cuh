// Row kernels: one CTA per row for the modes whose scale depends on the whole row (dynamic per-token,
// asymmetric, static, RMSNorm + quant), and the per-group kernel (scales per run of `group` elements
// of a row, reduced by shuffles alone). See quant_common.cuh for the arithmetic.
#pragma once
#include "quant_common.cuh"

namespace cg_quant {

// One CTA per row. Each thread keeps up to kCache vectors of the row in registers, so the row is read
// from memory once; kCache == 0 re-reads the row (from L2, normally) for rows too long to cache. Thread t
// holds the row's vectors t + j * kThreads (slot j). kExact: the row has exactly kCache * kThreads vectors,
// so every slot exists and needs no test (no branch per vector); kRes: RMSNorm with a residual; kLd: the L1
// policy of the input (and residual) loads (ld_vec; the launcher says which kernels stream).
template <typename TIn, typename TQ, int kVec, int kCache, int kThreads, RowMode kMode, bool kExact = false, bool kRes = false,
          Ld kLd = Ld::kPlain>
struct RowQuant {
  static_assert(kMode != RowMode::kPerTensor && kMode != RowMode::kGroup, "see tensor_quant_kernel / group_quant_kernel");
  static_assert(!kRes || kMode == RowMode::kRmsNorm, "a residual only with RMSNorm");
  static_assert(!kExact || kCache > 0, "kExact describes the cached slots");
  static constexpr bool kMinMax = kMode == RowMode::kDynamicAsym;
  static constexpr bool kSum = kMode == RowMode::kRmsNorm;
  static constexpr bool kAzp = kMode == RowMode::kDynamicAsym || kMode == RowMode::kStatic;
  static constexpr int kSlots = kCache > 0 ? kCache : 1;
  static constexpr int kWSlots = kMode == RowMode::kRmsNorm ? kSlots : 1;
  static constexpr int kRSlots = kRes ? kSlots : 1;
  using V = VecT<TIn, kVec>;

  RowArgs const& args;
  int64_t nvec;

  __device__ bool has(int j) const { return kExact || threadIdx.x + static_cast<int64_t>(j) * kThreads < nvec; }
  __device__ const TIn* x_row(int64_t row) const { return static_cast<const TIn*>(args.x) + row * args.ldx; }
  __device__ const TIn* res_row(int64_t row) const {
    return kRes ? static_cast<const TIn*>(args.residual) + row * args.ldr : nullptr;
  }
  __device__ TIn* res_out_row(int64_t row) const { return kRes ? static_cast<TIn*>(args.residual_out) + row * args.cols : nullptr; }
  __device__ V weight(int64_t i) const { return *reinterpret_cast<const V*>(static_cast<const TIn*>(args.norm_weight) + i * kVec); }

  // h = x + residual rounded to TIn (same bits as widening, adding and rounding back: quant_common.cuh)
  __device__ static V add_res(V v, V const& r) {
    if constexpr (kPaired<TIn, kVec>) {
      using T2 = typename Pair<TIn>::T2;
#pragma unroll
      for (int e = 0; e < kVec / 2; ++e)
        reinterpret_cast<T2*>(v.v)[e] = __hadd2_rn(reinterpret_cast<const T2*>(v.v)[e], reinterpret_cast<const T2*>(r.v)[e]);
    } else {
#pragma unroll
      for (int e = 0; e < kVec; ++e) v.v[e] = from_f<TIn>(to_f(v.v[e]) + to_f(r.v[e]));
    }
    return v;
  }
  // Vector i of the pre-normalisation input h (x, or x + residual, stored when asked): the re-reading path.
  __device__ V load(int64_t row, int64_t i, bool store_residual) const {
    V v = ld_vec<kLd>(reinterpret_cast<const V*>(x_row(row) + i * kVec));
    if constexpr (kRes) {
      v = add_res(v, ld_vec<kLd>(reinterpret_cast<const V*>(res_row(row) + i * kVec)));
      if (store_residual) *reinterpret_cast<V*>(res_out_row(row) + i * kVec) = v;
    }
    return v;
  }
  // h again in a later pass of the re-reading (kCache == 0) path
  __device__ V reload(int64_t row, int64_t i) const {
    if constexpr (kRes) return *reinterpret_cast<const V*>(res_out_row(row) + i * kVec);
    return load(row, i, false);
  }
  // The row (and, for RMSNorm, the norm weight: loaded now, its latency hidden behind the row's). Every
  // load is issued before the first residual store: a store may alias a later load's address as far as
  // the compiler knows, so storing as each vector arrives kept one row's loads from overlapping.
  __device__ void load_cached(V (&c)[kSlots], V (&w)[kWSlots], int64_t row) const {
    const V* xp = reinterpret_cast<const V*>(x_row(row)) + threadIdx.x;
    const V* wp = reinterpret_cast<const V*>(args.norm_weight) + threadIdx.x;
    V r[kRSlots];
#pragma unroll
    for (int j = 0; j < kSlots; ++j) {
      if (has(j)) {
        if (kMode == RowMode::kRmsNorm) w[j] = wp[j * kThreads];
        c[j] = ld_vec<kLd>(xp + j * kThreads);
        if constexpr (kRes) r[j] = ld_vec<kLd>(reinterpret_cast<const V*>(res_row(row)) + threadIdx.x + j * kThreads);
      }
    }
    if constexpr (kRes) {
      V* rop = reinterpret_cast<V*>(res_out_row(row)) + threadIdx.x;
#pragma unroll
      for (int j = 0; j < kSlots; ++j) {
        if (has(j)) {
          c[j] = add_res(c[j], r[j]);
          rop[j * kThreads] = c[j];
        }
      }
    }
  }
  // y = round(w * round(h * rinv)), Llama's RMSNorm
  __device__ static V norm(V v, V const& wv, float rinv) {
    if constexpr (kPaired<TIn, kVec>) {  // the same bits in fewer instructions (quant_common.cuh)
      using T2 = typename Pair<TIn>::T2;
#pragma unroll
      for (int e = 0; e < kVec / 2; ++e) {
        const float2 f = pair_to_f2(reinterpret_cast<const T2*>(v.v)[e]);
        reinterpret_cast<T2*>(v.v)[e] = __hmul2_rn(reinterpret_cast<const T2*>(wv.v)[e], pair_from_f<T2>(f.x * rinv, f.y * rinv));
      }
    } else {
#pragma unroll
      for (int e = 0; e < kVec; ++e) v.v[e] = from_f<TIn>(to_f(wv.v[e]) * to_f(from_f<TIn>(to_f(v.v[e]) * rinv)));
    }
    return v;
  }

  __device__ void process(V (&c)[kSlots], V (&w)[kWSlots], int64_t row) const {
    // static scale and zero point: loaded while the row is in flight, not after the reduction
    const float static_scale = kMode == RowMode::kStatic ? *args.static_scale : 0.0f;
    const float static_azp = kMode == RowMode::kStatic && args.static_azp ? static_cast<float>(*args.static_azp) : 0.0f;
    Stats st;
    stats_init(st);
    if (kCache > 0) {
#pragma unroll
      for (int j = 0; j < kSlots; ++j)
        if (has(j)) stats_add_vec<kMinMax, kSum>(st, c[j]);
    } else {
      for (int64_t i = threadIdx.x; i < nvec; i += kThreads) stats_add_vec<kMinMax, kSum>(st, load(row, i, true));
    }
    using TP = std::conditional_t<kMinMax && kPaired<TIn, kVec>, typename Pair<TIn>::T2, void>;
    st = block_stats<kThreads, kMinMax, kSum, 0, TP>(st);
    if constexpr (!std::is_void_v<TP>) range_unpack<TP>(st);
    bool bad = bits_bad(st.amax_bits);  // RMSNorm: always false here (no absmax yet; stats_add says why)

    float rinv = 0.0f;
    if (kMode == RowMode::kRmsNorm) {  // the values to quantize are the normalised ones: their absmax
      rinv = rsqrtf(st.sumsq / static_cast<float>(args.cols) + args.eps);
      stats_init(st);
      if (kCache > 0) {
#pragma unroll
        for (int j = 0; j < kSlots; ++j) {
          if (has(j)) {
            c[j] = norm(c[j], w[j], rinv);
            stats_add_vec<false, false>(st, c[j]);
          }
        }
      } else {
        for (int64_t i = threadIdx.x; i < nvec; i += kThreads) stats_add_vec<false, false>(st, norm(reload(row, i), weight(i), rinv));
      }
      st = block_stats<kThreads, false, false, 1>(st);
      bad = bits_bad(st.amax_bits);
    }

    // The row's scale and zero point.
    float scale, azp_f = 0.0f, inv_asym = 0.0f;
    if (kMode == RowMode::kDynamicAsym) {
      int32_t azp;
      scale_azp_from_range(st.mn, st.mx, !bad, &scale, &azp, &inv_asym);
      azp_f = static_cast<float>(azp);
      if (threadIdx.x == 0) args.azp_out[row] = azp;
    } else if (kMode == RowMode::kStatic) {
      scale = static_scale;
      azp_f = static_azp;
    } else {
      float amax = __uint_as_float(st.amax_bits);
      if (args.scale_ub && !bad) amax = fminf(amax, *args.scale_ub);
      scale = scale_from_amax(amax, QTraits<TQ>::kMax, !bad);
    }
    if (threadIdx.x == 0) args.scale_out[row] = kMode == RowMode::kStatic && bad ? nan_f() : scale;

    // Quantize and store; saturation only where a value can exceed the range (see int8_bits).
    // (the asymmetric rule has the reciprocal already; its rows need no lower bound: int8_bits says why)
    const float inv = kMode == RowMode::kDynamicAsym ? inv_asym : __frcp_rn(scale);
    constexpr bool kLow = kMode != RowMode::kDynamicAsym;
    TQ* q = static_cast<TQ*>(args.q) + row * args.ldq;
    auto store = [&](auto clamp) {
      constexpr bool kClamp = decltype(clamp)::value;
      if (kCache > 0) {
        TQ* qt = q + threadIdx.x * kVec;
#pragma unroll
        for (int j = 0; j < kSlots; ++j)
          if (has(j)) quant_store<TQ, kAzp, kClamp, kLow>(qt + j * kThreads * kVec, c[j], inv, azp_f, bad);
      } else {
        for (int64_t i = threadIdx.x; i < nvec; i += kThreads) {
          V v = reload(row, i);
          if (kMode == RowMode::kRmsNorm) v = norm(v, weight(i), rinv);
          quant_store<TQ, kAzp, kClamp, kLow>(q + i * kVec, v, inv, azp_f, bad);
        }
      }
    };
    if (kAzp || args.scale_ub) store(std::true_type{});
    else store(std::false_type{});
  }
};

template <typename TIn, typename TQ, int kVec, int kCache, int kThreads, RowMode kMode, int kMinBlocks, bool kExact = false,
          bool kRes = false, Ld kLd = Ld::kPlain>
__global__ void __launch_bounds__(kThreads, kMinBlocks) row_quant_kernel(RowArgs args) {
  using RQ = RowQuant<TIn, TQ, kVec, kCache, kThreads, kMode, kExact, kRes, kLd>;
  cg_pdl::launch_dependents();  // a programmatic dependent (pdl.cuh): nothing global before the wait
  cg_pdl::wait();
  RQ rq{args, args.cols / kVec};
  typename RQ::V row[RQ::kSlots], w[RQ::kWSlots];
  if (kCache > 0) rq.load_cached(row, w, blockIdx.x);
  rq.process(row, w, blockIdx.x);
}

// Per group along K: blockIdx.x is the row, blockIdx.y a chunk of kPer * kThreads vectors. A group is
// kLanes consecutive vectors, held by as many consecutive lanes of one warp (kThreads and the chunk are
// multiples of 32, and K is a multiple of the group), and reduced by shuffles alone: no barrier. kLanes is
// a template argument (8, 16 or 32) so the shuffles unroll and the scale addresses are shifts by constants.
template <typename TIn, typename TQ, int kVec, int kPer, int kThreads, int kLanes>
__global__ void __launch_bounds__(kThreads) group_quant_kernel(RowArgs args) {
  static_assert(kLanes == 8 || kLanes == 16 || kLanes == 32, "8, 16 or 32 vectors per group");
  static_assert(kPer == 1 || kPer == 2 || kPer == 4, "kPer <= 4 <= kLanes: one lane of a group per scale");
  using V = VecT<TIn, kVec>;
  using VQ = VecT<TQ, kVec>;
  constexpr int kShift = kLanes == 8 ? 3 : kLanes == 16 ? 4 : 5;
  cg_pdl::launch_dependents();  // a programmatic dependent (pdl.cuh): nothing global before the wait
  cg_pdl::wait();
  const int64_t row = blockIdx.x, nvec = args.cols / kVec;
  const int64_t base = static_cast<int64_t>(blockIdx.y) * kPer * kThreads + threadIdx.x;
  const V* x = reinterpret_cast<const V*>(static_cast<const TIn*>(args.x) + row * args.ldx);
  VQ* q = reinterpret_cast<VQ*>(static_cast<TQ*>(args.q) + row * args.ldq);
  // This thread's first group's scale, and the step to the group kThreads vectors on (row- or column-major)
  const int64_t g0 = base >> kShift;
  const int64_t ld = args.scale_ld > 0 ? args.scale_ld : args.rows;
  float* sp = args.scale_col_major ? args.scale_out + g0 * ld + row : args.scale_out + row * (nvec >> kShift) + g0;
  const int64_t sstep = args.scale_col_major ? static_cast<int64_t>(kThreads / kLanes) * ld : kThreads / kLanes;
  V c[kPer];
#pragma unroll
  for (int j = 0; j < kPer; ++j)
    if (base + j * kThreads < nvec) c[j] = x[base + j * kThreads];
  // Each thread holds kPer groups (j); every lane of a group ends the shuffles with its absmax.
  unsigned a[kPer];
#pragma unroll
  for (int j = 0; j < kPer; ++j) {
    Stats st;
    stats_init(st);
    if (base + j * kThreads < nvec) stats_add_vec<false, false>(st, c[j]);
    a[j] = st.amax_bits;  // every lane shuffles (idle ones with 0) before any leaves
#pragma unroll
    for (int m = kLanes / 2; m > 0; m >>= 1) a[j] = max(a[j], __shfl_xor_sync(0xffffffffu, a[j], m));
  }
  // The scale rule (a correctly rounded division and reciprocal, ~20 instructions) once per group, not once
  // per thread and group: lane r of a group computes group r's (r < kPer), the others take it by a shuffle.
  // Same inputs, same function: the same bits as each thread computing its own (every output byte equal to
  // commit d392b48's, session16/call1-2 qt16*.log), 2.4-4.7% faster at 2048 x 4096 .. 4096 x 4096 and 14-24% at
  // 16 x 8192 / 128 x 4096, where the per-thread scale arithmetic was the larger share.
  const int r = threadIdx.x & (kLanes - 1);
  const int jr = r & (kPer - 1);
  unsigned ar = a[0];
#pragma unroll
  for (int j = 1; j < kPer; ++j) ar = jr == j ? a[j] : ar;
  const float sc = scale_from_amax(__uint_as_float(ar), QTraits<TQ>::kMax, !bits_bad(ar));
  const float inv_r = __frcp_rn(sc);
  if (r < kPer && base + jr * kThreads < nvec) sp[jr * sstep] = sc;
  const int src0 = threadIdx.x & 31 & ~(kLanes - 1);
#pragma unroll
  for (int j = 0; j < kPer; ++j) {
    const float inv = kPer == 1 ? inv_r : __shfl_sync(0xffffffffu, inv_r, src0 + j);
    const int64_t i = base + j * kThreads;
    if (i < nvec) quant_store<TQ, false, false>(reinterpret_cast<TQ*>(q + i), c[j], inv, 0.0f, bits_bad(a[j]));
  }
}

}  // namespace cg_quant
