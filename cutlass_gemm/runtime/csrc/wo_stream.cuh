// Weight-only small-M GEMM, "stream" kernels: the same packed layout, arguments, split-K plan and ordered
// reductions as wo_gemm.cuh, organised for decode-size M where the weight stream is the whole cost.
//
// Why another kernel: wo_gemm.cuh moves every stage through CTA-shared memory behind a __syncthreads, so a
// CTA's copies are issued only between barriers and at most (stages - 1) stages per CTA are in flight; on
// the H100 its int4 M <= 16 rows sit at 55-60% of the copy-bandwidth floor while int8 (twice the bytes per
// stage with the same structure) reaches 82%, i.e. it is short of bytes in flight, not of issue slots.
// Here every warp is its own pipeline: each lane cp.async-copies its own 16-byte weight vectors (and its
// own 8-byte scale / zero rows) into a warp-private ring of kStages slots and reads back only what it
// copied itself, so no CTA barrier runs inside the main loop; the x rows of a warp tile are copied by the
// warp's lanes together (cp.async.ca: the kWarpsN warps of a CTA read the same x, L1 serves the repeats)
// and a __syncwarp publishes them. Bytes in flight per warp: (kStages - 1) weight tiles of 1 KB (int4) or
// 2 KB (int8), so with 12-16 warps per SM 60-110 KB per SM, where a memory-bound stream needs >= 32-64 KB.
//
// The warp tile's products and the CTA's end are wo_warp.cuh's (shared with the direct kernel, wo_direct.cuh).
#pragma once
#include "wo_warp.cuh"

namespace cg_wo {


template <int kBits, bool kZero, int kXRows, int kWarpsN, int kWarpsK, int kStages>
struct WsShape {
  static_assert(kBits == 4 || kBits == 8, "int4 or int8 weights");
  static_assert(kXRows == 1 || kXRows == 2 || kXRows == 4 || kXRows % 8 == 0, "x rows: 1, 2, 4 or a multiple of 8");
  static_assert(kStages >= 2, "at least double buffering");
  static constexpr int kWarps = kWarpsN * kWarpsK;
  static constexpr int kThreads = kWarps * 32;
  static constexpr int kRows = kXRows;           // M capacity
  static constexpr int kBN = kWarpsN * kTileN;
  static constexpr int kTileBytes = kTileN * kTileK * kBits / 8;  // 1024 (int4) / 2048 (int8)
  static constexpr int kVecs = kTileBytes / (32 * 16);             // 16-byte vectors per lane
  static constexpr int kXBytes = kXRows * kTileK * 2;              // x rows of one warp tile
  static constexpr int kSBytes = 2 * 32 * 8;                       // per lane, per k32 half: 4 columns
  static constexpr int kSlot = kXBytes + kTileBytes + kSBytes * (kZero ? 2 : 1);
  static constexpr int kAcc = WarpAcc<kXRows>::kAcc;  // fp32 accumulators per lane
  static constexpr int kRedBytes = warp_red_bytes<kXRows, kWarpsN, kWarpsK>();
  static constexpr int kRing = kWarps * kStages * kSlot;
  static constexpr int kSmem = kRing > kRedBytes ? kRing : kRedBytes;
};

template <typename T, int kBits, bool kZero, int kXRows, int kWarpsN, int kWarpsK, int kStages>
__global__ void __launch_bounds__(kWarpsN * kWarpsK * 32) wo_stream_kernel(WoArgs a) {
  using S = WsShape<kBits, kZero, kXRows, kWarpsN, kWarpsK, kStages>;
  CG_WO_KERNEL_SHARED;
  cg_pdl::launch_dependents();  // launched as a programmatic dependent (pdl.cuh): nothing global before the wait
  cg_pdl::wait();
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  const int wn = warp % kWarpsN, wk = warp / kWarpsN;
  const int g = lane >> 2;
  const WarpWork ww = warp_work<kWarpsN, kWarpsK>(a, wn, wk);
  const int nb = ww.nb, kblk = ww.kblk, st_begin = ww.st_begin, my_n = ww.my_n;
  const bool n_ok = ww.n_ok;

  const T* x = static_cast<const T*>(a.x);
  const T* scales = static_cast<const T*>(a.scales);
  const T* zeros = static_cast<const T*>(a.zeros);
  const uint8_t* wrow = reinterpret_cast<const uint8_t*>(a.w) +
                        static_cast<int64_t>(n_ok ? nb : 0) * kblk * S::kTileBytes + lane * 16;
  const int s_col = nb * kTileN + 4 * g;  // this lane's 4 stored scale columns (prepack.py's permutation)
  const uint32_t ring = smem_u32(smem) + warp * kStages * S::kSlot;

  // Copy warp tile j (K tile kb) into ring slot `slot`: x rows < min(M, kXRows) (16-byte chunks, chunk c of
  // row r at c ^ (r % 8): conflict-free ldmatrix), this lane's weight vectors and scale (zero) rows.
  auto load = [&](int slot, int j) {
    const int kb = (st_begin + j) * kWarpsK + wk;
    const uint32_t xs = ring + slot * S::kSlot, ws = xs + S::kXBytes, ss = ws + S::kTileBytes;
    constexpr int kChunks = kXRows * 8;
#pragma unroll
    for (int i = 0; i < (kChunks + 31) / 32; ++i) {
      const int c = i * 32 + lane, r = c >> 3, cc = c & 7;
      if (c < kChunks && r < a.m) cp_async16_ca(xs + r * 128 + ((cc ^ (r & 7)) * 16), x + r * a.ldx + kb * kTileK + cc * 8);
    }
    const uint8_t* wsrc = wrow + static_cast<int64_t>(kb) * S::kTileBytes;
#pragma unroll
    for (int v = 0; v < S::kVecs; ++v) cp_async16(ws + (v * 32 + lane) * 16, wsrc + v * 512);
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int64_t grp = (static_cast<int64_t>(kb) * kTileK + h * 32) >> a.group_shift;
      cp_async8_ca(ss + (h * 32 + lane) * 8, scales + grp * a.n + s_col);
      if constexpr (kZero) cp_async8_ca(ss + S::kSBytes + (h * 32 + lane) * 8, zeros + grp * a.n + s_col);
    }
  };

