// Activation-quantization kernels: dynamic per-token (symmetric / asymmetric), static per-tensor,
// dynamic per-tensor (device-side max), per-group along K, and RMSNorm (+ residual add) fused with
// dynamic per-token quantization. int8 or fp8 e4m3 out; float, half or bfloat16 in.
//
// The arithmetic is the reference quantizer's (cutlass_gemm/quant/quantize.py), operation for
// operation, so results are bit-identical to it:
//   scale = float(double(amax) / qmax), at least FLT_MIN; 1 where amax == 0
//   q     = saturate(rint(x * (1 / scale)) [+ azp])   (correctly rounded reciprocal and product, ties to even)
// A group (row, tensor or K-group) holding a NaN or an infinity gets scale NaN and q = 0, so the
// GEMM that consumes it writes NaN rather than a plausible finite value.
// No torch headers here: the launchers take raw pointers and a stream.
#pragma once
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <cuda_runtime.h>

#include <cfloat>
#include <cstdint>

namespace cg_quant_old {

enum class RowMode : int {
  kDynamic = 0,      // symmetric per-token scale from the row's absmax
  kDynamicAsym = 1,  // asymmetric per-token scale + zero point from the row's [min, max] (int8)
  kStatic = 2,       // given per-tensor scale (and zero point); row scale out = scale or NaN
  kPerTensor = 3,    // scale from a device-side absmax of the whole tensor (computed first)
  kRmsNorm = 4,      // y = w * round(h * rsqrt(mean(h^2) + eps)), h = x (+ residual); then kDynamic on y
};

struct RowArgs {
  const void* x;
  int64_t ldx;
  void* q;
  int64_t ldq;
  float* scale_out;        // (M,) per-row scale; for kPerTensor a single float
  int32_t* azp_out;        // (M,) kDynamicAsym only
  int64_t rows, cols;
  const float* static_scale;    // kStatic: one float
  const int32_t* static_azp;    // kStatic: one int32 or null
  const float* scale_ub;        // kDynamic fp8: optional upper bound on the absmax
  const unsigned* tensor_amax;  // kPerTensor: absmax bits from amax_kernel
  const void* residual;         // kRmsNorm: optional (M, K), ld = ldr
  int64_t ldr;
  void* residual_out;           // kRmsNorm with residual: x + residual, (M, K) contiguous
  const void* norm_weight;      // kRmsNorm: (K,)
  float eps;
};

template <typename T> __device__ __forceinline__ float to_f(T v);
template <> __device__ __forceinline__ float to_f<float>(float v) { return v; }
template <> __device__ __forceinline__ float to_f<__half>(__half v) { return __half2float(v); }
template <> __device__ __forceinline__ float to_f<__nv_bfloat16>(__nv_bfloat16 v) { return __bfloat162float(v); }
template <typename T> __device__ __forceinline__ T from_f(float v);
template <> __device__ __forceinline__ float from_f<float>(float v) { return v; }
template <> __device__ __forceinline__ __half from_f<__half>(float v) { return __float2half_rn(v); }
template <> __device__ __forceinline__ __nv_bfloat16 from_f<__nv_bfloat16>(float v) { return __float2bfloat16_rn(v); }

template <typename TQ> struct QTraits;
template <> struct QTraits<int8_t> {
  static constexpr float kMax = 127.0f;
  __device__ static int8_t quant(float v, float inv_scale, float azp) {
    float y = rintf(__fmul_rn(v, inv_scale)) + azp;
    y = fminf(fmaxf(y, -128.0f), 127.0f);
    return static_cast<int8_t>(y);
  }
  __device__ static int8_t zero() { return 0; }
};
template <> struct QTraits<__nv_fp8_e4m3> {
  static constexpr float kMax = 448.0f;
  __device__ static __nv_fp8_e4m3 quant(float v, float inv_scale, float) {
    float y = fminf(fmaxf(__fmul_rn(v, inv_scale), -448.0f), 448.0f);
    __nv_fp8_e4m3 r;
    r.__x = __nv_cvt_float_to_fp8(y, __NV_SATFINITE, __NV_E4M3);
    return r;
  }
  __device__ static __nv_fp8_e4m3 zero() { __nv_fp8_e4m3 r; r.__x = 0; return r; }
};

// The reference's symmetric scale rule; `finite` false -> NaN.
__device__ __forceinline__ float scale_from_amax(float amax, float qmax, bool finite) {
  if (!finite) return __int_as_float(0x7fc00000);
  float s = __double2float_rn(__ddiv_rn(static_cast<double>(amax), static_cast<double>(qmax)));
  s = fmaxf(s, FLT_MIN);
  return amax > 0.0f ? s : 1.0f;
}

// The reference's asymmetric rule: range widened to contain 0, scale = range / 255, then nudged
// down one ulp at a time until max and min land on 127 and -128.
__device__ __forceinline__ void scale_azp_from_range(float mn, float mx, bool finite, float* scale, int32_t* azp) {
  if (!finite) { *scale = __int_as_float(0x7fc00000); *azp = 0; return; }
  mn = fminf(mn, 0.0f);
  mx = fmaxf(mx, 0.0f);
  double rng = static_cast<double>(mx) - static_cast<double>(mn);
  bool degenerate = rng == 0.0;
  float s = degenerate ? 1.0f : fmaxf(__double2float_rn(__ddiv_rn(rng, 255.0)), FLT_MIN);
  float lo = 0.0f;
  for (int i = 0; i < 64 && !degenerate; ++i) {
    float inv = __frcp_rn(s);
    lo = rintf(__fmul_rn(mn, inv));
    float hi = rintf(__fmul_rn(mx, inv));
    if (hi - lo >= 255.0f) break;
    s = nextafterf(s, 0.0f);
  }
  *scale = s;
  *azp = degenerate ? 0 : static_cast<int32_t>(-128.0f - lo);
}

// ------------------------------------------------------------------------------------ reductions
struct Stats {
  unsigned amax_bits;  // bits of |v|: as unsigned they order like the floats, NaN above infinity
  float mn, mx, sumsq;
  int bad;
};

__device__ __forceinline__ void stats_init(Stats& s) { s.amax_bits = 0u; s.mn = 0.0f; s.mx = 0.0f; s.sumsq = 0.0f; s.bad = 0; }

// kMinMax: asymmetric modes need the range; kSum: RMSNorm needs the sum of squares. Other modes skip
// those fields, which saves registers and shuffles (the kernels are memory-bound; occupancy matters).
template <bool kMinMax, bool kSum>
__device__ __forceinline__ void stats_add(Stats& s, float v) {
  unsigned b = __float_as_uint(fabsf(v));
  s.amax_bits = max(s.amax_bits, b);
  if (kMinMax) { s.mn = fminf(s.mn, v); s.mx = fmaxf(s.mx, v); }
  if (kSum) s.sumsq += v * v;
  s.bad |= (b >= 0x7f800000u);
}

template <bool kMinMax, bool kSum>
__device__ __forceinline__ void stats_merge(Stats& a, Stats const& b) {
  a.amax_bits = max(a.amax_bits, b.amax_bits);
  if (kMinMax) { a.mn = fminf(a.mn, b.mn); a.mx = fmaxf(a.mx, b.mx); }
  if (kSum) a.sumsq += b.sumsq;
  a.bad |= b.bad;
}

template <bool kMinMax, bool kSum>
__device__ __forceinline__ Stats stats_shfl(Stats const& s, int lane_mask, int width = 32) {
  Stats o = s;
  o.amax_bits = __shfl_xor_sync(0xffffffffu, s.amax_bits, lane_mask, width);
  if (kMinMax) {
    o.mn = __shfl_xor_sync(0xffffffffu, s.mn, lane_mask, width);
    o.mx = __shfl_xor_sync(0xffffffffu, s.mx, lane_mask, width);
  }
  if (kSum) o.sumsq = __shfl_xor_sync(0xffffffffu, s.sumsq, lane_mask, width);
  o.bad = __shfl_xor_sync(0xffffffffu, s.bad, lane_mask, width);
  return o;
}

// Every thread of the block gets the block-wide statistics, after one __syncthreads: each thread
// merges the per-warp partials itself, in the same order (so sums agree across threads). One barrier
// instead of three was measured 2-10% faster on the H100 (tools/results/h100-2026-11-23/run3).
// kSlot gives each call site of one kernel its own shared array, so no trailing barrier is needed.
template <int kThreads, bool kMinMax, bool kSum, int kSlot = 0>
__device__ __forceinline__ Stats block_stats(Stats s) {
  for (int m = 16; m > 0; m >>= 1) stats_merge<kMinMax, kSum>(s, stats_shfl<kMinMax, kSum>(s, m));
  if constexpr (kThreads <= 32) {
    return s;
  } else {
    __shared__ Stats partial[kThreads / 32];
    if (threadIdx.x % 32 == 0) partial[threadIdx.x / 32] = s;
    __syncthreads();
    Stats t = partial[0];
#pragma unroll
    for (int w = 1; w < kThreads / 32; ++w) stats_merge<kMinMax, kSum>(t, partial[w]);
    return t;
  }
}

// ------------------------------------------------------------------------------------ vector I/O
template <typename T, int kVec>
struct alignas(sizeof(T) * kVec) VecT { T v[kVec]; };

// ------------------------------------------------------------------------------------ row kernel
// One CTA per row. Each thread keeps up to kCache vectors of the row in registers, so the row is read
// from memory once; kCache == 0 re-reads the row (from L2, normally) for rows too long to cache.
template <typename TIn, typename TQ, int kVec, int kCache, int kThreads, RowMode kMode>
struct RowQuant {
  static constexpr bool kMinMax = kMode == RowMode::kDynamicAsym;
  static constexpr bool kSum = kMode == RowMode::kRmsNorm;
  static constexpr int kSlots = kCache > 0 ? kCache : 1;
  using V = VecT<TIn, kVec>;
  using VQ = VecT<TQ, kVec>;

