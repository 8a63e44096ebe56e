// Session 38 probe kernel (call 5): the W8A8 decode GEMV with the activation staged in shared memory by bulk copies
// (cp.async.bulk, one per activation row, on one mbarrier) and read by the warps with ld.shared, so the registers hold
// only weight and the load path only weight: kTiles m16 weight tiles per CTA (16 * kTiles weight rows), kWarpsK warps
// per tile splitting K, kU chunks of 64 K per warp step, launch bounds kTPS threads per SM. Why: the call-3 ablation ran
// the library's GEMV at 77% (int8) / 70% (e4m3) of the floor at 16 x 4096^2 with every activation load an L1 hit, and
// session 37 measured a pure read of those bytes at 79% with 512 threads per SM, 85% with 1024: here up to 1024 threads
// per SM hold weight loads, and a CTA of several tiles reads the activation once for all of them.
// Activation rows are padded to K + 64 bytes in shared memory: the 8 lanes of a quarter-warp phase read rows g, g + 1
// (64 bytes each at 16 t), which then fall on different banks.
#pragma once
#include "../../../../../cutlass_gemm/runtime/csrc/gemv_w8a8.cuh"

namespace tx {
using namespace cg_gemv;

__host__ __device__ constexpr int64_t xs_bytes(int64_t rows, int64_t k) { return rows * (k + 64); }

__device__ __forceinline__ uint4 lds128(uint32_t addr) {
  uint4 v;
  asm volatile("ld.shared.v4.u32 {%0, %1, %2, %3}, [%4];" : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "r"(addr));
  return v;
}

template <bool kFp8, typename TOut, int kMT, int kTiles, int kWarpsK, int kU, int kBC, int kTPS>
__global__ void __launch_bounds__(kTiles * kWarpsK * 32, kTPS / (kTiles * kWarpsK * 32)) gemv_tx(GemvArgs p, int prefetch) {
  constexpr bool kBlock = kBC > 0;
  constexpr int kNB = kBlock ? kU / kBC : 1;
  using Acc = typename std::conditional<kFp8, float, int>::type;
  using Sum = typename std::conditional<kBlock, float, Acc>::type;
  constexpr int kAcc = kMT * 4;
  extern __shared__ __align__(128) uint8_t xsm[];
  __shared__ __align__(8) uint64_t bar;
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int tile = warp / kWarpsK, wk = warp % kWarpsK;
  const int g = lane >> 2, t = lane & 3;
  const int n0 = (blockIdx.x * kTiles + tile) * kRows;
  const uint8_t* w0 = p.w + static_cast<int64_t>(min(n0 + g, p.n - 1)) * p.ldw + 16 * t;
  const uint8_t* w1 = p.w + static_cast<int64_t>(min(n0 + g + 8, p.n - 1)) * p.ldw + 16 * t;
  const int units = kBlock ? p.k / (kBC * kChunk) : (p.k + kChunk - 1) / kChunk;
  const int c_begin = static_cast<int>(static_cast<int64_t>(units) * wk / kWarpsK) * (kBlock ? kBC : 1);
  const int c_end = static_cast<int>(static_cast<int64_t>(units) * (wk + 1) / kWarpsK) * (kBlock ? kBC : 1);
  const uint32_t sbar = static_cast<uint32_t>(__cvta_generic_to_shared(&bar));
  const uint32_t xbase = static_cast<uint32_t>(__cvta_generic_to_shared(xsm));
  const int rows = min(p.m, kMT * 8), xstride = p.k + 64;
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(sbar));
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  }
  cg_pdl::launch_dependents();
  {
    const int pf_end = min(c_end, c_begin + prefetch);
#pragma unroll 1
    for (int c = c_begin + t; c < pf_end; c += 4) {
      cg_pdl::prefetch_l2(w0 - 16 * t + c * kChunk);
      cg_pdl::prefetch_l2(w1 - 16 * t + c * kChunk);
    }
  }
  __syncthreads();  // the barrier initialized before anyone waits on it
  cg_pdl::wait();
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(sbar), "r"(static_cast<uint32_t>(rows * p.k))
                 : "memory");
    for (int r = 0; r < rows; ++r)
      asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];"
                   ::"r"(xbase + static_cast<uint32_t>(r * xstride)), "l"(p.a + static_cast<int64_t>(r) * p.lda),
                   "r"(static_cast<uint32_t>(p.k)), "r"(sbar) : "memory");
  }
  uint32_t xs_row[kMT];
