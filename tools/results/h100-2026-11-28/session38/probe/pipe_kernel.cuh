// Session 38 probe kernel: the library's W8A8 decode GEMV (gemv_w8a8.cuh, one m16 weight tile per CTA row block) with
// its main loop software-pipelined: two register stages of kU chunks, the next stage's loads issued before the current
// stage's products. Why: the library's loop issues a step's loads, waits for them, then computes, so a warp has no
// weight bytes in flight while it computes; for e4m3 that compute is long on SM90 (ptxas turns each e4m3 mma.sync into
// 12 F2FP conversions + 2 HMMA, and F2FP issues at ~31 lanes per clock per SM, call 1: ~2 us of conversions per SM at
// 16 x 4096^2), and each warp makes only 2-4 steps at the small decode shapes.
#pragma once
#include "../../../../../cutlass_gemm/runtime/csrc/gemv_w8a8.cuh"

namespace pp {
using namespace cg_gemv;

template <int kU, int kMT, int kNB>
struct Stage {
  uint4 wa[kU], wb[kU], xv[kU][kMT];
  float sa[kNB][kMT][2], sb[kNB][2];
};

template <bool kFp8, typename TOut, int kMT, int kWarpsK, int kU, int kBC, int kTPS>
__global__ void __launch_bounds__(kWarpsK * 32, kTPS / (kWarpsK * 32)) gemv_pipe(GemvArgs p, int prefetch) {
  constexpr bool kBlock = kBC > 0;
  constexpr int kNB = kBlock ? kU / kBC : 1;
  using Acc = typename std::conditional<kFp8, float, int>::type;
  using Sum = typename std::conditional<kBlock, float, Acc>::type;
  constexpr int kAcc = kMT * 4;
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int g = lane >> 2, t = lane & 3;
  const int n0 = blockIdx.x * kRows;
  const uint8_t* w0 = p.w + static_cast<int64_t>(min(n0 + g, p.n - 1)) * p.ldw + 16 * t;
  const uint8_t* w1 = p.w + static_cast<int64_t>(min(n0 + g + 8, p.n - 1)) * p.ldw + 16 * t;
  const uint8_t* xr[kMT];
#pragma unroll
  for (int mt = 0; mt < kMT; ++mt) xr[mt] = p.a + static_cast<int64_t>(min(mt * 8 + g, p.m - 1)) * p.lda + 16 * t;
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
  Sum acc[kMT][4];
#pragma unroll
  for (int mt = 0; mt < kMT; ++mt)
#pragma unroll
    for (int i = 0; i < 4; ++i) acc[mt][i] = Sum(0);

  auto load = [&](Stage<kU, kMT, kNB>& s, int c) {
#pragma unroll
    for (int u = 0; u < kU; ++u) {
      const int off = (c + u) * kChunk;
      const bool ok = c + u < c_end && off + 16 * t < p.k;
      const uint4 zero = make_uint4(0, 0, 0, 0);
      s.wa[u] = ok ? ld_stream(w0 + off) : zero;
      s.wb[u] = ok ? ld_stream(w1 + off) : zero;
#pragma unroll
      for (int mt = 0; mt < kMT; ++mt) s.xv[u][mt] = ok ? ld_keep(xr[mt] + off) : zero;
    }
    if constexpr (kBlock) {
#pragma unroll
      for (int b = 0; b < kNB; ++b) {
        const bool ok = c + b * kBC < c_end;
        const int64_t kb = (c + b * kBC) / kBC;
#pragma unroll
        for (int h = 0; h < 2; ++h) {
          s.sb[b][h] = ok ? ld_f32(sb_col[h] + kb * p.sb_cs) : 0.0f;
#pragma unroll
          for (int mt = 0; mt < kMT; ++mt) s.sa[b][mt][h] = ok ? ld_f32(sa_row[mt][h] + kb * p.sa_cs) : 0.0f;
        }
      }
    }
  };
  auto compute = [&](Stage<kU, kMT, kNB> const& s) {
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
            mma_k32(part, s.wa[u].x, s.wb[u].x, s.wa[u].y, s.wb[u].y, s.xv[u][mt].x, s.xv[u][mt].y);
            mma_k32(part, s.wa[u].z, s.wb[u].z, s.wa[u].w, s.wb[u].w, s.xv[u][mt].z, s.xv[u][mt].w);
          }
#pragma unroll
          for (int i = 0; i < 4; ++i) {
            float d;
            if constexpr (kFp8) d = part[i];
            else d = cg_bi8::partial_value(part[i]);
            acc[mt][i] = fmaf(d, s.sa[b][mt][i & 1] * s.sb[b][i >> 1], acc[mt][i]);
          }
        } else {
#pragma unroll
          for (int u = 0; u < kU; ++u) {
            mma_k32(acc[mt], s.wa[u].x, s.wb[u].x, s.wa[u].y, s.wb[u].y, s.xv[u][mt].x, s.xv[u][mt].y);
            mma_k32(acc[mt], s.wa[u].z, s.wb[u].z, s.wa[u].w, s.wb[u].w, s.xv[u][mt].z, s.xv[u][mt].w);
          }
        }
      }
  };
  // Ping-pong: stage A holds step c, stage B is loaded with step c + kU before A's products. A step past c_end
  // loads nothing (predicated off) and its products are not computed.
  Stage<kU, kMT, kNB> A, Bs;
  if (c_begin < c_end) load(A, c_begin);
  for (int c = c_begin; c < c_end; c += 2 * kU) {
    if (c + kU < c_end) load(Bs, c + kU);
    compute(A);
    if (c + kU >= c_end) break;
    if (c + 2 * kU < c_end) load(A, c + 2 * kU);
    compute(Bs);
  }
  __shared__ Sum red[kWarpsK * kAcc * 32];
#pragma unroll
  for (int mt = 0; mt < kMT; ++mt)
#pragma unroll
    for (int i = 0; i < 4; ++i) red[warp * kAcc * 32 + (mt * 4 + i) * 32 + lane] = acc[mt][i];
  __syncthreads();
  epilogue<kFp8, TOut, kMT, kWarpsK, kBlock>(p, red, n0);
}
}  // namespace pp
