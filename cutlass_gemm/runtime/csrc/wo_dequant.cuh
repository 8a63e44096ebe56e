// Dequantization of a "wo_mma_sm80_v1" packed weight (cutlass_gemm/quant/prepack.py) back to a dense
// row-major (N, K) weight in fp16/bf16, for the large-M fallback (dequantize, then a cuBLAS GEMM) until
// a large-M weight-only kernel exists. One thread per packed int32 word: the word's position in its
// 32 x 64 warp tile gives the column and the k offsets of its fields (the mma B-fragment order the GEMM
// loads). Values are round(float(u - z) * float(s)) in T, as the GEMM forms them (the product of a
// 9-bit integer and a 16-bit scale is exact in float, so one rounding). No torch headers.
#pragma once
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>

namespace cg_wo {

struct DequantArgs {
  const uint32_t* w;    // (N / 32, K * bits) int32 words, the GEMM's load order
  const void* scales;   // (K / g, N), columns permuted within each block of 32
  const void* zeros;    // like scales, or null (symmetric: z = 2^(bits - 1))
  void* out;            // (N, K) row-major in T
  int n, k;
  int group_shift;      // log2(group); >= 30 per channel
};

template <typename T> __device__ __forceinline__ float wo_to_f(T v);
template <> __device__ __forceinline__ float wo_to_f<__half>(__half v) { return __half2float(v); }
template <> __device__ __forceinline__ float wo_to_f<__nv_bfloat16>(__nv_bfloat16 v) { return __bfloat162float(v); }
template <typename T> __device__ __forceinline__ T wo_from_f(float v);
template <> __device__ __forceinline__ __half wo_from_f<__half>(float v) { return __float2half_rn(v); }
template <> __device__ __forceinline__ __nv_bfloat16 wo_from_f<__nv_bfloat16>(float v) { return __float2bfloat16_rn(v); }

template <typename T, int kBits>
__global__ void __launch_bounds__(256) wo_dequant_kernel(DequantArgs a) {
  constexpr int kFields = 32 / kBits;           // values per word
  constexpr int kTileWords = 64 * 32 * kBits / 32;  // words per 32 x 64 tile (256 int4, 512 int8)
  const int64_t total = static_cast<int64_t>(a.n / 32) * (a.k / 64) * kTileWords;
  const int64_t idx = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (idx >= total) return;
  // qweight row nb holds tiles kb = 0.. along K, kTileWords words each, in (vector v, lane, c) order
  const int64_t tile = idx / kTileWords;
  const int in_tile = static_cast<int>(idx - tile * kTileWords);
  const int tiles_k = a.k / 64;
  const int nb = static_cast<int>(tile / tiles_k), kb = static_cast<int>(tile - static_cast<int64_t>(nb) * tiles_k);
  const int c = in_tile & 3, lane = (in_tile >> 2) & 31, v = in_tile >> 7;
  const int g = lane >> 2, t = lane & 3;
  const int w = v * 4 + c;
  const uint32_t word = a.w[idx];
  const int t8 = kBits == 4 ? w >> 1 : w >> 2;
  const int n = nb * 32 + t8 * 8 + g;
  const int spos = nb * 32 + 4 * g + t8;  // stored column of this n's scale / zero
  T* row = static_cast<T*>(a.out) + static_cast<int64_t>(n) * a.k + kb * 64;
  const T* sc = static_cast<const T*>(a.scales);
  const T* zp = static_cast<const T*>(a.zeros);
  // Fields come in pairs of adjacent k (fragment offsets 0/1 and 8/9): one 4-byte store per pair.
  // int4: the pair (e 2i, e 2i+1) sits in nibbles i and i + 4; int8: bytes (0, 1) and (2, 3).
#pragma unroll
  for (int i = 0; i < kFields / 2; ++i) {
    const int p0 = kBits == 4 ? i : 2 * i, p1 = kBits == 4 ? i + 4 : 2 * i + 1;
    const int e0 = 2 * i;  // element (fragment position) of the pair's first field
    const int step = kBits == 4 ? 2 * (w & 1) + (e0 >> 2) : (w & 3);
    const int r = e0 & 3;  // 0 or 2
    const int koff = ((r >> 1) << 3) + 2 * t + 16 * step;
    const int kk = kb * 64 + koff;
    const int grp = a.group_shift >= 30 ? 0 : (kk >> a.group_shift);
    const float s = wo_to_f<T>(sc[static_cast<int64_t>(grp) * a.n + spos]);
    const float z = zp ? wo_to_f<T>(zp[static_cast<int64_t>(grp) * a.n + spos]) : static_cast<float>(1 << (kBits - 1));
    const float u0 = static_cast<float>((word >> (p0 * kBits)) & ((1u << kBits) - 1));
    const float u1 = static_cast<float>((word >> (p1 * kBits)) & ((1u << kBits) - 1));
    struct alignas(4) Pair { T a, b; } pr{wo_from_f<T>((u0 - z) * s), wo_from_f<T>((u1 - z) * s)};
    *reinterpret_cast<Pair*>(row + koff) = pr;
  }
}

// Launch the dequantization of an (n, k) packed weight into `a.out` on `stream`.
template <typename T>
cudaError_t launch_wo_dequant(DequantArgs const& a, int bits, cudaStream_t stream) {
  const int64_t total = static_cast<int64_t>(a.n / 32) * (a.k / 64) * (64 * bits);
  const unsigned blocks = static_cast<unsigned>((total + 255) / 256);
  if (blocks == 0) return cudaSuccess;
  if (bits == 4) wo_dequant_kernel<T, 4><<<blocks, 256, 0, stream>>>(a);
  else wo_dequant_kernel<T, 8><<<blocks, 256, 0, stream>>>(a);
  return cudaGetLastError();
}

}  // namespace cg_wo