  WarpAcc<kXRows> acc;
  acc.zero();

  auto compute = [&](int slot) {
    const uint32_t xs = ring + slot * S::kSlot;
    const uint8_t* ws = smem + (xs - smem_u32(smem)) + S::kXBytes;
    const uint8_t* ss = ws + S::kTileBytes;
    uint32_t wr[S::kVecs * 4];
#pragma unroll
    for (int v = 0; v < S::kVecs; ++v) {
      const uint4 q = *reinterpret_cast<const uint4*>(ws + (v * 32 + lane) * 16);
      wr[4 * v] = q.x, wr[4 * v + 1] = q.y, wr[4 * v + 2] = q.z, wr[4 * v + 3] = q.w;
    }
    uint2 sv[2], zv[2] = {make_uint2(0, 0), make_uint2(0, 0)};
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      sv[h] = *reinterpret_cast<const uint2*>(ss + (h * 32 + lane) * 8);
      if constexpr (kZero) zv[h] = *reinterpret_cast<const uint2*>(ss + S::kSBytes + (h * 32 + lane) * 8);
    }
    warp_tile_mma<T, kBits, kZero, kXRows>(wr, sv, zv, xs, lane, acc);
  };

  // ---- the warp's pipeline: kStages - 1 tiles in flight ahead of the one computed. Each lane waits for
  // its own copies; the __syncwarp then publishes the x chunks other lanes copied, and orders the previous
  // iteration's reads of the slot refilled next before the refill.
#pragma unroll
  for (int i = 0; i < kStages - 1; ++i) {
    if (i < my_n) load(i, i);
    cp_async_commit();
  }
  for (int j = 0; j < my_n; ++j) {
    cp_async_wait<kStages - 2>();
    __syncwarp();
    const int next = j + kStages - 1;
    if (next < my_n) load(next % kStages, next);
    cp_async_commit();
    compute(j % kStages);
  }
  cp_async_wait<0>();
  __syncthreads();  // every warp is done with its ring: the reduction below reuses the shared memory

  warp_tiles_store<T, kXRows, kWarpsN, kWarpsK>(a, acc, smem, s_last, wn, wk, nb, n_ok);
}

}  // namespace cg_wo
