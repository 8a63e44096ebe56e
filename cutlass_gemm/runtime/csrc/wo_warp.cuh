// Weight-only small-M kernels, the per-warp pieces shared by the "stream" kernel (wo_stream.cuh: weights staged
// through a warp-private cp.async ring) and the "direct" kernel (wo_direct.cuh: weights loaded straight into
// registers): the products of one 32 x 64 warp tile, and the end of a CTA (its warps' partial sums, split-K,
// bias, store). Both kernels read the packed layout "wo_mma_sm80_v1" (cutlass_gemm/quant/prepack.py).
//
// Products are computed transposed: the dequantized weights of two 8-column sub-tiles form the A operand
// (16 columns of N as the mma's rows) and x is the B operand (8 rows of M as the mma's columns), so for
// M <= 8 one mma.sync m16n8k16 covers 16 columns. The B-fragment registers the dequantizer makes for
// sub-tiles 2p and 2p + 1 are exactly the A-fragment registers (a0 = sub 2p low k, a1 = sub 2p + 1 low k,
// a2 / a3 the high k halves); x's B fragments come from ldmatrix on a row-major x tile in shared memory
// (chunk c of row r at c ^ (r % 8): conflict-free).
//
// Rows >= M of an x tile may hold anything: output column m of a product depends on x row m only, and those
// columns are never stored. The dequantization rounds like wo_gemm.cuh (one rounding in T).
#pragma once
#include "wo_common.cuh"

namespace cg_wo {

// fp32 accumulators of a lane for x tiles of kXRows rows: [m8 tile][column pair p][mma element].
template <int kXRows>
struct WarpAcc {
  static constexpr int kMT8 = (kXRows + 7) / 8;
  static constexpr int kAcc = kMT8 * 8;
  float v[kMT8][2][4];
  __device__ __forceinline__ float& at(int i) { return v[i / 8][(i / 4) % 2][i % 4]; }
  __device__ __forceinline__ void zero() {
#pragma unroll
    for (int i = 0; i < kAcc; ++i) at(i) = 0.0f;
  }
};

// Where warp (wn, wk) of a CTA of kWarpsN x kWarpsK warps works: its 32-column block nb (n_ok: inside N), and the
// stages of its split (gridDim.y splits, as wo_gemm.cuh cuts K: the split-K plan is shared): stages st_begin ..
// st_begin + iters - 1, of which the warp takes tile st * kWarpsK + wk of the first my_n (only the last stage of K
// can leave a warp past K).
struct WarpWork {
  int nb, kblk, st_begin, iters, my_n;
  bool n_ok;
};
template <int kWarpsN, int kWarpsK>
__device__ __forceinline__ WarpWork warp_work(WoArgs const& a, int wn, int wk) {
  WarpWork w;
  const int split = blockIdx.y, splits = gridDim.y;
  w.kblk = a.k / kTileK;
  w.nb = blockIdx.x * kWarpsN + wn;
  w.n_ok = w.nb < a.n / kTileN;
  const int stages_total = (w.kblk + kWarpsK - 1) / kWarpsK;
  w.st_begin = static_cast<int>(static_cast<int64_t>(stages_total) * split / splits);
  w.iters = static_cast<int>(static_cast<int64_t>(stages_total) * (split + 1) / splits) - w.st_begin;
  w.my_n = w.n_ok ? w.iters : 0;
  if (w.my_n > 0 && (w.st_begin + w.my_n - 1) * kWarpsK + wk >= w.kblk) --w.my_n;
  return w;
}

// The products of one warp tile: wr = this lane's 16-byte weight vectors as 32-bit words (kVecs * 4 of them:
// 8 int4 / 16 int8), sv / zv the lane's scale / zero rows of k32 halves 0 and 1 (4 columns of T each), xs the
// shared address of the tile's x rows (kXRows x 64, swizzled).
template <typename T, int kBits, bool kZero, int kXRows>
__device__ __forceinline__ void warp_tile_mma(const uint32_t* wr, const uint2 (&sv)[2], const uint2 (&zv)[2], uint32_t xs,
                                              int lane, WarpAcc<kXRows>& acc) {
  using T2 = typename Ty<T>::T2;
  constexpr int kMT8 = WarpAcc<kXRows>::kMT8;
#pragma unroll
  for (int h = 0; h < 2; ++h) {  // k32 half of the warp tile: one scale row
    const T* sc = reinterpret_cast<const T*>(&sv[h]);
    const T* zc = reinterpret_cast<const T*>(&zv[h]);
    // x B fragments: matrix q of the ldmatrix is chunk 4h + q (k 32h + 8q ..), rows mt*8 + lane % 8
    // (clamped to the tile's rows: the duplicates feed only columns m >= M, never stored).
    uint32_t xb[kMT8][4];
#pragma unroll
    for (int mt = 0; mt < kMT8; ++mt) {
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
        Int8Off<T> off = int8_off_sym<T>();
        if constexpr (kZero) off = int8_off<T>(zc[t8]);
        uint32_t lo[2], hi[2];
        dequant_int8(wr[t8 * 4 + 2 * h], off, s2, lo);
        dequant_int8(wr[t8 * 4 + 2 * h + 1], off, s2, hi);
        b[t8][0] = lo[0], b[t8][1] = lo[1], b[t8][2] = hi[0], b[t8][3] = hi[1];
      }
    }
#pragma unroll
    for (int p = 0; p < 2; ++p)
#pragma unroll
      for (int j = 0; j < 2; ++j) {
        const uint32_t af[4] = {b[2 * p][2 * j], b[2 * p + 1][2 * j], b[2 * p][2 * j + 1], b[2 * p + 1][2 * j + 1]};
#pragma unroll
        for (int mt = 0; mt < kMT8; ++mt) mma16816<T>(acc.v[mt][p], af, xb[mt][2 * j], xb[mt][2 * j + 1]);
      }
  }
}

