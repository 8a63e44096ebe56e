// W8A8 decode GEMV: out (M, N) = scale_a * (scale_b * (a (M, K) @ w (N, K)^T)) + bias for M <= 16, int8 or
// fp8 e4m3 operands, in the plain layouts the scaled_mm op takes (a row-major, the weight row-major (N, K),
// i.e. b = w.t() column-major). No torch headers: the launcher (gemv_w8a8.cu) takes raw pointers.
//
// Why a kernel of its own: at decode M the GEMM is a stream of the weight and nothing else. The CUTLASS
// tiles give 64 or 128 output columns per CTA, so N = 8192 makes 64-128 CTAs for 132 SMs and each CTA's
// TMA pipeline holds only a few stages: 16 x 8192 x 8192 int8 ran at 78% of the copy-bandwidth floor and
// 1 x 4096 x 14336 at 58% (README). Here a CTA owns 16 weight rows and kWarpsK warps split K between
// them, so N = 8192 gives 512 CTAs of 4-16 warps, and every lane keeps kUnroll x 32 bytes of weight in
// flight with plain 16-byte loads (no shared memory, no barrier in the main loop).
//
// Products are computed transposed, as in wo_stream.cuh: the weight is the mma's A operand (16 rows of N)
// and the activation its B operand (8 rows of M per n8 tile), so one mma.sync m16n8k32 covers 16 weight
// rows. The fragments come straight from global memory: lane (g = lane / 4, t = lane % 4) loads 16
// contiguous bytes at k = 64c + 16t of weight rows g and g + 8 and of activation row g. K is a contraction
// index, so any bijection between the mma's k slots and memory k that A and B share is valid: slot 4t + j
// (registers a0/a1, b0) is k = 16t + j, slot 16 + 4t + j (a2/a3, b1) is k = 16t + 4 + j for the first mma
// of a 64-wide chunk, and 16t + 8 + j / 16t + 12 + j for the second.
//
// Accumulation: int8 in int32 (exact, any order); fp8 in float32 by the tensor cores, the kWarpsK warp
// partials then added in warp order (deterministic). The epilogue is the EVT's formula, in float32.
#pragma once
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