  RowArgs const& args;
  int64_t nvec;

  __device__ const TIn* x_row(int64_t row) const { return static_cast<const TIn*>(args.x) + row * args.ldx; }
  __device__ const TIn* res_row(int64_t row) const {
    return kMode == RowMode::kRmsNorm && args.residual ? static_cast<const TIn*>(args.residual) + row * args.ldr : nullptr;
  }
  __device__ TIn* res_out_row(int64_t row) const {
    return kMode == RowMode::kRmsNorm && args.residual ? static_cast<TIn*>(args.residual_out) + row * args.cols : nullptr;
  }

  // Vector i of the pre-normalisation input h (x, or x + residual rounded to TIn, stored when asked).
  __device__ V load(int64_t row, int64_t i, bool store_residual) const {
    V v = *reinterpret_cast<const V*>(x_row(row) + i * kVec);
    if (const TIn* res = res_row(row)) {
      V r = *reinterpret_cast<const V*>(res + i * kVec);
#pragma unroll
      for (int e = 0; e < kVec; ++e) v.v[e] = from_f<TIn>(to_f(v.v[e]) + to_f(r.v[e]));
      if (store_residual) *reinterpret_cast<V*>(res_out_row(row) + i * kVec) = v;
    }
    return v;
  }
  // h again in a later pass of the re-reading (kCache == 0) path
  __device__ V reload(int64_t row, int64_t i) const {
    TIn* ro = res_out_row(row);
    return ro ? *reinterpret_cast<const V*>(ro + i * kVec) : load(row, i, false);
  }
  __device__ void load_cached(V (&c)[kSlots], int64_t row) const {
#pragma unroll
    for (int j = 0; j < kSlots; ++j) {
      int64_t i = threadIdx.x + static_cast<int64_t>(j) * kThreads;
      if (i < nvec) c[j] = load(row, i, true);
    }
  }
  // y = round(w * round(h * rinv)), Llama's RMSNorm
  __device__ V norm(V v, int64_t i, float rinv) const {
    V wv = *reinterpret_cast<const V*>(static_cast<const TIn*>(args.norm_weight) + i * kVec);
#pragma unroll
    for (int e = 0; e < kVec; ++e) v.v[e] = from_f<TIn>(to_f(wv.v[e]) * to_f(from_f<TIn>(to_f(v.v[e]) * rinv)));
    return v;
  }

