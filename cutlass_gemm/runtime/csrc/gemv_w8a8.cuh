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
//
// Block-scaled form (kBC > 0: scales per K block of kBC * 64; the per-block int8 op and the blockwise fp8 op at
// M <= 16): each warp's K range is whole blocks; a block's products go to a fresh partial accumulator, which is
// then added to a float32 accumulator with the weight sa[row, kb] * sb[col >> sb_shift, kb] (one fma), as the
// per-block int8 GEMM (bi8_gemm.cuh) does: int8 partials read back as exact floats by cg_bi8::partial_value (I2FP on
// SM86+, the 1.5 * 2^23 bias and one subtraction on SM80; |block sum| <= 128 * 127 * 128 < 2^22). The epilogue
// adds the bias and applies the activation (bi8_gemm.cuh's formulas, those of the CUTLASS epilogues).
#pragma once
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

#include "bi8_gemm.cuh"  // activate(), kPartialStart / partial_value
#include "pdl.cuh"

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
  // block-scaled kernels (kBC > 0) only: scale_a[row * sa_rs + kb * sa_cs], scale_b[(col >> sb_shift) * sb_rs +
  // kb * sb_cs] (sb_shift 0: per channel per block; 7: one scale per 128 x 128 weight block), cg_bi8::Act code
  int64_t sa_rs, sa_cs, sb_rs, sb_cs;
  int sb_shift, act;
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
// A coherent load, not the read-only path (.nc), like every load after a programmatic dependent's wait (pdl.cuh): a
// weight written in place by the kernel ahead is read as written; the same time as .nc (session21/call9 against
// call3, decode benchmark, within 0.1 us at every row).
__device__ __forceinline__ uint4 ld_stream(const uint8_t* p) {
  uint4 v;
  asm volatile("ld.global.L1::no_allocate.L2::128B.v4.u32 {%0, %1, %2, %3}, [%4];"
               : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "l"(p));
  return v;
}
// 16 bytes of the activation: every CTA reads the same rows, so keep them in L1 / L2. A coherent load, not the
// read-only path (ld.global.nc): launched as a programmatic dependent (pdl.cuh), this kernel starts while the kernel
// that writes the activation may still run, and the read-only path's data must not change while the kernel runs
// (griddepcontrol.wait makes the earlier grid's writes visible to the later grid's ordinary loads). It costs nothing
// measurable: session 21 call 1 against session 20 call 3, PDL off, e.g. 16 x 8192^2 26.27 (.nc) vs 26.27 us.
__device__ __forceinline__ uint4 ld_keep(const uint8_t* p) {
  uint4 v;
  asm volatile("ld.global.v4.u32 {%0, %1, %2, %3}, [%4];" : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "l"(p));
  return v;
}
// A float an earlier kernel may have written (scales), coherent for the same reason.
__device__ __forceinline__ float ld_f32(const float* p) {
  float v;
  asm volatile("ld.global.f32 %0, [%1];" : "=f"(v) : "l"(p));
  return v;
}

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
template <bool kFp8, typename TOut, int kMT, int kWarpsK, bool kBlock, typename Acc>
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
    float v;
    if constexpr (kBlock) {  // the scales are in s already
      v = s;
      if (bias != nullptr) v = v + OutT<TOut>::to_f(bias[col]);
      v = cg_bi8::activate(v, p.act);
    } else {
      const float sa = ld_f32(p.scale_a + (p.sa_vec ? row : 0));
      const float sb = ld_f32(p.scale_b + (p.sb_vec ? col : 0));
      v = sa * (sb * static_cast<float>(s));
      if (bias != nullptr) v = v + OutT<TOut>::to_f(bias[col]);
    }
    out[static_cast<int64_t>(row) * p.ldo + col] = OutT<TOut>::from_f(v);
  }
}

// kUnroll chunks of 64 k per lane per step: 32 bytes of weight per chunk, so 1-2 KB per warp in flight
// for each of the 16-32 warps an SM holds (launch bounds: 1024 threads per SM, <= 64 registers; the
// block-scaled form, with a second accumulator and the step's scales, 768; either form at 4 chunks per step 512,
// where fewer spill: ptxas -v, nvcc 13.0).
// kBC: 0 for per-token / per-channel scales, else chunks per scale block (1: block 64, 2: block 128); a step
// is then kUnroll / kBC whole blocks.
template <int kBC, int kUnroll>
constexpr int threads_per_sm() { return kUnroll == 4 ? 512 : kBC == 0 ? 1024 : 768; }

