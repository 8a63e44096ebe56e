// Weight-only (W4A16 / W8A16) small-M GEMM, shared pieces: the argument block, PTX wrappers (mma.sync,
// ldmatrix, cp.async, lop3) and the register dequantizers. The kernel is wo_gemm.cuh; the packed
// layout it reads ("wo_mma_sm80_v1") is documented in cutlass_gemm/quant/prepack.py.
//
//   out[m, n] = bias[n] + sum_k x[m, k] * s[n, k / g] * (u[n, k] - z[n, k / g])
//
// u is the stored unsigned value; z the zero point (2^(bits-1) for symmetric weights). (u - z) is
// formed exactly in the activation dtype T, multiplied by the T scale (one rounding, as the CPU
// reference `prepack.dequantize_packed` does), then fed to the tensor cores with fp32 accumulation.
// No torch headers here: the launcher takes raw pointers and a stream.
#pragma once
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>

#include "pdl.cuh"

namespace cg_wo {

constexpr int kTileN = 32;    // columns of a warp tile (4 mma n8 sub-tiles)
constexpr int kTileK = 64;    // input features of a warp tile (4 mma k16 steps)
constexpr int kMaxM = 64;     // rows served by this kernel (4 mma m16 tiles)
constexpr int kMaxRowBlockM = 1 << 20;  // rows served by the mma kernels' row blocks (grid z: at most 65535 blocks)
constexpr int kPerChannelShift = 30;  // group_shift meaning "one group spans K"

enum class ActType : int { kHalf = 0, kBFloat16 = 1 };

// An implicit-GEMM convolution (wo_gemm_kernel with kConv, wo_conv.cuh): x is the (batch, h, w, c) NHWC input,
// the GEMM's row m the output pixel (b, oh, ow) of the (batch, p, q) output, its column k the tap (fr, fs) and
// channel ch of the reduction in (Kh, Kw, C) order, k = (fr * kw + fs) * c + ch; columns k >= k_real (the packed
// weight's K rounded up to whole tiles and groups) read zero.
struct WoConv {
  int h, w, c;          // input height, width, channels (c % 8 == 0: a 16-byte chunk never spans two taps)
  int p, q;             // output height, width
  int kw;               // filter width
  int stride_h, stride_w, pad_h, pad_w, dil_h, dil_w;
  int k_real;           // kh * kw * c
};

struct WoArgs {
  const void* x;         // (M, K) activations, unit last stride, 16-byte aligned rows (kConv: the NHWC input)
  int64_t ldx;           // row stride of x, elements (multiple of 8)
  const uint32_t* w;     // packed weight (N / 32, K * bits) int32 words
  const void* scales;    // (K / g, N) in T, columns permuted per 32 (prepack.py)
  const void* zeros;     // like scales, exact integers in T; null: symmetric
  const void* bias;      // (N,) in T or null
  void* out;             // (M, N) in T, row stride ldo
  int64_t ldo;
  int m, n, k;
  int group_shift;       // log2(group size); kPerChannelShift per channel
  float* workspace;      // split-K partials (wo_plan().ws_floats), null when splits == 1
  int* counters;         // split-K arrival counters, one per n tile, zero before and after the launch
  int prefetch;          // direct kernels launched as programmatic dependents (pdl.cuh): warp tiles each warp
                         // sends to L2 before its wait; 0: none
  int cluster_splits;    // mma kernels (wo_gemm.cuh), > 1: the launch is a thread block cluster of each column tile's
                         // gridDim.y splits, whose partial sums meet in distributed shared memory, not in `workspace`
                         // (SM90; wo_launch.cuh wo_plan); 0: the workspace and counters
  WoConv conv;           // kConv kernels only
};

// A kernel's dynamic shared memory (`smem`) and its split-K arrival flag (`s_last`); the CPU emulator
// (tests/wo_emu/emu.cpp) supplies both itself.
#ifndef CG_WO_EMULATE
#define CG_WO_KERNEL_SHARED        \
  extern __shared__ __align__(128) uint8_t smem[]; \
  __shared__ int s_last
#else
#define CG_WO_KERNEL_SHARED                        \
  uint8_t* smem = cg_wo_emu::shared_bytes(); \
  int& s_last = cg_wo_emu::shared_int()
#endif

// ------------------------------------------------------------------------------------ types
template <typename T> struct Ty;
template <> struct Ty<__half> {
  using T2 = __half2;
  static constexpr uint32_t kMagic4 = 0x64006400u;  // 1024 in both halves: lop3 makes 1024 + nibble
  static __device__ __forceinline__ float to_f(__half v) { return __half2float(v); }
  static __device__ __forceinline__ __half from_f(float v) { return __float2half_rn(v); }
  static __device__ __forceinline__ T2 pack(float a, float b) { return __floats2half2_rn(a, b); }
};
template <> struct Ty<__nv_bfloat16> {
  using T2 = __nv_bfloat162;
  static constexpr uint32_t kMagic4 = 0x43004300u;  // 128: bf16 holds 128 + 0..16 exactly
  static __device__ __forceinline__ float to_f(__nv_bfloat16 v) { return __bfloat162float(v); }
  static __device__ __forceinline__ __nv_bfloat16 from_f(float v) { return __float2bfloat16_rn(v); }
  static __device__ __forceinline__ T2 pack(float a, float b) { return __floats2bfloat162_rn(a, b); }
};

template <typename T2> __device__ __forceinline__ T2 as_t2(uint32_t v) { return *reinterpret_cast<T2*>(&v); }
template <typename T2> __device__ __forceinline__ uint32_t as_u32(T2 v) { return *reinterpret_cast<uint32_t*>(&v); }

// ------------------------------------------------------------------------------------ PTX
// (CG_WO_EMULATE: tests/wo_emu/emu.cpp compiles these kernels as host code and supplies its own
// emulation of the wrappers below, so the CPU tests run this very source.)
#ifndef CG_WO_EMULATE
__device__ __forceinline__ uint32_t smem_u32(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

__device__ __forceinline__ void cp_async16(uint32_t dst, const void* src) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(dst), "l"(src));
}
// The same 16 bytes of shared memory zero-filled (source size 0: nothing is read from `src`, any valid
// global address).
__device__ __forceinline__ void cp_async16_zero(uint32_t dst, const void* src) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(dst), "l"(src), "r"(0));
}
// L1-allocating copies: x tiles are read by every warp of a CTA at nearly the same time, scales by the
// four lanes of a quad.
__device__ __forceinline__ void cp_async16_ca(uint32_t dst, const void* src) {
  asm volatile("cp.async.ca.shared.global [%0], [%1], 16;" ::"r"(dst), "l"(src));
}
__device__ __forceinline__ void cp_async8_ca(uint32_t dst, const void* src) {
  asm volatile("cp.async.ca.shared.global [%0], [%1], 8;" ::"r"(dst), "l"(src));
}
__device__ __forceinline__ void cp_async4_ca(uint32_t dst, const void* src) {
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4;" ::"r"(dst), "l"(src));
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;"); }
template <int kPending> __device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;" ::"n"(kPending) : "memory");  // no shared load moves above it
}