  __device__ void process(V (&c)[kSlots], int64_t row) const {
    Stats st;
    stats_init(st);
    if (kCache > 0) {
#pragma unroll
      for (int j = 0; j < kSlots; ++j) {
        int64_t i = threadIdx.x + static_cast<int64_t>(j) * kThreads;
        if (i < nvec) {
#pragma unroll
          for (int e = 0; e < kVec; ++e) stats_add<kMinMax, kSum>(st, to_f(c[j].v[e]));
        }
      }
    } else {
      for (int64_t i = threadIdx.x; i < nvec; i += kThreads) {
        V v = load(row, i, true);
#pragma unroll
        for (int e = 0; e < kVec; ++e) stats_add<kMinMax, kSum>(st, to_f(v.v[e]));
      }
    }
    st = block_stats<kThreads, kMinMax, kSum>(st);

    float rinv = 0.0f;
    if (kMode == RowMode::kRmsNorm) {  // the values to quantize are the normalised ones: their absmax
      rinv = rsqrtf(st.sumsq / static_cast<float>(args.cols) + args.eps);
      int bad = st.bad;
      stats_init(st);
      st.bad = bad;
      if (kCache > 0) {
#pragma unroll
        for (int j = 0; j < kSlots; ++j) {
          int64_t i = threadIdx.x + static_cast<int64_t>(j) * kThreads;
          if (i < nvec) {
            c[j] = norm(c[j], i, rinv);
#pragma unroll
            for (int e = 0; e < kVec; ++e) stats_add<false, false>(st, to_f(c[j].v[e]));
          }
        }
      } else {
        for (int64_t i = threadIdx.x; i < nvec; i += kThreads) {
          V v = norm(reload(row, i), i, rinv);
#pragma unroll
          for (int e = 0; e < kVec; ++e) stats_add<false, false>(st, to_f(v.v[e]));
        }
      }
      st = block_stats<kThreads, false, false, 1>(st);
    }

    // The row's (or tensor's) scale and zero point.
    float scale, azp_f = 0.0f;
    bool bad = st.bad != 0;
    if (kMode == RowMode::kDynamicAsym) {
      int32_t azp;
      scale_azp_from_range(st.mn, st.mx, !bad, &scale, &azp);
      azp_f = static_cast<float>(azp);
      if (threadIdx.x == 0) args.azp_out[row] = azp;
    } else if (kMode == RowMode::kStatic) {
      scale = *args.static_scale;
      if (args.static_azp) azp_f = static_cast<float>(*args.static_azp);
    } else if (kMode == RowMode::kPerTensor) {
      unsigned bits = *args.tensor_amax;
      bad = bits >= 0x7f800000u;
      scale = scale_from_amax(__uint_as_float(bits), QTraits<TQ>::kMax, !bad);
    } else {
      float amax = __uint_as_float(st.amax_bits);
      if (args.scale_ub && !bad) amax = fminf(amax, *args.scale_ub);
      scale = scale_from_amax(amax, QTraits<TQ>::kMax, !bad);
    }
    if (threadIdx.x == 0) {
      if (kMode == RowMode::kStatic) args.scale_out[row] = bad ? __int_as_float(0x7fc00000) : scale;
      else if (kMode == RowMode::kPerTensor) { if (row == 0) args.scale_out[0] = scale; }
      else args.scale_out[row] = scale;
    }

    // Quantize and store.
    const float inv = __frcp_rn(scale);
    TQ* q = static_cast<TQ*>(args.q) + row * args.ldq;
    auto quant = [&](V const& v, int64_t i) {
      VQ o;
#pragma unroll
      for (int e = 0; e < kVec; ++e) o.v[e] = bad ? QTraits<TQ>::zero() : QTraits<TQ>::quant(to_f(v.v[e]), inv, azp_f);
      *reinterpret_cast<VQ*>(q + i * kVec) = o;
    };
    if (kCache > 0) {
#pragma unroll
      for (int j = 0; j < kSlots; ++j) {
        int64_t i = threadIdx.x + static_cast<int64_t>(j) * kThreads;
        if (i < nvec) quant(c[j], i);
      }
    } else {
      for (int64_t i = threadIdx.x; i < nvec; i += kThreads) {
        V v = reload(row, i);
        if (kMode == RowMode::kRmsNorm) v = norm(v, i, rinv);
        quant(v, i);
      }
    }
  }
};

template <typename TIn, typename TQ, int kVec, int kCache, int kThreads, RowMode kMode>
__global__ void __launch_bounds__(kThreads, kCache == 4 ? 768 / kThreads : 1) row_quant_kernel(RowArgs args) {
  using RQ = RowQuant<TIn, TQ, kVec, kCache, kThreads, kMode>;
  RQ rq{args, args.cols / kVec};
  typename RQ::V row[RQ::kSlots];
  if (kCache > 0) rq.load_cached(row, blockIdx.x);
  rq.process(row, blockIdx.x);
}

// Device-side absmax of a whole tensor (as bits, NaN above infinity), for dynamic per-tensor scales.
template <typename TIn, int kVec>
__global__ void __launch_bounds__(256) amax_kernel(const TIn* x, int64_t ldx, int64_t rows, int64_t cols,
                                                   unsigned* amax_bits) {
  using V = VecT<TIn, kVec>;
  const int64_t nvec = cols / kVec, total = rows * nvec;
  Stats st;
  stats_init(st);
  for (int64_t t = blockIdx.x * 256 + threadIdx.x; t < total; t += static_cast<int64_t>(gridDim.x) * 256) {
    int64_t r = t / nvec, i = t % nvec;
    V v = *reinterpret_cast<const V*>(x + r * ldx + i * kVec);
#pragma unroll
    for (int e = 0; e < kVec; ++e) stats_add<false, false>(st, to_f(v.v[e]));
  }
  st = block_stats<256, false, false>(st);
  if (threadIdx.x == 0) atomicMax(amax_bits, st.amax_bits);
}

// ------------------------------------------------------------------------------------ group kernel
// Per-group along K: each thread quantizes kPer vectors (loads issued together, for memory-level
// parallelism), each reduced with the kLanes threads of its group by shuffles (groups never straddle
// rows because K % group == 0; the grid stride is a multiple of 32, so lane groups stay aligned).
template <typename TIn, typename TQ, int kVec, int kLanes, int kPer>
__global__ void __launch_bounds__(256) group_quant_kernel(const TIn* x, int64_t ldx, TQ* q, float* scale,
                                                          int64_t rows, int64_t cols) {
  using V = VecT<TIn, kVec>;
  using VQ = VecT<TQ, kVec>;
  const int64_t nvec = cols / kVec, total = rows * nvec, groups = nvec / kLanes;
  const int64_t stride = static_cast<int64_t>(gridDim.x) * 256;
  const int64_t t0 = static_cast<int64_t>(blockIdx.x) * 256 + threadIdx.x;
  V v[kPer];
#pragma unroll
  for (int j = 0; j < kPer; ++j) {
    int64_t t = t0 + j * stride;
    if (t < total) v[j] = *reinterpret_cast<const V*>(x + (t / nvec) * ldx + (t % nvec) * kVec);
  }
#pragma unroll
  for (int j = 0; j < kPer; ++j) {
    const int64_t t = t0 + j * stride;
    const bool active = t < total;
    Stats st;
    stats_init(st);
    if (active) {
#pragma unroll
      for (int e = 0; e < kVec; ++e) stats_add<false, false>(st, to_f(v[j].v[e]));
    }
    // all 32 lanes take part in the shuffles (inactive ones with neutral values)
    for (int m = kLanes / 2; m > 0; m >>= 1) stats_merge<false, false>(st, stats_shfl<false, false>(st, m, kLanes));
    if (!active) continue;
    const int64_t r = t / nvec, i = t % nvec;
    bool bad = st.bad != 0;
    float s = scale_from_amax(__uint_as_float(st.amax_bits), QTraits<TQ>::kMax, !bad);
    if (i % kLanes == 0) scale[r * groups + i / kLanes] = s;
    VQ o;
    const float inv = __frcp_rn(s);
#pragma unroll
    for (int e = 0; e < kVec; ++e) o.v[e] = bad ? QTraits<TQ>::zero() : QTraits<TQ>::quant(to_f(v[j].v[e]), inv, 0.0f);
    *reinterpret_cast<VQ*>(q + r * cols + i * kVec) = o;
  }
}

}  // namespace cg_quant_old