namespace cg_gemv {

constexpr int kMaxM = 16;   // two n8 tiles of activation rows
constexpr int kRows = 16;   // weight rows (output columns) per CTA: one m16 tile
constexpr int kChunk = 64;  // k per lane-quad step: 4 lanes x 16 bytes

struct GemvArgs {
  const uint8_t* a;        // (M, K) int8 / e4m3, row stride lda bytes, 16-byte aligned rows
  const uint8_t* w;        // (N, K) int8 / e4m3, row stride ldw bytes, 16-byte aligned rows
  void* out;               // (M, N) in TOut, row stride ldo elements
  const float* scale_a;    // (M,) per token, or one element
  const float* scale_b;    // (N,) per channel, or one element
  const void* bias;        // (N,) in TOut, or null
  int64_t lda, ldw, ldo;
  int m, n, k;
  bool sa_vec, sb_vec;
};

template <typename T> struct OutT;
template <> struct OutT<__half> {
  static __device__ __forceinline__ float to_f(__half v) { return __half2float(v); }
  static __device__ __forceinline__ __half from_f(float v) { return __float2half_rn(v); }
};
template <> struct OutT<__nv_bfloat16> {
  static __device__ __forceinline__ float to_f(__nv_bfloat16 v) { return __bfloat162float(v); }
  static __device__ __forceinline__ __nv_bfloat16 from_f(float v) { return __float2bfloat16_rn(v); }
};

// 16 bytes of the weight stream: read once, so L1 should not keep it. The L2 fetches the 128 bytes around it
// (.L2::128B): the lane quad's next chunk of the same weight row is on its way without a register. Session 12
// (tools/results/h100-2026-11-26/session12/call13/gemv12.log, one process, outputs identical): 2-5% less time at
// every weight-streaming shape (int8 1x8192x8192 27.19 -> 26.11 us, 1x4096x14336 24.75 -> 23.77, 16x4096x14336
// 25.21 -> 24.09; e4m3 8x4096x14336 25.50 -> 24.07), equal at 4096x4096; .L2::256B was slower at most of them.
__device__ __forceinline__ uint4 ld_stream(const uint8_t* p) {
  uint4 v;
  asm volatile("ld.global.nc.L1::no_allocate.L2::128B.v4.u32 {%0, %1, %2, %3}, [%4];"
               : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "l"(p));
  return v;
}
// 16 bytes of the activation: every CTA reads the same rows, so keep them in L1 / L2.
__device__ __forceinline__ uint4 ld_keep(const uint8_t* p) { return __ldg(reinterpret_cast<const uint4*>(p)); }

__device__ __forceinline__ void mma_k32(int (&c)[4], uint32_t a0, uint32_t a1, uint32_t a2, uint32_t a3, uint32_t b0,
                                        uint32_t b1) {
  asm volatile("mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
               "{%0, %1, %2, %3};"
               : "+r"(c[0]), "+r"(c[1]), "+r"(c[2]), "+r"(c[3])
               : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
}
__device__ __forceinline__ void mma_k32(float (&c)[4], uint32_t a0, uint32_t a1, uint32_t a2, uint32_t a3, uint32_t b0,
                                        uint32_t b1) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 890
  asm volatile("mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
               "{%0, %1, %2, %3};"
               : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
               : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
#else
  __trap();  // the launcher never runs the fp8 kernel below SM89
#endif
}

// Thread e adds element e of the kWarpsK partials (red[w * kAcc * 32 + e]) in warp order and applies the
// epilogue. Element e = (mt * 4 + i) * 32 + lane of the fragment: weight row (output column) g + 8 * (i / 2),
// activation row mt * 8 + 2 * t + i % 2.
template <bool kFp8, typename TOut, int kMT, int kWarpsK, typename Acc>
__device__ __forceinline__ void epilogue(GemvArgs const& p, const Acc* red, int n0) {
  constexpr int kAcc = kMT * 4;
  TOut* out = static_cast<TOut*>(p.out);
  const TOut* bias = static_cast<const TOut*>(p.bias);
  for (int e = threadIdx.x; e < kAcc * 32; e += kWarpsK * 32) {
    const int l = e & 31, j = e >> 5, i = j & 3, mt = j >> 2;
    const int col = n0 + (l >> 2) + 8 * (i >> 1);
    const int row = mt * 8 + 2 * (l & 3) + (i & 1);
    if (col >= p.n || row >= p.m) continue;
    Acc s = red[e];
#pragma unroll
    for (int w = 1; w < kWarpsK; ++w) s += red[w * kAcc * 32 + e];
    const float sa = p.scale_a[p.sa_vec ? row : 0];
    const float sb = p.scale_b[p.sb_vec ? col : 0];
    float v = sa * (sb * static_cast<float>(s));
    if (bias != nullptr) v = v + OutT<TOut>::to_f(bias[col]);
    out[static_cast<int64_t>(row) * p.ldo + col] = OutT<TOut>::from_f(v);
  }
}

// kUnroll chunks of 64 k per lane per step: 32 bytes of weight per chunk, so 1-2 KB per warp in flight
// for each of the 16-32 warps an SM holds (launch bounds: 1024 threads per SM, <= 64 registers).
template <bool kFp8, typename TOut, int kMT, int kWarpsK, int kUnroll>
__global__ void __launch_bounds__(kWarpsK * 32, 1024 / (kWarpsK * 32)) gemv_w8a8_kernel(GemvArgs p) {
  using Acc = typename std::conditional<kFp8, float, int>::type;
  constexpr int kAcc = kMT * 4;
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int g = lane >> 2, t = lane & 3;
  const int n0 = blockIdx.x * kRows;
  // Rows past N (the last CTA when N % 16 != 0) and past M read a valid row instead: their products land in
  // accumulator rows / columns that are never stored.
  const uint8_t* w0 = p.w + static_cast<int64_t>(min(n0 + g, p.n - 1)) * p.ldw + 16 * t;
  const uint8_t* w1 = p.w + static_cast<int64_t>(min(n0 + g + 8, p.n - 1)) * p.ldw + 16 * t;
  const uint8_t* xr[kMT];
#pragma unroll
  for (int mt = 0; mt < kMT; ++mt) xr[mt] = p.a + static_cast<int64_t>(min(mt * 8 + g, p.m - 1)) * p.lda + 16 * t;

  // This warp's contiguous range of 64-wide chunks (the last chunk may be partial: K % 16 == 0, so a lane's
  // 16 bytes are all in K or all past it).
  const int chunks = (p.k + kChunk - 1) / kChunk;
  const int c_begin = static_cast<int>(static_cast<int64_t>(chunks) * warp / kWarpsK);
  const int c_end = static_cast<int>(static_cast<int64_t>(chunks) * (warp + 1) / kWarpsK);

  Acc acc[kMT][4];
#pragma unroll
  for (int mt = 0; mt < kMT; ++mt)
#pragma unroll
    for (int i = 0; i < 4; ++i) acc[mt][i] = Acc(0);

  for (int c = c_begin; c < c_end; c += kUnroll) {
    uint4 wa[kUnroll], wb[kUnroll], xv[kUnroll][kMT];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      const int off = (c + u) * kChunk;  // the lane's 16 * t is in its row pointers
      const bool ok = c + u < c_end && off + 16 * t < p.k;
      const uint4 zero = make_uint4(0, 0, 0, 0);
      wa[u] = ok ? ld_stream(w0 + off) : zero;
      wb[u] = ok ? ld_stream(w1 + off) : zero;
#pragma unroll
      for (int mt = 0; mt < kMT; ++mt) xv[u][mt] = ok ? ld_keep(xr[mt] + off) : zero;
    }
#pragma unroll
    for (int u = 0; u < kUnroll; ++u)
#pragma unroll
      for (int mt = 0; mt < kMT; ++mt) {
        mma_k32(acc[mt], wa[u].x, wb[u].x, wa[u].y, wb[u].y, xv[u][mt].x, xv[u][mt].y);
        mma_k32(acc[mt], wa[u].z, wb[u].z, wa[u].w, wb[u].w, xv[u][mt].z, xv[u][mt].w);
      }
  }

  // The warps' partials meet in shared memory, then epilogue() adds them.
  __shared__ Acc red[kWarpsK * kAcc * 32];
#pragma unroll
  for (int mt = 0; mt < kMT; ++mt)
#pragma unroll
    for (int i = 0; i < 4; ++i) red[warp * kAcc * 32 + (mt * 4 + i) * 32 + lane] = acc[mt][i];
  __syncthreads();
  epilogue<kFp8, TOut, kMT, kWarpsK>(p, red, n0);
}

}  // namespace cg_gemv
