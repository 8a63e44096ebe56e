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
// Products are computed transposed: the dequantized weights of two 8-column sub-tiles form the A operand
// (16 columns of N as the mma's rows) and x is the B operand (8 rows of M as the mma's columns), so for
// M <= 8 one mma.sync m16n8k16 covers 16 columns where the row-major form covers 8 with 15/16 of its rows
// idle: half the mma count of wo_gemm.cuh at decode M. The B-fragment registers the dequantizer makes for
// sub-tiles 2p and 2p + 1 are exactly the A-fragment registers (a0 = sub 2p low k, a1 = sub 2p + 1 low k,
// a2 / a3 the high k halves); x's B fragments come from ldmatrix on the row-major x tile.
//
// Rows >= M of an x tile hold stale shared memory: output column m of a product depends on x row m only,
// and those columns are never stored. The dequantization rounds like wo_gemm.cuh (one rounding in T).
#pragma once
#include "wo_common.cuh"

namespace cg_wo {

#ifndef CG_WO_EMULATE
// L1-allocating copies: x tiles are read by every warp of a CTA at nearly the same time, scales by the
// four lanes of a quad.
__device__ __forceinline__ void cp_async16_ca(uint32_t dst, const void* src) {
  asm volatile("cp.async.ca.shared.global [%0], [%1], 16;" ::"r"(dst), "l"(src));
}
__device__ __forceinline__ void cp_async8_ca(uint32_t dst, const void* src) {
  asm volatile("cp.async.ca.shared.global [%0], [%1], 8;" ::"r"(dst), "l"(src));
}
#endif

template <int kBits, bool kZero, int kXRows, int kWarpsN, int kWarpsK, int kStages>
struct WsShape {
  static_assert(kBits == 4 || kBits == 8, "int4 or int8 weights");
  static_assert(kXRows == 1 || kXRows == 2 || kXRows == 4 || kXRows % 8 == 0, "x rows: 1, 2, 4 or a multiple of 8");
  static_assert(kStages >= 2, "at least double buffering");
  static constexpr int kWarps = kWarpsN * kWarpsK;
  static constexpr int kThreads = kWarps * 32;
  static constexpr int kMT8 = (kXRows + 7) / 8;  // n8 tiles of x rows per mma
  static constexpr int kRows = kXRows;           // M capacity
  static constexpr int kBN = kWarpsN * kTileN;
  static constexpr int kTileBytes = kTileN * kTileK * kBits / 8;  // 1024 (int4) / 2048 (int8)
  static constexpr int kVecs = kTileBytes / (32 * 16);             // 16-byte vectors per lane
  static constexpr int kXBytes = kXRows * kTileK * 2;              // x rows of one warp tile
  static constexpr int kSBytes = 2 * 32 * 8;                       // per lane, per k32 half: 4 columns
  static constexpr int kSlot = kXBytes + kTileBytes + kSBytes * (kZero ? 2 : 1);
  static constexpr int kAcc = kMT8 * 8;  // fp32 accumulators per lane: kMT8 x 2 column pairs x 4
  static constexpr int kRedBytes = (kWarpsK - 1) * kWarpsN * kAcc * 32 * 4;
  static constexpr int kRing = kWarps * kStages * kSlot;
  static constexpr int kSmem = kRing > kRedBytes ? kRing : kRedBytes;
};

template <typename T, int kBits, bool kZero, int kXRows, int kWarpsN, int kWarpsK, int kStages>
__global__ void __launch_bounds__(kWarpsN * kWarpsK * 32) wo_stream_kernel(WoArgs a) {
  using S = WsShape<kBits, kZero, kXRows, kWarpsN, kWarpsK, kStages>;
  using T2 = typename Ty<T>::T2;
  constexpr int kAcc = S::kAcc;
#ifndef CG_WO_EMULATE
  extern __shared__ __align__(128) uint8_t smem[];
  __shared__ int s_last;
#else
  uint8_t* smem = cg_wo_emu::shared_bytes();
  int& s_last = cg_wo_emu::shared_int();
#endif
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  const int wn = warp % kWarpsN, wk = warp / kWarpsN;
  const int g = lane >> 2, tig = lane & 3;
  const int tile = blockIdx.x, split = blockIdx.y, splits = gridDim.y;
  const int n0 = tile * S::kBN;
  const int nblk = a.n / kTileN, kblk = a.k / kTileK;
  const int nb = n0 / kTileN + wn;
  const bool n_ok = nb < nblk;
  // The stage range of this split, as wo_gemm.cuh cuts it (the plan is shared); warp wk takes tile
  // st * kWarpsK + wk of each stage st, which only the last stage of K can leave past K.
  const int stages_total = (kblk + kWarpsK - 1) / kWarpsK;
  const int st_begin = static_cast<int>(static_cast<int64_t>(stages_total) * split / splits);
  const int iters = static_cast<int>(static_cast<int64_t>(stages_total) * (split + 1) / splits) - st_begin;
  int my_n = n_ok ? iters : 0;
  if (my_n > 0 && (st_begin + my_n - 1) * kWarpsK + wk >= kblk) --my_n;

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

  float acc[S::kMT8][2][4];  // flat index i = (mt * 2 + p) * 4 + r, as the reductions below store them
#define CG_WS_ACC(i) acc[(i) / 8][((i) / 4) % 2][(i) % 4]
#pragma unroll
  for (int i = 0; i < kAcc; ++i) CG_WS_ACC(i) = 0.0f;

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
#pragma unroll
    for (int h = 0; h < 2; ++h) {  // k32 half of the warp tile: one scale row
      const uint2 sv = *reinterpret_cast<const uint2*>(ss + (h * 32 + lane) * 8);
      const T* sc = reinterpret_cast<const T*>(&sv);
      uint2 zv = make_uint2(0, 0);
      if constexpr (kZero) zv = *reinterpret_cast<const uint2*>(ss + S::kSBytes + (h * 32 + lane) * 8);
      const T* zc = reinterpret_cast<const T*>(&zv);
      // x B fragments: matrix q of the ldmatrix is chunk 4h + q (k 32h + 8q ..), rows mt*8 + lane % 8
      // (clamped to the tile's rows: the duplicates feed only columns m >= M, never stored).
      uint32_t xb[S::kMT8][4];
#pragma unroll
      for (int mt = 0; mt < S::kMT8; ++mt) {
        const int row = min(mt * 8 + (lane & 7), kXRows - 1);
        const int chunk = 4 * h + (lane >> 3);
        ldsm_x4(xb[mt], xs + row * 128 + ((chunk ^ (row & 7)) * 16));
      }
      uint32_t b[4][4];  // per 8-column sub-tile t8: (step 0 low k, step 0 high k, step 1 low, step 1 high)
#pragma unroll
      for (int t8 = 0; t8 < 4; ++t8) {
        T2 s2;
        s2.x = sc[t8];
        s2.y = sc[t8];
        if constexpr (kBits == 4) {
          T2 off = as_t2<T2>(Ty<T>::kMagic4 + 0x00080008u);  // magic + 8 (symmetric storage is q + 8)
          if constexpr (kZero) {
            T2 z2;
            z2.x = zc[t8];
            z2.y = zc[t8];
            off = __hadd2(z2, as_t2<T2>(Ty<T>::kMagic4));
          }
          dequant_int4<T>(wr[t8 * 2 + h], off, s2, b[t8]);
        } else {
          const float off = 8388608.0f + (kZero ? Ty<T>::to_f(zc[t8]) : 128.0f);
          uint32_t lo[2], hi[2];
          dequant_int8<T>(wr[t8 * 4 + 2 * h], off, s2, lo);
          dequant_int8<T>(wr[t8 * 4 + 2 * h + 1], off, s2, hi);
          b[t8][0] = lo[0], b[t8][1] = lo[1], b[t8][2] = hi[0], b[t8][3] = hi[1];
        }
      }
#pragma unroll
      for (int p = 0; p < 2; ++p)
#pragma unroll
        for (int j = 0; j < 2; ++j) {
          const uint32_t af[4] = {b[2 * p][2 * j], b[2 * p + 1][2 * j], b[2 * p][2 * j + 1], b[2 * p + 1][2 * j + 1]};
#pragma unroll
          for (int mt = 0; mt < S::kMT8; ++mt) mma16816<T>(acc[mt][p], af, xb[mt][2 * j], xb[mt][2 * j + 1]);
        }
    }
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

  // ---- the CTA's kWarpsK partial sums, added by warp wk == 0 in order
  if constexpr (kWarpsK > 1) {
    float* red = reinterpret_cast<float*>(smem);
    if (wk > 0) {
      float* dst = red + ((wk - 1) * kWarpsN + wn) * kAcc * 32 + lane;
#pragma unroll
      for (int i = 0; i < kAcc; ++i) dst[i * 32] = CG_WS_ACC(i);
    }
    __syncthreads();
    if (wk == 0) {
#pragma unroll
      for (int w = 1; w < kWarpsK; ++w) {
        const float* src = red + ((w - 1) * kWarpsN + wn) * kAcc * 32 + lane;
#pragma unroll
        for (int i = 0; i < kAcc; ++i) CG_WS_ACC(i) += src[i * 32];
      }
    }
  }

  // ---- split-K: the last CTA of the tile to arrive adds the partials in split order (wo_gemm.cuh's rule)
  if (splits > 1) {
    const int64_t per_split = static_cast<int64_t>(gridDim.x) * kWarpsN * kAcc * 32;
    const int64_t mine = (static_cast<int64_t>(tile) * kWarpsN + wn) * kAcc * 32 + lane;
    if (wk == 0) {
      float* dst = a.workspace + split * per_split + mine;
#pragma unroll
      for (int i = 0; i < kAcc; ++i) dst[i * 32] = CG_WS_ACC(i);
    }
    __threadfence();
    __syncthreads();
    if (tid == 0) s_last = atomicAdd(a.counters + tile, 1) == splits - 1;
    __syncthreads();
    if (!s_last) return;
    __threadfence();
    if (wk == 0) {
#pragma unroll
      for (int i = 0; i < kAcc; ++i) CG_WS_ACC(i) = 0.0f;
      for (int sp = 0; sp < splits; ++sp) {
        const float* src = a.workspace + sp * per_split + mine;
#pragma unroll
        for (int i = 0; i < kAcc; ++i) CG_WS_ACC(i) += __ldcg(src + i * 32);
      }
    }
    if (tid == 0) a.counters[tile] = 0;  // every split has counted in: reset for the next launch
  }

  // ---- epilogue: + bias in fp32, one rounding to T. acc[(mt * 2 + p) * 4 + i] is column
  // (2p + i / 2) * 8 + g of the warp's 32, row mt * 8 + 2 * tig + i % 2.
  if (wk != 0 || !n_ok) return;
  T* out = static_cast<T*>(a.out);
  const T* bias = static_cast<const T*>(a.bias);
#pragma unroll
  for (int p = 0; p < 2; ++p)
#pragma unroll
    for (int hi = 0; hi < 2; ++hi) {
      const int col = nb * kTileN + (2 * p + hi) * 8 + g;
      const float bv = bias != nullptr ? Ty<T>::to_f(bias[col]) : 0.0f;
#pragma unroll
      for (int mt = 0; mt < S::kMT8; ++mt)
#pragma unroll
        for (int e = 0; e < 2; ++e) {
          const int row = mt * 8 + 2 * tig + e;
          if (row < a.m) out[row * a.ldo + col] = Ty<T>::from_f(acc[mt][p][hi * 2 + e] + bv);
        }
    }
#undef CG_WS_ACC
}

}  // namespace cg_wo
