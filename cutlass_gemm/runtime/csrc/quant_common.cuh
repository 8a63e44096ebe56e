// Activation-quantization kernels, shared pieces: argument block, input/output traits, the scale rules,
// statistics, vector arithmetic and block reductions. The kernels: quant_rows.cuh (one row per CTA:
// dynamic per-token, asymmetric, static, RMSNorm + quant; per-group along K) and quant_tensor.cuh
// (dynamic per-tensor in one cooperative kernel); host launchers in quant_launch.cuh.
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
#include <type_traits>

#include "pdl.cuh"

namespace cg_quant {

enum class RowMode : int {
  kDynamic = 0,      // symmetric per-token scale from the row's absmax
  kDynamicAsym = 1,  // asymmetric per-token scale + zero point from the row's [min, max] (int8)
  kStatic = 2,       // given per-tensor scale (and zero point); row scale out = scale or NaN
  kPerTensor = 3,    // scale from the absmax of the whole tensor (quant_tensor.cuh)
  kRmsNorm = 4,      // y = w * round(h * rsqrt(mean(h^2) + eps)), h = x (+ residual); then kDynamic on y
  kGroup = 5,        // symmetric scale per `group` consecutive elements of a row
};

struct RowArgs {
  const void* x;
  int64_t ldx;
  void* q;
  int64_t ldq;
  float* scale_out;        // (M,) per-row scale; (M, K / group) for kGroup; one float for kPerTensor
  int32_t* azp_out;        // (M,) kDynamicAsym only
  int64_t rows, cols;
  const float* static_scale;    // kStatic: one float
  const int32_t* static_azp;    // kStatic: one int32 or null
  const float* scale_ub;        // kDynamic fp8: optional upper bound on the absmax
  unsigned* partials;           // kPerTensor: one absmax (as bits) per CTA, scratch
  const void* residual;         // kRmsNorm: optional (M, K), ld = ldr
  int64_t ldr;
  void* residual_out;           // kRmsNorm with residual: x + residual, (M, K) contiguous
  const void* norm_weight;      // kRmsNorm: (K,)
  float eps;
  int group_lanes;              // kGroup: vectors per group (8, 16 or 32)
  bool scale_col_major;         // kGroup: scale_out is (K / group, scale_ld) (column-major (rows, K / group))
  int64_t scale_ld;             // kGroup column-major: the scale's leading dimension, >= rows (rows padded to
                                // whole GEMM tiles, quant_ops.cu); 0: rows
  int tensor_smem_vecs;         // kPerTensor: vectors each thread keeps in dynamic shared memory (set by launch_tensor)
};

template <typename T> __device__ __forceinline__ float to_f(T v);
template <> __device__ __forceinline__ float to_f<float>(float v) { return v; }
template <> __device__ __forceinline__ float to_f<__half>(__half v) { return __half2float(v); }
template <> __device__ __forceinline__ float to_f<__nv_bfloat16>(__nv_bfloat16 v) { return __bfloat162float(v); }
template <typename T> __device__ __forceinline__ T from_f(float v);
template <> __device__ __forceinline__ float from_f<float>(float v) { return v; }
template <> __device__ __forceinline__ __half from_f<__half>(float v) { return __float2half_rn(v); }
template <> __device__ __forceinline__ __nv_bfloat16 from_f<__nv_bfloat16>(float v) { return __float2bfloat16_rn(v); }

__device__ __forceinline__ float nan_f() { return __int_as_float(0x7fc00000); }
// |v| as bits orders like the numbers, NaN above infinity: a max over them finds both the absmax
// and whether anything was not finite.
__device__ __forceinline__ bool bits_bad(unsigned amax_bits) { return amax_bits >= 0x7f800000u; }

template <typename TQ> struct QTraits;
template <> struct QTraits<int8_t> { static constexpr float kMax = 127.0f; };
template <> struct QTraits<__nv_fp8_e4m3> { static constexpr float kMax = 448.0f; };

// The reference's symmetric scale rule; `finite` false -> NaN. The reference divides in double and
// rounds to float; a correctly rounded float division gives the same float (double rounding through
// 53 bits is innocuous for a 24-bit quotient: 53 >= 2 * 24 + 2, Figueroa 1995), in fewer registers.
__device__ __forceinline__ float scale_from_amax(float amax, float qmax, bool finite) {
  if (!finite) return nan_f();
  float s = __fdiv_rn(amax, qmax);
  s = fmaxf(s, FLT_MIN);
  return amax > 0.0f ? s : 1.0f;
}

// The reference's asymmetric rule: range widened to contain 0, scale = range / 255, then nudged
// down one ulp at a time until max and min land on 127 and -128. *inv: the correctly rounded reciprocal
// of the final scale (the loop has it already; the quantization multiplies by it).
__device__ __forceinline__ void scale_azp_from_range(float mn, float mx, bool finite, float* scale, int32_t* azp, float* inv) {
  if (!finite) { *scale = nan_f(); *azp = 0; *inv = nan_f(); return; }
  mn = fminf(mn, 0.0f);
  mx = fmaxf(mx, 0.0f);
  double rng = static_cast<double>(mx) - static_cast<double>(mn);
  bool degenerate = rng == 0.0;
  float s = degenerate ? 1.0f : fmaxf(__double2float_rn(__ddiv_rn(rng, 255.0)), FLT_MIN);
  float lo = 0.0f, r = 1.0f;
  bool fits = degenerate;
  for (int i = 0; i < 64 && !degenerate; ++i) {
    r = __frcp_rn(s);
    lo = rintf(__fmul_rn(mn, r));
    float hi = rintf(__fmul_rn(mx, r));
    if (hi - lo >= 255.0f) { fits = true; break; }
    s = nextafterf(s, 0.0f);
  }
  *scale = s;
  *azp = degenerate ? 0 : static_cast<int32_t>(-128.0f - lo);
  *inv = fits ? r : __frcp_rn(s);  // not `fits`: 64 nudges without landing (never seen), s moved past r's
}

// ------------------------------------------------------------------------------------ vectors
template <typename T, int kVec>
struct alignas(sizeof(T) * kVec) VecT { T v[kVec]; };

// 16-bit inputs held two to a register: |x|, min and max then cost one instruction per pair (the
// kernels are short of issue slots at large M, not of bandwidth alone).
template <typename T> struct Pair { using T2 = void; };
template <> struct Pair<__nv_bfloat16> { using T2 = __nv_bfloat162; };
template <> struct Pair<__half> { using T2 = __half2; };
template <typename TIn, int kVec>
constexpr bool kPaired = sizeof(TIn) == 2 && kVec % 2 == 0;

// L1 policy of a vector load: kStream skips L1 (L1::no_allocate; 16-byte vectors, anything else loads
// plainly). The few-rows kernels stream their input: 128 x 4096 bf16 7-9% faster in every row mode, while at
// M >= 2048 the hint made per-token 1.4-2% slower and RMSNorm gained less than without it
// (tools/results/h100-2026-11-26/session18/call1/qt18.log).
enum class Ld : int { kPlain = 0, kStream = 1 };
template <Ld kHint, typename V>
__device__ __forceinline__ V ld_vec(const V* p) {
  if constexpr (sizeof(V) != 16 || kHint == Ld::kPlain) {
    return *p;
  } else {
    uint4 r;
    asm volatile("ld.global.L1::no_allocate.v4.u32 {%0, %1, %2, %3}, [%4];" : "=r"(r.x), "=r"(r.y), "=r"(r.z), "=r"(r.w) : "l"(p));
    return *reinterpret_cast<V*>(&r);
  }
}

template <typename T2> __device__ __forceinline__ T2 as_pair(uint32_t w) { return *reinterpret_cast<T2*>(&w); }
template <typename T2> __device__ __forceinline__ uint32_t pair_bits(T2 v) { return *reinterpret_cast<uint32_t*>(&v); }
__device__ __forceinline__ float2 pair_to_f2(__half2 v) { return __half22float2(v); }
// bf16 is float's upper half: the low element is the word shifted up, the high one the word masked (one
// instruction each; __bfloat1622float2 extracts the high half first, three for the pair). Exact, same bits.
__device__ __forceinline__ float2 pair_to_f2(__nv_bfloat162 v) {
  const uint32_t w = pair_bits(v);
  return make_float2(__uint_as_float(w << 16), __uint_as_float(w & 0xffff0000u));
}
template <typename T2> __device__ __forceinline__ T2 pair_from_f(float a, float b);
template <> __device__ __forceinline__ __half2 pair_from_f<__half2>(float a, float b) { return __floats2half2_rn(a, b); }
template <> __device__ __forceinline__ __nv_bfloat162 pair_from_f<__nv_bfloat162>(float a, float b) { return __floats2bfloat162_rn(a, b); }
// Paired 16-bit sums and products (__hadd2_rn / __hmul2_rn: one correctly rounded result each, never
// contracted) give the bits of widening to float, operating there and rounding back: a product of two
// 8- or 11-bit significands is exact in float, and a float sum rounded again to 16 bits is double rounding
// through 24 bits, innocuous for significands of p <= 11 bits (24 >= 2p + 2, Figueroa 1995).

// ------------------------------------------------------------------------------------ statistics
struct Stats {
  unsigned amax_bits;  // max of |v| as bits (see bits_bad)
  float mn, mx, sumsq;
  uint32_t pmx;        // asymmetric modes, paired 16-bit input: (-min, max) as one pair (see stats_add_vec)
};

__device__ __forceinline__ void stats_init(Stats& s) { s.amax_bits = 0u; s.mn = 0.0f; s.mx = 0.0f; s.sumsq = 0.0f; s.pmx = 0u; }

// kMinMax: asymmetric modes need the range; kSum: RMSNorm's first pass, the sum of squares alone. Other
// modes skip those fields, which saves registers and shuffles. RMSNorm takes no absmax of its input: the
// absmax it needs is that of the normalised values (its second pass), and that one flags a non-finite
// input by itself: a NaN makes the sum of squares NaN and so every normalised value; an infinity makes it
// infinite, rsqrt 0, and inf * 0 a NaN. Two instructions per value and five shuffles per row fewer.
template <bool kMinMax, bool kSum>
__device__ __forceinline__ void stats_add(Stats& s, float v) {
  if (!kSum) s.amax_bits = max(s.amax_bits, __float_as_uint(fabsf(v)));
  if (kMinMax) { s.mn = fminf(s.mn, v); s.mx = fmaxf(s.mx, v); }
  if (kSum) s.sumsq += v * v;
}

// One vector into the statistics. The sum of squares is accumulated element by element in order
// (RMSNorm's result depends on it); max and min of paired 16-bit inputs are taken in their own format
// (exact) with NaN propagating. The absmax pair is widened once per vector. The range (kMinMax) stays
// paired: s.pmx accumulates (-min, max) as one pair, so the block reduction moves one word instead of
// three (absmax, min, max) and the absmax is max(-min, max) at the end (range_unpack); a NaN anywhere
// makes a half NaN, an infinity makes the absmax infinite: both flagged as before.
template <bool kMinMax, bool kSum, typename TIn, int kVec>
__device__ __forceinline__ void stats_add_vec(Stats& s, VecT<TIn, kVec> const& v) {
  if constexpr (kPaired<TIn, kVec> && !kSum && kMinMax) {
    using T2 = typename Pair<TIn>::T2;
    const uint32_t* w = reinterpret_cast<const uint32_t*>(&v);
    T2 lo = as_pair<T2>(w[0]), hi = lo;
#pragma unroll
    for (int k = 1; k < kVec / 2; ++k) { lo = __hmin2_nan(lo, as_pair<T2>(w[k])); hi = __hmax2_nan(hi, as_pair<T2>(w[k])); }
    const uint32_t nlo = pair_bits(lo) ^ 0x80008000u, h = pair_bits(hi);  // -lo: sign bits (NaN stays NaN)
    const T2 r = __hmax2_nan(as_pair<T2>(__byte_perm(nlo, h, 0x5410)), as_pair<T2>(__byte_perm(nlo, h, 0x7632)));
    s.pmx = pair_bits(__hmax2_nan(as_pair<T2>(s.pmx), r));
  } else if constexpr (kPaired<TIn, kVec> && !kSum) {
    using T2 = typename Pair<TIn>::T2;
    const uint32_t* w = reinterpret_cast<const uint32_t*>(&v);
    T2 a = as_pair<T2>(w[0] & 0x7fff7fffu);
#pragma unroll
    for (int k = 1; k < kVec / 2; ++k) a = __hmax2_nan(a, as_pair<T2>(w[k] & 0x7fff7fffu));
    float2 af = pair_to_f2(a);
    s.amax_bits = max(s.amax_bits, max(__float_as_uint(af.x), __float_as_uint(af.y)));
  } else if constexpr (kPaired<TIn, kVec> && kSum && !kMinMax) {  // widened a pair at a time, summed in order
    using T2 = typename Pair<TIn>::T2;
#pragma unroll
    for (int k = 0; k < kVec / 2; ++k) {
      const float2 f = pair_to_f2(reinterpret_cast<const T2*>(v.v)[k]);
      s.sumsq += f.x * f.x;
      s.sumsq += f.y * f.y;
    }
  } else {
#pragma unroll
    for (int e = 0; e < kVec; ++e) stats_add<kMinMax, kSum>(s, to_f(v.v[e]));
  }
}

// TP: the pair type when the range is held paired (s.pmx), void otherwise.
template <bool kMinMax, bool kSum, typename TP = void>
__device__ __forceinline__ void stats_merge(Stats& a, Stats const& b) {
  if constexpr (kMinMax && !std::is_void_v<TP>) {
    a.pmx = pair_bits(__hmax2_nan(as_pair<TP>(a.pmx), as_pair<TP>(b.pmx)));
  } else if constexpr (!kSum) {
    a.amax_bits = max(a.amax_bits, b.amax_bits);
    if (kMinMax) { a.mn = fminf(a.mn, b.mn); a.mx = fmaxf(a.mx, b.mx); }
  }
  if (kSum) a.sumsq += b.sumsq;
}

template <bool kMinMax, bool kSum, typename TP = void>
__device__ __forceinline__ Stats stats_shfl(Stats const& s, int lane_mask) {
  Stats o = s;
  if constexpr (kMinMax && !std::is_void_v<TP>) {
    o.pmx = __shfl_xor_sync(0xffffffffu, s.pmx, lane_mask);
  } else if constexpr (!kSum) {
    o.amax_bits = __shfl_xor_sync(0xffffffffu, s.amax_bits, lane_mask);
    if (kMinMax) {
      o.mn = __shfl_xor_sync(0xffffffffu, s.mn, lane_mask);
      o.mx = __shfl_xor_sync(0xffffffffu, s.mx, lane_mask);
    }
  }
  if (kSum) o.sumsq = __shfl_xor_sync(0xffffffffu, s.sumsq, lane_mask);
  return o;
}

// The paired range (s.pmx) back to floats: min, max and the absmax bits (NaN bits if a half is NaN).
template <typename TP>
__device__ __forceinline__ void range_unpack(Stats& s) {
  const float2 f = pair_to_f2(as_pair<TP>(s.pmx));  // (-min, max), each >= 0 or NaN
  s.mn = -f.x;
  s.mx = f.y;
  s.amax_bits = max(__float_as_uint(fabsf(f.x)), __float_as_uint(fabsf(f.y)));
}

// Every thread of the block gets the block-wide statistics, after one __syncthreads: each thread
// merges the per-warp partials itself, in the same order (so sums agree across threads). One barrier
// instead of three was measured 2-10% faster on the H100 (tools/results/h100-2026-11-23/run3).
// kSlot gives each call site of one kernel its own shared array, so no trailing barrier is needed.
template <int kThreads, bool kMinMax, bool kSum, int kSlot = 0, typename TP = void>
__device__ __forceinline__ Stats block_stats(Stats s) {
  for (int m = 16; m > 0; m >>= 1) stats_merge<kMinMax, kSum, TP>(s, stats_shfl<kMinMax, kSum, TP>(s, m));
  if constexpr (kThreads <= 32) {
    return s;
  } else {
    __shared__ Stats partial[kThreads / 32];
    if (threadIdx.x % 32 == 0) partial[threadIdx.x / 32] = s;
    __syncthreads();
    Stats t = partial[0];
#pragma unroll
    for (int w = 1; w < kThreads / 32; ++w) stats_merge<kMinMax, kSum, TP>(t, partial[w]);
    return t;
  }
}

// ------------------------------------------------------------------------------------ quantization
// q of one value. int8: round to nearest even, [+ azp,] saturate to [-128, 127]; fp8: clamp to +-448,
// then round to nearest even with saturation (two values per instruction in quant_word). Groups marked
// `bad` store zeros. int8 rounds without the float -> int conversion instruction (fewer instructions;
// measured neither faster nor slower on the H100, tools/results/h100-2026-11-23/session5): adding
// kMagic = 1.5 * 2^23 rounds a float of magnitude < 2^22 to an integer, ties to even, held in the low
// mantissa bits, so the sum's low byte is the int8 in two's complement. Saturating the sum to
// [kMagic - 128, kMagic + 127] gives the integers that clamping before the rounding gives (rounding is
// monotone and the bounds are integers); for |y| >= 2^22 the sum lies beyond a bound either way. The azp
// path rounds with rintf first (rint(y) + azp must not round for any int32 azp), then adds azp + kMagic
// (exact for |rint(y) + azp| < 2^22, beyond a bound otherwise: the same clamp) and saturates the same way.
//
// kClamp = false drops the saturation where it cannot act: a scale computed from the group's own absmax
// (dynamic per-token / per-group / per-tensor, RMSNorm; not with a scale upper bound, a static scale or a
// zero point) gives |x * inv| <= qmax * (1 + 3 * 2^-24) (scale and reciprocal each correctly rounded, the
// FLT_MIN floor only shrinks it), which rounds to +-qmax: int8 127 (never -128), fp8 448 (and fp8's
// satfinite conversion saturates in any case). The row kernels are short of issue slots between their
// loads and stores; this is 2 of about 5 instructions per value (session9).
//
// kLow = false drops the lower bound of the azp path where it cannot act: under the asymmetric rule every value
// x of a row is >= its widened minimum mn, so (inv > 0, rounding monotone) rint(x * inv) >= lo = rint(mn * inv)
// and rint(x * inv) + azp >= lo + (-128 - lo) = -128. Only the upper bound can act (a range of 256 steps).
template <bool kAzp, bool kClamp = true, bool kLow = true>
__device__ __forceinline__ uint32_t int8_bits(float x, float inv, float azp) {
  constexpr float kMagic = 12582912.0f;
  const float y = __fmul_rn(x, inv);
  if (kAzp && !kLow) return __float_as_uint(fminf(__fadd_rn(rintf(y), azp + kMagic), kMagic + 127.0f));
  if (kAzp) return __float_as_uint(fminf(fmaxf(__fadd_rn(rintf(y), azp + kMagic), kMagic - 128.0f), kMagic + 127.0f));
  if (!kClamp) return __float_as_uint(__fadd_rn(y, kMagic));
  return __float_as_uint(fminf(fmaxf(__fadd_rn(y, kMagic), kMagic - 128.0f), kMagic + 127.0f));
}
template <bool kClamp = true>
__device__ __forceinline__ float fp8_clamped(float x, float inv) {
  const float y = __fmul_rn(x, inv);
  return kClamp ? fminf(fmaxf(y, -448.0f), 448.0f) : y;
}

// Four values of x (aligned to four) widened to float: 16-bit inputs a pair at a time (pair_to_f2).
template <typename TIn>
__device__ __forceinline__ float4 widen4(TIn const* x) {
  if constexpr (kPaired<TIn, 4>) {
    using T2 = typename Pair<TIn>::T2;
    const float2 a = pair_to_f2(reinterpret_cast<const T2*>(x)[0]), b = pair_to_f2(reinterpret_cast<const T2*>(x)[1]);
    return make_float4(a.x, a.y, b.x, b.y);
  } else {
    return make_float4(to_f(x[0]), to_f(x[1]), to_f(x[2]), to_f(x[3]));
  }
}

// Four consecutive q values as one little-endian word (element 4k + 0 in the low byte).
template <typename TQ, bool kAzp, bool kClamp, bool kLow, typename TIn>
__device__ __forceinline__ uint32_t quant_word(TIn const* x, float inv, float azp) {
  const float4 f = widen4(x);
  if constexpr (std::is_same_v<TQ, int8_t>) {
    return __byte_perm(__byte_perm(int8_bits<kAzp, kClamp, kLow>(f.x, inv, azp), int8_bits<kAzp, kClamp, kLow>(f.y, inv, azp), 0x0040),
                       __byte_perm(int8_bits<kAzp, kClamp, kLow>(f.z, inv, azp), int8_bits<kAzp, kClamp, kLow>(f.w, inv, azp), 0x0040), 0x5410);
  } else {
    const uint32_t lo = __nv_cvt_float2_to_fp8x2(make_float2(fp8_clamped<kClamp>(f.x, inv), fp8_clamped<kClamp>(f.y, inv)), __NV_SATFINITE, __NV_E4M3);
    const uint32_t hi = __nv_cvt_float2_to_fp8x2(make_float2(fp8_clamped<kClamp>(f.z, inv), fp8_clamped<kClamp>(f.w, inv)), __NV_SATFINITE, __NV_E4M3);
    return __byte_perm(lo, hi, 0x5410);
  }
}

// Quantize one vector and store it at dst (aligned to the vector). Whole vectors of 4k values are built
// as 32-bit words and stored as one access: built as bytes in a VecT<int8_t>, nvcc 13.0 unpacked and
// repacked every byte (about 20 extra instructions per 8 values, in the phase of a row CTA where no
// memory traffic overlaps them).
template <typename TQ, bool kAzp, bool kClamp = true, bool kLow = true, typename TIn, int kVec>
__device__ __forceinline__ void quant_store(TQ* dst, VecT<TIn, kVec> const& v, float inv, float azp, bool bad) {
  if constexpr (kVec % 4 == 0) {
    struct alignas(kVec) Words { uint32_t w[kVec / 4]; } o;
#pragma unroll
    for (int k = 0; k < kVec / 4; ++k) o.w[k] = bad ? 0u : quant_word<TQ, kAzp, kClamp, kLow>(v.v + 4 * k, inv, azp);
    *reinterpret_cast<Words*>(dst) = o;
  } else {
#pragma unroll
    for (int e = 0; e < kVec; ++e) {
      uint8_t b = 0;
      if (!bad) {
        if constexpr (std::is_same_v<TQ, int8_t>) b = static_cast<uint8_t>(int8_bits<kAzp, kClamp, kLow>(to_f(v.v[e]), inv, azp) & 0xFFu);
        else b = __nv_cvt_float_to_fp8(fp8_clamped<kClamp>(to_f(v.v[e]), inv), __NV_SATFINITE, __NV_E4M3);
      }
      reinterpret_cast<uint8_t*>(dst)[e] = b;
    }
  }
}

}  // namespace cg_quant