template <bool kFp8, typename TOut, int kMT, int kWarpsK, int kUnroll, int kBC = 0>
__global__ void __launch_bounds__(kWarpsK * 32, threads_per_sm<kBC, kUnroll>() / (kWarpsK * 32))
    gemv_w8a8_kernel(GemvArgs p, int prefetch) {
  static_assert(kUnroll % (kBC ? kBC : 1) == 0, "a step holds whole scale blocks");
  constexpr bool kBlock = kBC > 0;
  constexpr int kNB = kBlock ? kUnroll / kBC : 1;  // scale blocks per step
  using Acc = typename std::conditional<kFp8, float, int>::type;
  using Sum = typename std::conditional<kBlock, float, Acc>::type;  // what the warps add up
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
  // 16 bytes are all in K or all past it); whole scale blocks in the block-scaled form (K % block == 0).
  const int units = kBlock ? p.k / (kBC * kChunk) : (p.k + kChunk - 1) / kChunk;
  const int c_begin = static_cast<int>(static_cast<int64_t>(units) * warp / kWarpsK) * (kBlock ? kBC : 1);
  const int c_end = static_cast<int>(static_cast<int64_t>(units) * (warp + 1) / kWarpsK) * (kBlock ? kBC : 1);

  // Programmatic dependent launch (pdl.cuh): the next kernel may start once every CTA of this one has; until the
  // kernel ahead completes, only the first `prefetch` chunks of this warp's weight rows go to L2 (the lanes of a
  // quad take every fourth chunk). `prefetch` is a kernel argument of its own: as a GemvArgs field it made ptxas
  // spill 108-132 bytes in the M 9..16 block-64 kernels (nvcc 13.0), against 4 as an argument.
  cg_pdl::launch_dependents();
  {
    const int pf_end = min(c_end, c_begin + prefetch);
#pragma unroll 1
    for (int c = c_begin + t; c < pf_end; c += 4) {
      cg_pdl::prefetch_l2(w0 - 16 * t + c * kChunk);
      cg_pdl::prefetch_l2(w1 - 16 * t + c * kChunk);
    }
  }
  cg_pdl::wait();

  // Block-scaled form: this lane's scale rows (activation rows 2t, 2t + 1 of each m8 tile) and columns (weight
  // rows g, g + 8), clamped like the data pointers.
  const float* sa_row[kMT][2];
  const float* sb_col[2];
  if constexpr (kBlock) {
#pragma unroll
    for (int mt = 0; mt < kMT; ++mt)
#pragma unroll
      for (int h = 0; h < 2; ++h) sa_row[mt][h] = p.scale_a + min(mt * 8 + 2 * t + h, p.m - 1) * p.sa_rs;
#pragma unroll
    for (int h = 0; h < 2; ++h) sb_col[h] = p.scale_b + (min(n0 + g + 8 * h, p.n - 1) >> p.sb_shift) * p.sb_rs;
  }

  Sum acc[kMT][4];
#pragma unroll
  for (int mt = 0; mt < kMT; ++mt)
#pragma unroll
    for (int i = 0; i < 4; ++i) acc[mt][i] = Sum(0);

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
    // The step's scales, loaded beside the data; a block past the warp's range gets zeros (its products are
    // zeros too), never a read past the scale tensors.
    float sa[kNB][kMT][2], sb[kNB][2];
    if constexpr (kBlock) {
#pragma unroll
      for (int b = 0; b < kNB; ++b) {
        const bool ok = c + b * kBC < c_end;
        const int64_t kb = (c + b * kBC) / kBC;
#pragma unroll
        for (int h = 0; h < 2; ++h) {
          sb[b][h] = ok ? ld_f32(sb_col[h] + kb * p.sb_cs) : 0.0f;
#pragma unroll
          for (int mt = 0; mt < kMT; ++mt) sa[b][mt][h] = ok ? ld_f32(sa_row[mt][h] + kb * p.sa_cs) : 0.0f;
        }
      }
    }
#pragma unroll
    for (int b = 0; b < kNB; ++b)
#pragma unroll
      for (int mt = 0; mt < kMT; ++mt) {
        if constexpr (kBlock) {
          Acc part[4];
#pragma unroll
          for (int i = 0; i < 4; ++i) part[i] = kFp8 ? Acc(0) : Acc(cg_bi8::kPartialStart);
#pragma unroll
          for (int u = b * kBC; u < (b + 1) * kBC; ++u) {
            mma_k32(part, wa[u].x, wb[u].x, wa[u].y, wb[u].y, xv[u][mt].x, xv[u][mt].y);
            mma_k32(part, wa[u].z, wb[u].z, wa[u].w, wb[u].w, xv[u][mt].z, xv[u][mt].w);
          }
#pragma unroll
          for (int i = 0; i < 4; ++i) {  // element i: activation row 2t + (i & 1), weight row g + 8 (i >> 1)
            float d;
            if constexpr (kFp8) d = part[i];
            else d = cg_bi8::partial_value(part[i]);
            acc[mt][i] = fmaf(d, sa[b][mt][i & 1] * sb[b][i >> 1], acc[mt][i]);
          }
        } else {
#pragma unroll
          for (int u = 0; u < kUnroll; ++u) {
            mma_k32(acc[mt], wa[u].x, wb[u].x, wa[u].y, wb[u].y, xv[u][mt].x, xv[u][mt].y);
            mma_k32(acc[mt], wa[u].z, wb[u].z, wa[u].w, wb[u].w, xv[u][mt].z, xv[u][mt].w);
          }
        }
      }
  }

  // The warps' partials meet in shared memory, then epilogue() adds them.
  __shared__ Sum red[kWarpsK * kAcc * 32];
#pragma unroll
  for (int mt = 0; mt < kMT; ++mt)
#pragma unroll
    for (int i = 0; i < 4; ++i) red[warp * kAcc * 32 + (mt * 4 + i) * 32 + lane] = acc[mt][i];
  __syncthreads();
  epilogue<kFp8, TOut, kMT, kWarpsK, kBlock>(p, red, n0);
}

}  // namespace cg_gemv