// Shared memory the end of a CTA needs for its kWarpsK partial sums (the first warp's stay in registers).
template <int kXRows, int kWarpsN, int kWarpsK>
constexpr int warp_red_bytes() { return (kWarpsK - 1) * kWarpsN * WarpAcc<kXRows>::kAcc * 32 * 4; }

// The end of a CTA of kWarpsN x kWarpsK warps, warp (wn, wk) holding `acc` for warp tile column nb (n_ok: nb is
// inside N): warps wk > 0 hand their sums to wk == 0 through `smem` (free: the caller has passed a __syncthreads
// after its last shared read), which adds them in order; with split-K (gridDim.y > 1) each split writes its
// partial tile to the workspace and the last to arrive adds them in split order (wo_gemm.cuh's rule) and resets
// the tile's counter; then + bias in fp32, one rounding to T. Every thread of the CTA calls it.
template <typename T, int kXRows, int kWarpsN, int kWarpsK>
__device__ __forceinline__ void warp_tiles_store(WoArgs const& a, WarpAcc<kXRows>& acc, uint8_t* smem, int& s_last, int wn,
                                                 int wk, int nb, bool n_ok) {
  constexpr int kAcc = WarpAcc<kXRows>::kAcc;
  constexpr int kMT8 = WarpAcc<kXRows>::kMT8;
  const int tid = threadIdx.x, lane = tid & 31, g = lane >> 2, tig = lane & 3;
  const int tile = blockIdx.x, split = blockIdx.y, splits = gridDim.y;
  if constexpr (kWarpsK > 1) {
    float* red = reinterpret_cast<float*>(smem);
    if (wk > 0) {
      float* dst = red + ((wk - 1) * kWarpsN + wn) * kAcc * 32 + lane;
#pragma unroll
      for (int i = 0; i < kAcc; ++i) dst[i * 32] = acc.at(i);
    }
    __syncthreads();
    if (wk == 0) {
#pragma unroll
      for (int w = 1; w < kWarpsK; ++w) {
        const float* src = red + ((w - 1) * kWarpsN + wn) * kAcc * 32 + lane;
#pragma unroll
        for (int i = 0; i < kAcc; ++i) acc.at(i) += src[i * 32];
      }
    }
  }

  if (splits > 1) {
    const int64_t per_split = static_cast<int64_t>(gridDim.x) * kWarpsN * kAcc * 32;
    const int64_t mine = (static_cast<int64_t>(tile) * kWarpsN + wn) * kAcc * 32 + lane;
    if (wk == 0) {
      float* dst = a.workspace + split * per_split + mine;
#pragma unroll
      for (int i = 0; i < kAcc; ++i) dst[i * 32] = acc.at(i);
    }
    __threadfence();
    __syncthreads();
    if (tid == 0) s_last = atomicAdd(a.counters + tile, 1) == splits - 1;
    __syncthreads();
    if (!s_last) return;
    __threadfence();
    if (wk == 0) {
      acc.zero();
      for (int sp = 0; sp < splits; ++sp) {
        const float* src = a.workspace + sp * per_split + mine;
#pragma unroll
        for (int i = 0; i < kAcc; ++i) acc.at(i) += __ldcg(src + i * 32);
      }
    }
    if (tid == 0) a.counters[tile] = 0;  // every split has counted in: reset for the next launch
  }

  // acc.v[mt][p][i] is column (2p + i / 2) * 8 + g of the warp's 32, row mt * 8 + 2 * tig + i % 2.
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
      for (int mt = 0; mt < kMT8; ++mt)
#pragma unroll
        for (int e = 0; e < 2; ++e) {
          const int row = mt * 8 + 2 * tig + e;
          if (row < a.m) out[row * a.ldo + col] = Ty<T>::from_f(acc.v[mt][p][hi * 2 + e] + bv);
        }
    }
}

}  // namespace cg_wo