// Thread block clusters (SM90): every thread of every CTA of the cluster arrives (release) and waits (acquire).
__device__ __forceinline__ void cluster_sync() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("barrier.cluster.arrive.release.aligned;\n\tbarrier.cluster.wait.acquire.aligned;" ::: "memory");
#endif
}
// The address in CTA `rank` of the cluster of what is at shared address `addr` in this CTA's layout.
__device__ __forceinline__ uint32_t map_cluster(uint32_t addr, int rank) {
  uint32_t remote = addr;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote) : "r"(addr), "r"(rank));
#endif
  return remote;
}
// The float at a distributed shared memory address (map_cluster).
__device__ __forceinline__ float ld_cluster_f32(uint32_t remote) {
  float v = 0.0f;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("ld.shared::cluster.f32 %0, [%1];" : "=f"(v) : "r"(remote) : "memory");
#endif
  return v;
}

__device__ __forceinline__ void ldsm_x4(uint32_t (&r)[4], uint32_t addr) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(addr));
}

template <typename T> __device__ __forceinline__ void mma16816(float (&c)[4], const uint32_t (&a)[4], uint32_t b0, uint32_t b1);
template <> __device__ __forceinline__ void mma16816<__half>(float (&c)[4], const uint32_t (&a)[4], uint32_t b0, uint32_t b1) {
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
               "{%0, %1, %2, %3};"
               : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}