#pragma unroll
  for (int mt = 0; mt < kMT; ++mt) xs_row[mt] = xbase + min(mt * 8 + g, rows - 1) * xstride + 16 * t;
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
  bool x_ready = false;
  for (int c = c_begin; c < c_end; c += kU) {
    uint4 wa[kU], wb[kU];
#pragma unroll
    for (int u = 0; u < kU; ++u) {
      const int off = (c + u) * kChunk;
      const bool ok = c + u < c_end && off + 16 * t < p.k;
      const uint4 zero = make_uint4(0, 0, 0, 0);
      wa[u] = ok ? ld_stream(w0 + off) : zero;
      wb[u] = ok ? ld_stream(w1 + off) : zero;
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
    if (!x_ready) {  // the activation landed (first step only)
      uint32_t done = 0;
      while (!done)
        asm volatile("{ .reg .pred q; mbarrier.try_wait.parity.shared::cta.b64 q, [%1], 0; selp.u32 %0, 1, 0, q; }"
                     : "=r"(done) : "r"(sbar) : "memory");
      x_ready = true;
    }
    auto xf = [&](int u, int mt) -> uint4 {
      const int off = (c + u) * kChunk;
      return c + u < c_end && off + 16 * t < p.k ? lds128(xs_row[mt] + off) : make_uint4(0, 0, 0, 0);
    };
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
            const uint4 x = xf(u, mt);
            mma_k32(part, wa[u].x, wb[u].x, wa[u].y, wb[u].y, x.x, x.y);
            mma_k32(part, wa[u].z, wb[u].z, wa[u].w, wb[u].w, x.z, x.w);
          }
#pragma unroll
          for (int i = 0; i < 4; ++i) {
            float d;
            if constexpr (kFp8) d = part[i];
            else d = cg_bi8::partial_value(part[i]);
            acc[mt][i] = fmaf(d, sa[b][mt][i & 1] * sb[b][i >> 1], acc[mt][i]);
          }
        } else {
#pragma unroll
          for (int u = 0; u < kU; ++u) {
            const uint4 x = xf(u, mt);
            mma_k32(acc[mt], wa[u].x, wb[u].x, wa[u].y, wb[u].y, x.x, x.y);
            mma_k32(acc[mt], wa[u].z, wb[u].z, wa[u].w, wb[u].w, x.z, x.w);
          }
        }
      }
  }
  if (!x_ready) {  // a warp with no chunks still waits: the CTA must not exit with the copy in flight
    uint32_t done = 0;
    while (!done)
      asm volatile("{ .reg .pred q; mbarrier.try_wait.parity.shared::cta.b64 q, [%1], 0; selp.u32 %0, 1, 0, q; }"
                   : "=r"(done) : "r"(sbar) : "memory");
  }
  __shared__ Sum red[kTiles * kWarpsK * kAcc * 32];
#pragma unroll
  for (int mt = 0; mt < kMT; ++mt)
#pragma unroll
    for (int i = 0; i < 4; ++i) red[warp * kAcc * 32 + (mt * 4 + i) * 32 + lane] = acc[mt][i];
  __syncthreads();
#pragma unroll
  for (int j = 0; j < kTiles; ++j)
    epilogue<kFp8, TOut, kMT, kWarpsK, kBlock>(p, red + j * kWarpsK * kAcc * 32, (blockIdx.x * kTiles + j) * kRows);
}
}  // namespace tx
