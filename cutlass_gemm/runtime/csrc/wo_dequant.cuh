// Dequantization of a "wo_mma_sm80_v1" packed weight (cutlass_gemm/quant/prepack.py) back to a dense
// row-major (N, K) weight in fp16/bf16, for the routes that dequantize and then call cuBLAS / cuDNN (the weight-only
// GEMM's large-M fallback, the weight-only conv's "dequant_cudnn"). Values are round(float(u - z) * float(s)) in T,
// as the GEMM forms them (the product of a 9-bit integer and a 16-bit scale is exact in float, so one rounding). No
// torch headers.
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

// A CTA of 256 threads dequantizes kTiles consecutive 32 x 64 tiles of one 32-row block: one thread per packed word
// (the word's position in its tile gives the column and the k offsets of its fields, the mma B-fragment order the
// GEMM loads), each field pair stored as 4 bytes into shared memory; then it writes each row of the block as 16-byte
// chunks, kTiles * 128 contiguous bytes per row. Rows are padded by 16 bytes so that the 8 rows of a warp's 4-byte
// stores land in distinct banks. Storing the pairs straight to global memory (session 54's kernel: 16 bytes of 8 rows
// per warp instruction) took 1.2-1.5x this time on the H200 at 8192^2, 28672 x 4096 and 4096 x 14336, 45-57% of the
// byte floor against 68-72%; at the ResNet-50 conv weights (1.5-5 us, mostly launch-bound) from 0.2 us slower (the
// smallest int8 weights) to 1.2 us faster (session 55, tools/results/h200-2026-11-29/session55/call2).
template <typename T, int kBits, int kTiles>
__global__ void __launch_bounds__(256) wo_dequant_kernel(DequantArgs a) {
  constexpr int kTileWords = 64 * kBits;  // words per 32 x 64 tile
  constexpr int kStageRow = kTiles * 64 + 8;  // elements per staged row
#ifndef CG_WO_EMULATE
  __shared__ __align__(16) T buf[32 * kStageRow];
#else  // the CPU emulator (tests/wo_emu/emu.cpp) gives each CTA its shared bytes
  T* buf = reinterpret_cast<T*>(cg_wo_emu::shared_bytes());
#endif
  const int tiles_k = a.k / 64;
  const int nb = blockIdx.x, kb0 = blockIdx.y * kTiles;
  const int nt = min(kTiles, tiles_k - kb0);
  const T* sc = static_cast<const T*>(a.scales);
  const T* zp = static_cast<const T*>(a.zeros);
  for (int j = 0; j < nt; ++j) {
    // qweight row nb holds tiles kb = 0.. along K, kTileWords words each, in (vector v, lane, c) order
    const uint32_t* tile = a.w + (static_cast<int64_t>(nb) * tiles_k + kb0 + j) * kTileWords;
#pragma unroll
    for (int r = 0; r < kTileWords / 256; ++r) {
      const int in_tile = threadIdx.x + 256 * r;
      const int c = in_tile & 3, lane = (in_tile >> 2) & 31, v = in_tile >> 7;
      const int g = lane >> 2, t = lane & 3, w = v * 4 + c;
      const uint32_t word = tile[in_tile];
      const int t8 = kBits == 4 ? w >> 1 : w >> 2;
      const int spos = nb * 32 + 4 * g + t8;  // stored column of this row's scale / zero
      T* row = buf + (t8 * 8 + g) * kStageRow + j * 64;
      // Fields come in pairs of adjacent k (fragment offsets 0/1 and 8/9): one 4-byte store per pair.
      // int4: the pair (e 2i, e 2i+1) sits in nibbles i and i + 4; int8: bytes (0, 1) and (2, 3).
#pragma unroll
      for (int i = 0; i < 32 / kBits / 2; ++i) {
        const int p0 = kBits == 4 ? i : 2 * i, p1 = kBits == 4 ? i + 4 : 2 * i + 1;
        const int e0 = 2 * i;  // element (fragment position) of the pair's first field
        const int step = kBits == 4 ? 2 * (w & 1) + (e0 >> 2) : (w & 3);
        const int koff = (((e0 & 3) >> 1) << 3) + 2 * t + 16 * step;
        const int kk = (kb0 + j) * 64 + koff;
        const int grp = a.group_shift >= 30 ? 0 : (kk >> a.group_shift);
        const float s = wo_to_f<T>(sc[static_cast<int64_t>(grp) * a.n + spos]);
        const float z = zp ? wo_to_f<T>(zp[static_cast<int64_t>(grp) * a.n + spos]) : static_cast<float>(1 << (kBits - 1));
        const float u0 = static_cast<float>((word >> (p0 * kBits)) & ((1u << kBits) - 1));
        const float u1 = static_cast<float>((word >> (p1 * kBits)) & ((1u << kBits) - 1));
        struct alignas(4) Pair { T a, b; } pr{wo_from_f<T>((u0 - z) * s), wo_from_f<T>((u1 - z) * s)};
        *reinterpret_cast<Pair*>(row + koff) = pr;
      }
    }
  }
  __syncthreads();
  const int chunks = nt * 8;  // 16-byte chunks per row
  T* out = static_cast<T*>(a.out) + static_cast<int64_t>(nb) * 32 * a.k + kb0 * 64;
  for (int c = threadIdx.x; c < 32 * chunks; c += 256) {
    const int row = c / chunks, col = (c - row * chunks) * 8;
    *reinterpret_cast<uint4*>(out + static_cast<int64_t>(row) * a.k + col) =
        *reinterpret_cast<const uint4*>(buf + row * kStageRow + col);
  }
}

#ifndef CG_WO_EMULATE
// Four tiles per CTA from kStageWideTiles tiles of 32 x 64 in the weight, one below: at the ResNet-50 conv weights
// (4-2304 tiles) the four-tile CTAs were too few and up to 1.8x slower; at 8192^2, 28672 x 4096 and 4096 x 14336
// (14336-57344 tiles) one tile per CTA took 1.13-1.29x the time of four (session 55, call 2).
constexpr int64_t kStageWideTiles = 4096;

template <typename T, int kBits, int kTiles>
void launch_staged(DequantArgs const& a, cudaStream_t stream) {
  const dim3 grid(static_cast<unsigned>(a.n / 32), static_cast<unsigned>((a.k / 64 + kTiles - 1) / kTiles));
  wo_dequant_kernel<T, kBits, kTiles><<<grid, 256, 0, stream>>>(a);
}

// Launch the dequantization of an (n, k) packed weight into `a.out` on `stream`.
template <typename T>
cudaError_t launch_wo_dequant(DequantArgs const& a, int bits, cudaStream_t stream) {
  if (a.n == 0 || a.k == 0) return cudaSuccess;
  const bool wide = static_cast<int64_t>(a.n / 32) * (a.k / 64) >= kStageWideTiles;
  if (bits == 4) wide ? launch_staged<T, 4, 4>(a, stream) : launch_staged<T, 4, 1>(a, stream);
  else wide ? launch_staged<T, 8, 4>(a, stream) : launch_staged<T, 8, 1>(a, stream);
  return cudaGetLastError();
}
#endif  // CG_WO_EMULATE

}  // namespace cg_wo