template <> __device__ __forceinline__ void mma16816<__nv_bfloat16>(float (&c)[4], const uint32_t (&a)[4], uint32_t b0, uint32_t b1) {
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
               "{%0, %1, %2, %3};"
               : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

template <uint32_t kLut> __device__ __forceinline__ uint32_t lop3(uint32_t a, uint32_t b, uint32_t c) {
  uint32_t d;
  asm("lop3.b32 %0, %1, %2, %3, %4;" : "=r"(d) : "r"(a), "r"(b), "r"(c), "n"(kLut));
  return d;
}
#endif  // CG_WO_EMULATE

// ------------------------------------------------------------------------------------ dequantizers
// int4 word (nibbles e0 e2 e4 e6 e1 e3 e5 e7, low to high) -> 4 registers of T pairs (e0,e1) (e2,e3)
// (e4,e5) (e6,e7): lop3 puts nibble i and nibble i + 4 into the mantissas of `magic` (exact), the
// subtraction of (magic + z) is exact (small integers), the scale multiply rounds once.
// `off` = magic + z in both halves; `s` = scale in both halves.
template <typename T>
__device__ __forceinline__ void dequant_int4(uint32_t word, typename Ty<T>::T2 off, typename Ty<T>::T2 s, uint32_t (&b)[4]) {
  using T2 = typename Ty<T>::T2;
  constexpr uint32_t kAndOr = (0xf0 & 0xcc) | 0xaa;  // (a & b) | c
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    const uint32_t v = lop3<kAndOr>(word >> (4 * i), 0x000f000fu, Ty<T>::kMagic4);
    b[i] = as_u32<T2>(__hmul2(__hsub2(as_t2<T2>(v), off), s));
  }
}

// int8 word (bytes e0..e3 in fragment order) -> 2 registers (e0,e1) (e2,e3), each (u - z) * s with one rounding
// in T, with no conversion instruction:
// - fp16: a prmt puts each byte under 0x64, the half 1024 + u (exact: ulp 1 up to 2048), minus (1024 + z) is exact;
// - bf16 cannot hold 128 + 0..255 exactly (two binades), so each byte goes through fp32: a prmt makes the float
//   2^23 + u, minus (2^23 + z) is exact, and since |u - z| <= 255 has at most 8 significant bits, the upper half of
//   that float *is* its bf16: a prmt packs two (the bits a rounding conversion gives, session 32).
// `off`: int8_off<T>(z), made once per column.
template <typename T> struct Int8Off;
template <> struct Int8Off<__half> { uint32_t h2; };          // 1024 + z in both halves
template <> struct Int8Off<__nv_bfloat16> { float f32; };     // 2^23 + z
// z: the column's zero point (an exact integer 0..255 in T; 128 for symmetric storage).
template <typename T> __device__ __forceinline__ Int8Off<T> int8_off(T z);
template <> __device__ __forceinline__ Int8Off<__half> int8_off<__half>(__half z) {
  return {as_u32<__half2>(__hadd2(__half2{z, z}, as_t2<__half2>(0x64006400u)))};
}
template <> __device__ __forceinline__ Int8Off<__nv_bfloat16> int8_off<__nv_bfloat16>(__nv_bfloat16 z) {
  return {8388608.0f + __bfloat162float(z)};
}
// The symmetric offsets as constants (z = 128): 1152 = 0x6480 in fp16.
template <typename T> __device__ __forceinline__ Int8Off<T> int8_off_sym();
template <> __device__ __forceinline__ Int8Off<__half> int8_off_sym<__half>() { return {0x64806480u}; }
template <> __device__ __forceinline__ Int8Off<__nv_bfloat16> int8_off_sym<__nv_bfloat16>() { return {8388608.0f + 128.0f}; }

__device__ __forceinline__ void dequant_int8(uint32_t word, Int8Off<__half> off, __half2 s, uint32_t (&b)[2]) {
  b[0] = as_u32<__half2>(__hmul2(__hsub2(as_t2<__half2>(__byte_perm(word, 0x64u, 0x4140u)), as_t2<__half2>(off.h2)), s));
  b[1] = as_u32<__half2>(__hmul2(__hsub2(as_t2<__half2>(__byte_perm(word, 0x64u, 0x4342u)), as_t2<__half2>(off.h2)), s));
}
__device__ __forceinline__ void dequant_int8(uint32_t word, Int8Off<__nv_bfloat16> off, __nv_bfloat162 s, uint32_t (&b)[2]) {
  uint32_t f[4];
#pragma unroll
  for (int j = 0; j < 4; ++j)
    f[j] = __float_as_uint(__uint_as_float(__byte_perm(word, 0x4B000000u, 0x7440u + j)) - off.f32);
  b[0] = as_u32<__nv_bfloat162>(__hmul2(as_t2<__nv_bfloat162>(__byte_perm(f[0], f[1], 0x7632u)), s));
  b[1] = as_u32<__nv_bfloat162>(__hmul2(as_t2<__nv_bfloat162>(__byte_perm(f[2], f[3], 0x7632u)), s));
}

}  // namespace cg_wo
