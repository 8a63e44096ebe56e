// Weight-only decode GEMM, "direct" kernels: the packed layout, arguments, split-K plan and warp-tile math of
// the stream kernels (wo_stream.cuh, wo_warp.cuh), with the weight loaded straight into registers.
//
// Why: on the H100 the stream kernel at M = 1 issues ~237 warp instructions per 1 KB warp tile of int4 and
// runs at 62% of the copy-bandwidth floor, latency- and issue-bound with 3.7 warps per scheduler
// (tools/results/h100-2026-11-26/session16/call2, Nsight Compute). Its per-tile overhead is the staging: each
// weight vector goes global -> shared (cp.async) -> registers, the scale rows the same way, and each tile copies
// its x rows and commits, waits and syncs the warp. The W8A8 GEMV (gemv_w8a8.cuh), which loads its weight into
// registers with no shared memory in the loop, reaches 83-87% at the same shapes. Here:
// - the CTA copies the x rows of its whole K range into shared memory once (the swizzled layout of
//   wo_warp.cuh, one 64-wide tile after another), before the main loop; the launcher bounds that range
//   (wd_x_bytes <= kWdXBudget: wo_plan adds splits where K is long, wo_select falls back past 16 splits);
// - each lane loads its own 16-byte weight vectors with ld.global.L1::no_allocate.L2::128B (read once; the
//   L2 fetches the lane's next vector of the row alongside) and its scale (zero) rows with 8-byte loads through
//   L1 (the four lanes of a quad share them), kUnroll warp tiles at a time, into two register buffers: the next
//   kUnroll tiles are in flight while the current ones are dequantized and multiplied;
// - warp wk takes tiles st * kWarpsK + wk of each stage st of the split's range, as the stream kernel does.
// What made it faster on the H100 was residency, not the instruction count: 32 warps per SM (64 registers) and
// small CTAs whose warps split K in shared memory rather than across CTAs (tools/results/h100-2026-11-27/session19).
#pragma once
#include "wo_warp.cuh"

