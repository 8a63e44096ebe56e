// Session 38 probe kernel: the library's W8A8 decode GEMV (gemv_w8a8.cuh) with kNT m16 weight tiles per warp (a CTA
// owns 16 * kNT weight rows) and its launch bounds (kTPS threads per SM) as template arguments. kNT = 1 is the
// library's kernel. Why: at M = 16 a lane loads as many activation bytes (x, from L1 / L2) as weight bytes per chunk,
// and the fp8 kernel converts as many x as weight elements (F2FP, ptxas's form of the e4m3 mma.sync on SM90); with
// kNT tiles one x fragment serves kNT weight fragments.
#pragma once
#include "../../../../../cutlass_gemm/runtime/csrc/gemv_w8a8.cuh"

namespace nt {
using namespace cg_gemv;

// kAbl (call 3's ablations; outputs then wrong on purpose): 0 the kernel; 1 x read from the first 1 KB of its rows only
// (L1 hits: the activation's L2 -> SM traffic gone); 2 no x loads (the weight fragment stands in); 3 no products (the
// loaded words xor-folded into the accumulators).
template <bool kFp8, typename TOut, int kMT, int kWarpsK, int kUnroll, int kBC, int kNT, int kTPS, int kAbl = 0>
__global__ void __launch_bounds__(kWarpsK * 32, kTPS / (kWarpsK * 32)) gemv_nt(GemvArgs p, int prefetch) {
  constexpr bool kBlock = kBC > 0;
  constexpr int kNB = kBlock ? kUnroll / kBC : 1;
  using Acc = typename std::conditional<kFp8, float, int>::type;
  using Sum = typename std::conditional<kBlock, float, Acc>::type;
  constexpr int kAcc = kMT * 4;
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int g = lane >> 2, t = lane & 3;
  const int n0 = blockIdx.x * kRows * kNT;
  const uint8_t* w0[kNT];
  const uint8_t* w1[kNT];
#pragma unroll
  for (int j = 0; j < kNT; ++j) {
    w0[j] = p.w + static_cast<int64_t>(min(n0 + 16 * j + g, p.n - 1)) * p.ldw + 16 * t;
    w1[j] = p.w + static_cast<int64_t>(min(n0 + 16 * j + g + 8, p.n - 1)) * p.ldw + 16 * t;
  }
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
    for (int c = c_begin + t; c < pf_end; c += 4)
#pragma unroll
      for (int j = 0; j < kNT; ++j) {
        cg_pdl::prefetch_l2(w0[j] - 16 * t + c * kChunk);
        cg_pdl::prefetch_l2(w1[j] - 16 * t + c * kChunk);
      }
  }
  cg_pdl::wait();
  const float* sa_row[kMT][2];
  const float* sb_col[kNT][2];
  if constexpr (kBlock) {
#pragma unroll
    for (int mt = 0; mt < kMT; ++mt)
#pragma unroll
      for (int h = 0; h < 2; ++h) sa_row[mt][h] = p.scale_a + min(mt * 8 + 2 * t + h, p.m - 1) * p.sa_rs;
#pragma unroll
    for (int j = 0; j < kNT; ++j)
#pragma unroll
      for (int h = 0; h < 2; ++h)
        sb_col[j][h] = p.scale_b + (min(n0 + 16 * j + g + 8 * h, p.n - 1) >> p.sb_shift) * p.sb_rs;
  }
  Sum acc[kNT][kMT][4];
#pragma unroll
  for (int j = 0; j < kNT; ++j)
#pragma unroll
    for (int mt = 0; mt < kMT; ++mt)
#pragma unroll
      for (int i = 0; i < 4; ++i) acc[j][mt][i] = Sum(0);

