// Session 38 probe kernel (call 4): the e4m3 decode GEMV (gemv_w8a8.cuh's structure, one m16 weight tile per CTA) with
// the conversions written out: each weight 16-byte fragment converted by cvt.rn.f16x2.e4m3x2 (F2FP) and multiplied by
// mma.sync m16n8k16 f16 -> f32, the activation either (kXH = 1) read as float16 from memory, already converted (the
// exact f16 values of the e4m3 codes: e4m3 is a subset of f16), or (kXH = 2) read as e4m3 and converted here like the
// weight (the control: what ptxas makes of the library's e4m3 mma.sync). Why: the call-3 ablation of the library kernel
// without activation loads ran 16 x 4096^2 e4m3 at 77% of the floor against 63%; at M = 16 every CTA converts all of x
// (as many conversions as its weight's), ~1 us of F2FP issue per SM at that shape (call 1: 31 F2FP lanes per clock).
// K slots: lane (g, t) holds bytes 16t .. 16t + 15 of weight rows g / g + 8 per chunk; k16 step s takes bytes 4s .. 4s + 3:
// a0 / a1 = bytes 4s, 4s + 1 of rows g / g + 8 (mma k 2t, 2t + 1), a2 / a3 = bytes 4s + 2, 4s + 3 (mma k 2t + 8, 2t + 9);
// b0 / b1 the activation's elements at the same k.
#pragma once
#include "../../../../../cutlass_gemm/runtime/csrc/gemv_w8a8.cuh"

namespace xh {
using namespace cg_gemv;

__device__ __forceinline__ uint32_t cvt2(uint32_t w, int hi) {
  uint32_t r;
  if (hi) asm("{ .reg .b16 l, h; mov.b32 {l, h}, %1; cvt.rn.f16x2.e4m3x2 %0, h; }" : "=r"(r) : "r"(w));
  else asm("{ .reg .b16 l, h; mov.b32 {l, h}, %1; cvt.rn.f16x2.e4m3x2 %0, l; }" : "=r"(r) : "r"(w));
  return r;
}
__device__ __forceinline__ void hmma(float (&c)[4], uint32_t a0, uint32_t a1, uint32_t a2, uint32_t a3, uint32_t b0,
                                     uint32_t b1) {
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
               "{%0, %1, %2, %3};"
               : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
               : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
}
__device__ __forceinline__ uint32_t word(uint4 const& v, int i) { return i == 0 ? v.x : i == 1 ? v.y : i == 2 ? v.z : v.w; }

// p.a: (M, K) float16 (kXH = 1, lda in elements) or e4m3 (kXH = 2).
template <typename TOut, int kMT, int kWarpsK, int kUnroll, int kBC, int kXH>
__global__ void __launch_bounds__(kWarpsK * 32, 512 / (kWarpsK * 32)) gemv_xh(GemvArgs p, int prefetch) {
  constexpr bool kBlock = kBC > 0;
  constexpr int kNB = kBlock ? kUnroll / kBC : 1;
  constexpr int kAcc = kMT * 4;
  constexpr int kXB = kXH == 1 ? 2 : 1;  // bytes per activation element
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int g = lane >> 2, t = lane & 3;
  const int n0 = blockIdx.x * kRows;
  const uint8_t* w0 = p.w + static_cast<int64_t>(min(n0 + g, p.n - 1)) * p.ldw + 16 * t;
  const uint8_t* w1 = p.w + static_cast<int64_t>(min(n0 + g + 8, p.n - 1)) * p.ldw + 16 * t;
  const uint8_t* xr[kMT];
#pragma unroll
  for (int mt = 0; mt < kMT; ++mt)
    xr[mt] = p.a + (static_cast<int64_t>(min(mt * 8 + g, p.m - 1)) * p.lda + 16 * t) * kXB;
  const int units = kBlock ? p.k / (kBC * kChunk) : (p.k + kChunk - 1) / kChunk;
  const int c_begin = static_cast<int>(static_cast<int64_t>(units) * warp / kWarpsK) * (kBlock ? kBC : 1);
  const int c_end = static_cast<int>(static_cast<int64_t>(units) * (warp + 1) / kWarpsK) * (kBlock ? kBC : 1);
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
  float acc[kMT][4];
#pragma unroll
  for (int mt = 0; mt < kMT; ++mt)
#pragma unroll
    for (int i = 0; i < 4; ++i) acc[mt][i] = 0.0f;

  for (int c = c_begin; c < c_end; c += kUnroll) {
    uint4 wa[kUnroll], wb[kUnroll], xv[kUnroll][kMT][kXB];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      const int off = (c + u) * kChunk;
      const bool ok = c + u < c_end && off + 16 * t < p.k;
      const uint4 zero = make_uint4(0, 0, 0, 0);
      wa[u] = ok ? ld_stream(w0 + off) : zero;
      wb[u] = ok ? ld_stream(w1 + off) : zero;
#pragma unroll
      for (int mt = 0; mt < kMT; ++mt)
#pragma unroll
        for (int h = 0; h < kXB; ++h) xv[u][mt][h] = ok ? ld_keep(xr[mt] + off * kXB + 16 * h) : zero;
    }
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
    for (int b = 0; b < kNB; ++b) {
      float part[kMT][4];
#pragma unroll
      for (int mt = 0; mt < kMT; ++mt)
#pragma unroll
        for (int i = 0; i < 4; ++i) part[mt][i] = 0.0f;
      const int u0 = kBlock ? b * kBC : 0, u1 = kBlock ? (b + 1) * kBC : kUnroll;
#pragma unroll
      for (int u = u0; u < u1; ++u)
#pragma unroll
        for (int s = 0; s < 4; ++s) {
          const uint32_t ra = word(wa[u], s), rb = word(wb[u], s);
          const uint32_t a0 = cvt2(ra, 0), a1 = cvt2(rb, 0), a2 = cvt2(ra, 1), a3 = cvt2(rb, 1);
#pragma unroll
          for (int mt = 0; mt < kMT; ++mt) {
            uint32_t b0, b1;
            if constexpr (kXH == 1) {  // f16 elements 4s .. 4s + 3 of the lane's 16: words 2s, 2s + 1 of 8
              b0 = word(xv[u][mt][s >> 1], (2 * s) & 3);
              b1 = word(xv[u][mt][s >> 1], (2 * s + 1) & 3);
            } else {
              const uint32_t rx = word(xv[u][mt][0], s);
              b0 = cvt2(rx, 0);
              b1 = cvt2(rx, 1);
            }
            hmma(kBlock ? part[mt] : acc[mt], a0, a1, a2, a3, b0, b1);
          }
        }
      if constexpr (kBlock) {
#pragma unroll
        for (int mt = 0; mt < kMT; ++mt)
#pragma unroll
          for (int i = 0; i < 4; ++i) acc[mt][i] = fmaf(part[mt][i], sa[b][mt][i & 1] * sb[b][i >> 1], acc[mt][i]);
      }
    }
  }
  __shared__ float red[kWarpsK * kAcc * 32];
#pragma unroll
  for (int mt = 0; mt < kMT; ++mt)
#pragma unroll
    for (int i = 0; i < 4; ++i) red[warp * kAcc * 32 + (mt * 4 + i) * 32 + lane] = acc[mt][i];
  __syncthreads();
  epilogue<true, TOut, kMT, kWarpsK, kBlock>(p, red, n0);
}
}  // namespace xh