namespace cg_wo {

#ifndef CG_WO_EMULATE
// Both loads coherent (not ld.global.nc): a programmatic dependent's loads after griddepcontrol.wait must see what the
// kernel ahead wrote, an in-place weight update included (pdl.cuh; gemv_w8a8.cuh's ld_keep and ld_stream).
__device__ __forceinline__ uint4 ld_weight16(const uint8_t* p) {
  uint4 v;
  asm volatile("ld.global.L1::no_allocate.L2::128B.v4.u32 {%0, %1, %2, %3}, [%4];"
               : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "l"(p));
  return v;
}
__device__ __forceinline__ uint2 ld_scale8(const void* p) {
  uint2 v;
  asm volatile("ld.global.v2.u32 {%0, %1}, [%2];" : "=r"(v.x), "=r"(v.y) : "l"(p));
  return v;
}
#endif

// Most bytes of x one CTA of a direct kernel stages (its K range times the x rows, 2 bytes each).
constexpr int kWdXBudget = 96 * 1024;

template <int kBits, bool kZero, int kXRows, int kWarpsN, int kWarpsK, int kUnroll, int kSMThreads>
struct WdShape {
  static_assert(kBits == 4 || kBits == 8, "int4 or int8 weights");
  static_assert(kXRows == 1 || kXRows == 2 || kXRows == 4 || kXRows % 8 == 0, "x rows: 1, 2, 4 or a multiple of 8");
  static constexpr int kWarps = kWarpsN * kWarpsK;
  static constexpr int kThreads = kWarps * 32;
  static constexpr int kRows = kXRows;  // M capacity
  static constexpr int kBN = kWarpsN * kTileN;
  static constexpr int kTileBytes = kTileN * kTileK * kBits / 8;  // 1024 (int4) / 2048 (int8)
  static constexpr int kVecs = kTileBytes / (32 * 16);             // 16-byte vectors per lane
  static constexpr int kXTile = kXRows * kTileK * 2;               // x bytes of one 64-wide K tile
  static constexpr int kAcc = WarpAcc<kXRows>::kAcc;
  static constexpr int kRedBytes = warp_red_bytes<kXRows, kWarpsN, kWarpsK>();
  // Register budget: kSMThreads resident threads per SM (512: 128 registers a thread, 768: 80, 1024: 64) for two
  // buffers of kUnroll tiles (weights, scales, zeros) beside the accumulators.
  static constexpr int kMinBlocks = kSMThreads / kThreads > 0 ? kSMThreads / kThreads : 1;
};

template <typename T, int kBits, bool kZero, int kXRows, int kWarpsN, int kWarpsK, int kUnroll, int kSMThreads>
__global__ void __launch_bounds__(kWarpsN * kWarpsK * 32, (WdShape<kBits, kZero, kXRows, kWarpsN, kWarpsK, kUnroll, kSMThreads>::kMinBlocks))
    wo_direct_kernel(WoArgs a) {
  using S = WdShape<kBits, kZero, kXRows, kWarpsN, kWarpsK, kUnroll, kSMThreads>;
  CG_WO_KERNEL_SHARED;
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  const int wn = warp % kWarpsN, wk = warp / kWarpsN;
  const int g = lane >> 2;
  const WarpWork ww = warp_work<kWarpsN, kWarpsK>(a, wn, wk);
  const int nb = ww.nb, kblk = ww.kblk, st_begin = ww.st_begin, iters = ww.iters, my_n = ww.my_n;
  const bool n_ok = ww.n_ok;
  const int kb0 = st_begin * kWarpsK;                                 // the CTA's first K tile
  const int ktiles = min(kblk, (st_begin + iters) * kWarpsK) - kb0;   // and how many it stages

  const T* scales = static_cast<const T*>(a.scales);
  const T* zeros = static_cast<const T*>(a.zeros);
  const uint8_t* wrow = reinterpret_cast<const uint8_t*>(a.w) +
                        static_cast<int64_t>(n_ok ? nb : 0) * kblk * S::kTileBytes + lane * 16;
  const int s_col = nb * kTileN + 4 * g;  // this lane's 4 stored scale columns (prepack.py's permutation)

  struct Buf {
    uint4 w[kUnroll][S::kVecs];
    uint2 s[kUnroll][2], z[kUnroll][2];
  };
  // Tiles j0 .. j0 + kUnroll - 1 of this warp (those < my_n) into b.
  auto load = [&](Buf& b, int j0) {
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      if (j0 + u < my_n) {
        const int kb = (st_begin + j0 + u) * kWarpsK + wk;
        const uint8_t* src = wrow + static_cast<int64_t>(kb) * S::kTileBytes;
#pragma unroll
        for (int v = 0; v < S::kVecs; ++v) b.w[u][v] = ld_weight16(src + v * 512);
#pragma unroll
        for (int h = 0; h < 2; ++h) {
          const int64_t grp = (static_cast<int64_t>(kb) * kTileK + h * 32) >> a.group_shift;
          b.s[u][h] = ld_scale8(scales + grp * a.n + s_col);
          b.z[u][h] = kZero ? ld_scale8(zeros + grp * a.n + s_col) : make_uint2(0, 0);
        }
      }

    }
  };
  WarpAcc<kXRows> acc;
  acc.zero();
  const uint32_t xbase = smem_u32(smem);
  auto compute = [&](Buf const& b, int j0) {
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      if (j0 + u < my_n) {  // warp-uniform: my_n is the warp's
        const uint32_t* wr = reinterpret_cast<const uint32_t*>(&b.w[u][0]);
        const uint32_t xs = xbase + ((j0 + u) * kWarpsK + wk) * S::kXTile;
        warp_tile_mma<T, kBits, kZero, kXRows>(wr, b.s[u], b.z[u], xs, lane, acc);
      }
    }
  };

  // Programmatic dependent launch (pdl.cuh): the next kernel may start once every CTA of this one has; until the
  // kernel ahead completes, only the lines of this warp's first a.prefetch weight tiles go to L2.
  cg_pdl::launch_dependents();
  if (n_ok) {
    constexpr int kLines = S::kTileBytes / 128;
    const uint8_t* wblk = wrow - lane * 16;
    const int lines = min(my_n, a.prefetch) * kLines;
    for (int i = lane; i < lines; i += 32)
      cg_pdl::prefetch_l2(wblk + static_cast<int64_t>((st_begin + i / kLines) * kWarpsK + wk) * S::kTileBytes +
                          (i % kLines) * 128);
  }
  cg_pdl::wait();

  Buf b0, b1;
  load(b0, 0);
  // Stage x rows < min(M, kXRows) of K tiles kb0 .. kb0 + ktiles - 1: tile i at i * kXTile, row r's 16-byte
  // chunk c at r * 128 + (c ^ (r % 8)) * 16.
  {
    const T* x = static_cast<const T*>(a.x);
    const int rows = min(a.m, kXRows);
    const int chunks = ktiles * rows * 8;
    for (int c = tid; c < chunks; c += S::kThreads) {
      const int cc = c & 7, r = (c >> 3) % rows, i = (c >> 3) / rows;
      cp_async16_ca(xbase + i * S::kXTile + r * 128 + ((cc ^ (r & 7)) * 16), x + r * a.ldx + (kb0 + i) * kTileK + cc * 8);
    }
    cp_async_commit();
    cp_async_wait<0>();
    __syncthreads();
  }
  for (int j = 0; j < my_n; j += 2 * kUnroll) {
    load(b1, j + kUnroll);
    compute(b0, j);
    load(b0, j + 2 * kUnroll);
    compute(b1, j + kUnroll);
  }
  __syncthreads();  // every warp is done with x: the reduction below reuses the shared memory

  warp_tiles_store<T, kXRows, kWarpsN, kWarpsK>(a, acc, smem, s_last, wn, wk, nb, n_ok);
}

}  // namespace cg_wo