  for (int c = c_begin; c < c_end; c += kUnroll) {
    uint4 wa[kUnroll][kNT], wb[kUnroll][kNT], xv[kUnroll][kMT];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      const int off = (c + u) * kChunk;
      const bool ok = c + u < c_end && off + 16 * t < p.k;
      const uint4 zero = make_uint4(0, 0, 0, 0);
#pragma unroll
      for (int j = 0; j < kNT; ++j) {
        wa[u][j] = ok ? ld_stream(w0[j] + off) : zero;
        wb[u][j] = ok ? ld_stream(w1[j] + off) : zero;
      }
#pragma unroll
      for (int mt = 0; mt < kMT; ++mt) {
        if constexpr (kAbl == 1) xv[u][mt] = ok ? ld_keep(xr[mt] + (off & 1023)) : zero;
        else if constexpr (kAbl == 2) xv[u][mt] = wa[u][0];
        else xv[u][mt] = ok ? ld_keep(xr[mt] + off) : zero;
      }
    }
    float sa[kNB][kMT][2], sb[kNB][kNT][2];
    if constexpr (kBlock) {
#pragma unroll
      for (int b = 0; b < kNB; ++b) {
        const bool ok = c + b * kBC < c_end;
        const int64_t kb = (c + b * kBC) / kBC;
#pragma unroll
        for (int h = 0; h < 2; ++h) {
#pragma unroll
          for (int j = 0; j < kNT; ++j) sb[b][j][h] = ok ? ld_f32(sb_col[j][h] + kb * p.sb_cs) : 0.0f;
#pragma unroll
          for (int mt = 0; mt < kMT; ++mt) sa[b][mt][h] = ok ? ld_f32(sa_row[mt][h] + kb * p.sa_cs) : 0.0f;
        }
      }
    }
#pragma unroll
    for (int b = 0; b < kNB; ++b)
#pragma unroll
      for (int j = 0; j < kNT; ++j)
#pragma unroll
        for (int mt = 0; mt < kMT; ++mt) {
          if constexpr (kAbl == 3) {
#pragma unroll
            for (int u = 0; u < kUnroll; ++u) {
              const uint32_t v = wa[u][j].x ^ wb[u][j].y ^ wa[u][j].z ^ wb[u][j].w ^ xv[u][mt].x ^ xv[u][mt].w;
              acc[j][mt][u & 3] += Sum(v & 0xff);
            }
          } else if constexpr (kBlock) {
            Acc part[4];
#pragma unroll
            for (int i = 0; i < 4; ++i) part[i] = kFp8 ? Acc(0) : Acc(cg_bi8::kPartialStart);
#pragma unroll
            for (int u = b * kBC; u < (b + 1) * kBC; ++u) {
              mma_k32(part, wa[u][j].x, wb[u][j].x, wa[u][j].y, wb[u][j].y, xv[u][mt].x, xv[u][mt].y);
              mma_k32(part, wa[u][j].z, wb[u][j].z, wa[u][j].w, wb[u][j].w, xv[u][mt].z, xv[u][mt].w);
            }
#pragma unroll
            for (int i = 0; i < 4; ++i) {
              float d;
              if constexpr (kFp8) d = part[i];
              else d = cg_bi8::partial_value(part[i]);
              acc[j][mt][i] = fmaf(d, sa[b][mt][i & 1] * sb[b][j][i >> 1], acc[j][mt][i]);
            }
          } else {
#pragma unroll
            for (int u = 0; u < kUnroll; ++u) {
              mma_k32(acc[j][mt], wa[u][j].x, wb[u][j].x, wa[u][j].y, wb[u][j].y, xv[u][mt].x, xv[u][mt].y);
              mma_k32(acc[j][mt], wa[u][j].z, wb[u][j].z, wa[u][j].w, wb[u][j].w, xv[u][mt].z, xv[u][mt].w);
            }
          }
        }
  }
  __shared__ Sum red[kNT * kWarpsK * kAcc * 32];
#pragma unroll
  for (int j = 0; j < kNT; ++j)
#pragma unroll
    for (int mt = 0; mt < kMT; ++mt)
#pragma unroll
      for (int i = 0; i < 4; ++i) red[(j * kWarpsK + warp) * kAcc * 32 + (mt * 4 + i) * 32 + lane] = acc[j][mt][i];
  __syncthreads();
#pragma unroll
  for (int j = 0; j < kNT; ++j) epilogue<kFp8, TOut, kMT, kWarpsK, kBlock>(p, red + j * kWarpsK * kAcc * 32, n0 + 16 * j);
}
}  // namespace nt
