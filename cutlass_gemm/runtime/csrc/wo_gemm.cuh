// Weight-only small-M GEMM kernel (M <= 64): out (M, N) = x (M, K) @ dequant(W)^T (+ bias), T = fp16/bf16.
// M above a CTA's rows runs as row blocks (grid z, session 40): each block is a call of its own on its rows, which on
// narrow layers (the pixel rows of a batch-1 1x1 conv, few output features) beats the large-M kernels; the launcher
// (wo_launch.cuh wo_plan) sizes the grid, cutlass_gemm/ops/wo_heuristics.py says where.
//
// Work split: a CTA of kWarpsN x kWarpsK warps owns kWarpsN * 32 columns and, per pipeline stage, kWarpsK * 64 input
// features; warp (wn, wk) computes its 32 x 64 warp tile of the stage. A stage is one cp.async group:
// the 4 warp tiles of packed weight (16-byte copies, evict-first in L2), the x rows < M of the stage's
// K range (swizzled so ldmatrix is conflict-free) and the scale (zero) rows; kStages stages in flight.
// Per warp tile: 2 (int4) or 4 (int8) 128-bit shared loads of weights, LOP3 / PRMT dequantization in
// registers, the group scale applied in T, then mma.sync m16n8k16 (A = x through ldmatrix, B = the
// weights, fp32 accumulators). Rows >= M of the A tiles hold whatever shared memory holds: row r of the
// product depends on row r of A only, and those rows are never stored. The epilogue adds the bias (staged in shared
// memory with the first stage) in fp32, rounds once to T, and stores each row's column pairs in turn.
//
// Reductions, both in a fixed order (bitwise deterministic run to run):
// - across the kWarpsK warps of a CTA: through shared memory, warp 0 adds warps 1, 2, 3 in turn;
// - across CTAs (split-K, gridDim.y > 1, for layers whose N gives too few CTAs): each split writes its
//   fp32 partial tile to the workspace, then counts itself in on the tile's counter; the last to arrive
//   adds the partials in split order 0, 1, ... and writes the output, then sets the counter back to 0,
//   so the counters are zero at rest and no memset launch is needed per call.
#pragma once
#include "wo_common.cuh"
#include "wo_conv_rows.cuh"

namespace cg_wo {

template <int kBits, bool kZero, int kMTiles, int kWarpsN, int kWarpsK, int kStages>
struct WoShape {
  static constexpr int kThreads = kWarpsN * kWarpsK * 32;
  static_assert(kWarpsN * kWarpsK == 4 || kWarpsN * kWarpsK == 8, "4 or 8 warps per CTA");
  static_assert(kBits == 4 || kBits == 8, "int4 or int8 weights");
  static constexpr int kBN = kWarpsN * kTileN;
  static constexpr int kBK = kWarpsK * kTileK;
  static constexpr int kRows = kMTiles * 16;
  static constexpr int kTileBytes = kTileN * kTileK * kBits / 8;  // 1024 (int4) / 2048 (int8)
  static constexpr int kVecs = kTileBytes / (32 * 16);             // 16-byte vectors per lane
  static constexpr int kXRowBytes = kBK * 2;
  static constexpr int kXBytes = kRows * kXRowBytes;
  static constexpr int kWBytes = kWarpsN * kWarpsK * kTileBytes;
  static constexpr int kSRowBytes = kBN * 2;
  static constexpr int kSBytes = kWarpsK * 2 * kSRowBytes;  // per warp tile: the rows of its two k32 halves
  static constexpr int kStageBytes = kXBytes + kWBytes + kSBytes * (kZero ? 2 : 1);
  static constexpr int kAcc = kMTiles * 16;                  // fp32 accumulators per lane
  static constexpr int kRedBytes = (kWarpsK - 1) * kWarpsN * kAcc * 32 * 4;
  static constexpr int kPartBytes = kWarpsN * kAcc * 32 * 4;  // a CTA's sums for the cluster split-K reduction
  static constexpr int kPipeBytes = kStages * kStageBytes;
  // The CTA's bias columns sit past the pipeline, reduction and cluster buffers, which overlap one another.
  static constexpr int kBiasOff = kPipeBytes > kRedBytes ? (kPipeBytes > kPartBytes ? kPipeBytes : kPartBytes)
                                                         : (kRedBytes > kPartBytes ? kRedBytes : kPartBytes);
  static constexpr int kSmem = kBiasOff + kBN * 2;
  static_assert(kXRowBytes % 128 == 0, "swizzle needs 8 chunks of 16 bytes per x row");
};

// kMinBlocks > 1 caps the registers so that many CTAs fit an SM (65536 / (threads * kMinBlocks) each): at 33..64 rows
// the 8-warp CTAs otherwise take 130-160 registers and run one per SM (session 35).
// kConv: an implicit-GEMM convolution (WoConv, session 54): only the x copies differ. Each x chunk of a stage is read
// from the NHWC input at its pixel's tap, or zero-filled where the tap falls in the padding or past k_real; so no
// im2col matrix is ever written, and the weight side (dequantization, mma, reductions, epilogue) is the GEMM's.
template <typename T, int kBits, bool kZero, int kMTiles, int kWarpsN, int kWarpsK, int kStages, int kMinBlocks = 1,
          bool kConv = false>
__global__ void __launch_bounds__(kWarpsN * kWarpsK * 32, kMinBlocks) wo_gemm_kernel(WoArgs args) {
  using S = WoShape<kBits, kZero, kMTiles, kWarpsN, kWarpsK, kStages>;
  using T2 = typename Ty<T>::T2;
  constexpr int kThreads = S::kThreads;
  CG_WO_KERNEL_SHARED;
  cg_pdl::launch_dependents();  // launched as a programmatic dependent (pdl.cuh): nothing global before the wait
  cg_pdl::wait();

  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  const int wn = warp % kWarpsN, wk = warp / kWarpsN;
  const int g = lane >> 2, tig = lane & 3;
  const int tile = blockIdx.x, split = blockIdx.y, splits = gridDim.y;
  // Row blocks (gridDim.z > 1 where M > kRows: narrow layers at medium M, e.g. the pixel rows of a batch-1 1x1
  // conv): block z computes rows z * kRows .. of x and out as a call of its own, with its own slice of the split-K
  // partials and its own arrival counters.
  WoArgs a = args;
  const int64_t r0 = static_cast<int64_t>(blockIdx.z) * S::kRows;
  {
    if constexpr (!kConv) a.x = static_cast<const T*>(args.x) + r0 * args.ldx;  // a conv's rows are pixels (below)
    a.out = static_cast<T*>(args.out) + r0 * args.ldo;
    a.m = min(S::kRows, args.m - static_cast<int>(r0));
    if (splits > 1) {
      a.workspace = args.workspace + static_cast<int64_t>(blockIdx.z) * splits * gridDim.x * kWarpsN * S::kAcc * 32;
      a.counters = args.counters + static_cast<int64_t>(blockIdx.z) * gridDim.x;
    }
  }
  const int n0 = tile * S::kBN;
  const int nblk = a.n / kTileN, kblk = a.k / kTileK;
  const int stages_total = (kblk + kWarpsK - 1) / kWarpsK;
  const int st_begin = static_cast<int>(static_cast<int64_t>(stages_total) * split / splits);
  const int iters = static_cast<int>(static_cast<int64_t>(stages_total) * (split + 1) / splits) - st_begin;
  const bool n_ok = n0 / kTileN + wn < nblk;  // a CTA's last 32-column blocks may lie past N
  const T* x = static_cast<const T*>(a.x);
  const uint8_t* wsrc = reinterpret_cast<const uint8_t*>(a.w);
  const T* scales = static_cast<const T*>(a.scales);
  const T* zeros = static_cast<const T*>(a.zeros);

  // Per-thread copy plan, fixed for the CTA: the address arithmetic stays out of the pipeline loop (with
  // it inside, the int4 M = 1 kernel issued more instructions for addresses than for dequantization).
  // Weights: kWPer 16-byte chunks per thread, smem order [wn][wk]; a chunk of a 32-column block past N
  // gets wk_of = kWarpsK, so it never loads.
  constexpr int kTileChunks = S::kTileBytes / 16;
  constexpr int kWPer = S::kWBytes / 16 / kThreads;
  const uint8_t* wp[kWPer];
  int wk_of[kWPer];
#pragma unroll
  for (int i = 0; i < kWPer; ++i) {
    const int c = i * kThreads + tid;
    const int t = c / kTileChunks, off = c % kTileChunks;
    const int nb = n0 / kTileN + t / kWarpsK;
    wk_of[i] = nb < nblk ? t % kWarpsK : kWarpsK;
    wp[i] = wsrc + (static_cast<int64_t>(min(nb, nblk - 1)) * kblk + t % kWarpsK) * S::kTileBytes + off * 16;
  }
  // x rows < M: each thread owns one 16-byte column chunk xcc of rows xr0, xr0 + kXStep, ... (kThreads is
  // a multiple of the chunks per row), stored at chunk index xcc ^ (row % 8) for conflict-free ldmatrix.
  constexpr int kRowChunks = S::kBK / 8;
  constexpr int kXStep = kThreads / kRowChunks;
  constexpr int kXPer = (S::kRows + kXStep - 1) / kXStep;
  const int xcc = tid % kRowChunks, xr0 = tid / kRowChunks;
  const T* xp = x + xr0 * a.ldx + xcc * 8;
  const int64_t x_jump = kXStep * a.ldx;
  // kConv: the thread's rows are output pixels (wo_conv_rows.cuh), their input origins fixed for the CTA like the plan
  ConvRows<kConv ? kXPer : 1> conv_rows;
  if constexpr (kConv) conv_rows.init(a.conv, static_cast<int>(r0), a.m, xr0, kXStep);
  // Scale (zero) rows: threads tid < kThreads / 4 own one 16-byte chunk each (kWarpsK * 2 rows of kBN).
  constexpr int kSRowChunks = S::kBN / 8;
  const int srow = tid / kSRowChunks, scc = tid % kSRowChunks;
  const int s_col = n0 + scc * 8;
  const bool s_ok = tid < kThreads / 4 && s_col < a.n;

  // One pipeline stage. Chunks past K (the last, partial stage) are zero-filled for x and the scales
  // (zeros): a warp tile past K then adds x * 0 = +0 whatever stale weights its shared memory holds, so
  // the compute loop needs no per-warp masking.
  const uint32_t smem_base = smem_u32(smem);
  auto load = [&](int slot, int st) {
    const uint32_t xs = smem_base + slot * S::kStageBytes;  // shared-space addresses
    const uint32_t ws = xs + S::kXBytes;
    const uint32_t ss = ws + S::kWBytes;
    const int kb0 = st * kWarpsK;
    const int kvalid = min(kWarpsK, kblk - kb0);
    const int64_t wstep = static_cast<int64_t>(kb0) * S::kTileBytes;
#pragma unroll
    for (int i = 0; i < kWPer; ++i)
      if (wk_of[i] < kvalid) cp_async16(ws + (i * kThreads + tid) * 16, wp[i] + wstep);
    const bool x_live = xcc < kvalid * (kTileK / 8);
    if constexpr (kConv) {
      conv_rows.template load<T, S::kXRowBytes>(a.conv, x, xs, kb0 * kTileK + xcc * 8, x_live, a.m, xr0, kXStep, xcc);
    } else {
      const T* xq = xp + static_cast<int64_t>(kb0) * kTileK;
#pragma unroll
      for (int j = 0; j < kXPer; ++j) {
        const int r = xr0 + j * kXStep;
        if (r < a.m) {
          const uint32_t dst = xs + r * S::kXRowBytes + ((xcc ^ (r & 7)) * 16);
          if (x_live) cp_async16(dst, xq);
          else cp_async16_zero(dst, x);
        }
        xq += x_jump;
      }
    }
    if (s_ok) {
      const int cwk = srow >> 1, h = srow & 1;
      const uint32_t dst = ss + srow * S::kSRowBytes + scc * 16;
      if (cwk < kvalid) {
        const int64_t grp = (static_cast<int64_t>(kb0 + cwk) * kTileK + h * 32) >> a.group_shift;
        cp_async16(dst, scales + grp * a.n + s_col);
        if constexpr (kZero) cp_async16(dst + S::kSBytes, zeros + grp * a.n + s_col);
      } else {
        cp_async16_zero(dst, scales);
        if constexpr (kZero) cp_async16_zero(dst + S::kSBytes, zeros);
      }
    }
  };

  float acc[kMTiles][4][4];
#pragma unroll
  for (int mt = 0; mt < kMTiles; ++mt)
#pragma unroll
    for (int t8 = 0; t8 < 4; ++t8)
#pragma unroll
      for (int r = 0; r < 4; ++r) acc[mt][t8][r] = 0.0f;

  // Every warp runs the same ldmatrix / mma.sync sequence in every stage (no per-warp early exit around
  // the .aligned instructions). A warp tile past K reads zero x and zero scales (see load), so it adds
  // exact zeros; a warp past N computes from stale shared memory, and its columns are never stored.
  auto compute = [&](int slot) {
    const uint8_t* xs = smem + slot * S::kStageBytes;
    const uint8_t* ws = xs + S::kXBytes;
    const uint8_t* ss = ws + S::kWBytes;
    uint32_t wr[S::kVecs * 4];
    const uint4* wt = reinterpret_cast<const uint4*>(ws + (wn * kWarpsK + wk) * S::kTileBytes);
#pragma unroll
    for (int v = 0; v < S::kVecs; ++v) {
      const uint4 q = wt[v * 32 + lane];
      wr[4 * v] = q.x, wr[4 * v + 1] = q.y, wr[4 * v + 2] = q.z, wr[4 * v + 3] = q.w;
    }
    const uint32_t xbase = smem_u32(xs);
#pragma unroll
    for (int h = 0; h < 2; ++h) {  // k32 half of the warp tile: one scale row
      const int srow = (wk * 2 + h) * S::kSRowBytes + (wn * 32 + g * 4) * 2;
      const uint2 sv = *reinterpret_cast<const uint2*>(ss + srow);  // this lane's 4 columns, 8 bytes
      const T* sc = reinterpret_cast<const T*>(&sv);
      uint2 zv = make_uint2(0, 0);
      if constexpr (kZero) zv = *reinterpret_cast<const uint2*>(ss + S::kSBytes + srow);
      const T* zc = reinterpret_cast<const T*>(&zv);
      uint32_t af[2][kMTiles][4];
#pragma unroll
      for (int j = 0; j < 2; ++j)
#pragma unroll
        for (int mt = 0; mt < kMTiles; ++mt) {
          const int row = mt * 16 + (lane & 15);
          const int chunk = wk * 8 + (2 * h + j) * 2 + (lane >> 4);
          ldsm_x4(af[j][mt], xbase + row * S::kXRowBytes + ((chunk ^ (row & 7)) * 16));
        }
#pragma unroll
      for (int t8 = 0; t8 < 4; ++t8) {
        T2 s2;
        s2.x = sc[t8];
        s2.y = sc[t8];
        uint32_t b[4];
        if constexpr (kBits == 4) {
          T2 off = as_t2<T2>(Ty<T>::kMagic4 + 0x00080008u);  // magic + 8 (symmetric storage is q + 8)
          if constexpr (kZero) {
            T2 z2;
            z2.x = zc[t8];
            z2.y = zc[t8];
            off = __hadd2(z2, as_t2<T2>(Ty<T>::kMagic4));
          }
          dequant_int4<T>(wr[t8 * 2 + h], off, s2, b);
        } else {
          Int8Off<T> off = int8_off_sym<T>();
          if constexpr (kZero) off = int8_off<T>(zc[t8]);
          uint32_t lo[2], hi[2];
          dequant_int8(wr[t8 * 4 + 2 * h], off, s2, lo);
          dequant_int8(wr[t8 * 4 + 2 * h + 1], off, s2, hi);
          b[0] = lo[0], b[1] = lo[1], b[2] = hi[0], b[3] = hi[1];
        }
#pragma unroll
        for (int mt = 0; mt < kMTiles; ++mt) {
          mma16816<T>(acc[mt][t8], af[0][mt], b[0], b[1]);
          mma16816<T>(acc[mt][t8], af[1][mt], b[2], b[3]);
        }
      }
    }
  };

  // ---- pipeline: kStages - 1 stages in flight ahead of the one being computed.
  // The CTA's bias columns go to shared memory with the first stage's copies, so that their latency passes under the
  // main loop: read from global memory at the end, they were one more round trip on the critical path of a short
  // kernel (a batch-1 1x1 conv took 0.16-0.53 us longer with a bias than without, H200, session41/call6; staged, 0.03-0.11
  // longer, session42/call2). A bias that is not 16-byte aligned (4-byte: the binding's rule) is staged too, by 4-byte
  // copies, so that the epilogue reads shared memory only (see there). Columns past N are zero-filled.
  if (a.bias != nullptr) {
    const T* bias = static_cast<const T*>(a.bias) + n0;
    const uint32_t dst = smem_base + S::kBiasOff;
    if ((reinterpret_cast<uintptr_t>(a.bias) & 15) == 0) {
      if (tid < S::kBN / 8) {
        if (n0 + tid * 8 < a.n) cp_async16(dst + tid * 16, bias + tid * 8);
        else cp_async16_zero(dst + tid * 16, bias);
      }
    } else if (tid < S::kBN / 2) {  // N is a multiple of 32, so a pair is wholly inside N or wholly past it
      if (n0 + tid * 2 < a.n) cp_async4_ca(dst + tid * 4, bias + tid * 2);
      else *reinterpret_cast<uint32_t*>(smem + S::kBiasOff + tid * 4) = 0u;
    }
  }
#pragma unroll
  for (int i = 0; i < kStages - 1; ++i) {
    if (i < iters) load(i, st_begin + i);
    cp_async_commit();
  }
  for (int it = 0; it < iters; ++it) {
    cp_async_wait<kStages - 2>();
    __syncthreads();  // stage `it` landed for everyone; stage it - 1 is free to overwrite
    const int next = it + kStages - 1;
    if (next < iters) load(next % kStages, st_begin + next);
    cp_async_commit();
    compute(it % kStages);
  }
  cp_async_wait<0>();
  __syncthreads();

  // ---- the CTA's kWarpsK partial sums, added by warp wk == 0 in order
  if constexpr (kWarpsK > 1) {
    float* red = reinterpret_cast<float*>(smem);
    if (wk > 0) {
      float* dst = red + ((wk - 1) * kWarpsN + wn) * S::kAcc * 32 + lane;
#pragma unroll
      for (int mt = 0; mt < kMTiles; ++mt)
#pragma unroll
        for (int t8 = 0; t8 < 4; ++t8)
#pragma unroll
          for (int r = 0; r < 4; ++r) dst[((mt * 4 + t8) * 4 + r) * 32] = acc[mt][t8][r];
    }
    __syncthreads();
    if (wk == 0) {
#pragma unroll
      for (int j = 1; j < kWarpsK; ++j) {
        const float* src = red + ((j - 1) * kWarpsN + wn) * S::kAcc * 32 + lane;
#pragma unroll
        for (int mt = 0; mt < kMTiles; ++mt)
#pragma unroll
          for (int t8 = 0; t8 < 4; ++t8)
#pragma unroll
            for (int r = 0; r < 4; ++r) acc[mt][t8][r] += src[((mt * 4 + t8) * 4 + r) * 32];
      }
    }
  }

  // ---- split-K in a thread block cluster (cluster_splits > 1, SM90): the splits of this tile are the cluster's CTAs
  // (cluster dims (1, splits, 1): rank == split); each leaves its sums in its own shared memory, and split 0 adds the
  // others' through distributed shared memory in split order (the same order and bits as the workspace path below),
  // then the cluster meets again so that no CTA exits while its sums are still being read. No global round trips:
  // the workspace path's partial store, fence, counter atomic and reload are a chain of L2 latencies that cost a
  // latency-bound layer (49 x 512 x 2048, a batch-1 1x1 conv) more than its whole main loop.
  if (splits > 1 && a.cluster_splits > 1) {
    float* part = reinterpret_cast<float*>(smem);
    __syncthreads();  // warp wk == 0 has read the kWarpsK reduction's buffer, which `part` overlaps
    const int mine = wn * S::kAcc * 32 + lane;
    if (wk == 0 && split > 0) {
#pragma unroll
      for (int i = 0; i < S::kAcc; ++i) part[mine + i * 32] = acc[i / 16][(i / 4) % 4][i % 4];
    }
    cluster_sync();
    if (split == 0 && wk == 0) {  // acc holds split 0's sums (never -0: the mma accumulators start at +0)
      const uint32_t base = smem_u32(part + mine);
      for (int sp = 1; sp < splits; ++sp) {
        const uint32_t remote = map_cluster(base, sp);
#pragma unroll
        for (int i = 0; i < S::kAcc; ++i) acc[i / 16][(i / 4) % 4][i % 4] += ld_cluster_f32(remote + i * 32 * 4);
      }
    }
    cluster_sync();
    if (split != 0) return;
  } else if (splits > 1) {
    // ---- split-K through global memory: the last CTA of the tile to arrive adds the partials in split order
    const int64_t per_split = static_cast<int64_t>(gridDim.x) * kWarpsN * S::kAcc * 32;
    const int64_t mine = (static_cast<int64_t>(tile) * kWarpsN + wn) * S::kAcc * 32 + lane;
    if (wk == 0) {
      float* dst = a.workspace + split * per_split + mine;
#pragma unroll
      for (int i = 0; i < S::kAcc; ++i) dst[i * 32] = acc[i / 16][(i / 4) % 4][i % 4];
    }
    __threadfence();
    __syncthreads();
    if (tid == 0) s_last = atomicAdd(a.counters + tile, 1) == splits - 1;
    __syncthreads();
    if (!s_last) return;
    __threadfence();
    if (wk == 0) {
#pragma unroll
      for (int i = 0; i < S::kAcc; ++i) acc[i / 16][(i / 4) % 4][i % 4] = 0.0f;
      for (int sp = 0; sp < splits; ++sp) {
        const float* src = a.workspace + sp * per_split + mine;
#pragma unroll
        for (int i = 0; i < S::kAcc; ++i) acc[i / 16][(i / 4) % 4][i % 4] += __ldcg(src + i * 32);
      }
    }
    if (tid == 0) a.counters[tile] = 0;  // every split has counted in: reset for the next launch
  }

  // ---- epilogue: + bias in fp32, one rounding to T, rows < M.
  // A quad's 4 lanes hold one row's columns t8 * 8 + 2 tig (+1), t8 = 0..3: a row's four pairs go out in consecutive
  // store instructions, so each 32-byte sector of the row is complete within two of them. Stored by column block
  // instead (t8 outer, the order before session 42), a sector's halves were 2 kMTiles instructions apart, and the
  // layers wrote their output up to 1.38x slower: 3136 x 256 x 64 without a bias 3.55 -> 2.58 us (H200,
  // tools/results/h200-2026-11-28/session42/call2/epilogue/epilogue.md). Each store reads its bias pair from shared
  // memory: so variant 28's bf16 int8 kernel keeps 128 registers and 2 CTAs per SM, where the forms tried before (the
  // pairs read into registers ahead of the stores, or from shared or global memory by the bias's alignment) took 130-134
  // (ptxas -v; bias pairs held in registers through the main loop took variant 3 from 166 to 172).
  if (wk != 0 || !n_ok) return;
  T* out = static_cast<T*>(a.out);
  const T* bias = a.bias == nullptr ? nullptr : reinterpret_cast<const T*>(smem + S::kBiasOff);
#pragma unroll
  for (int mt = 0; mt < kMTiles; ++mt)
#pragma unroll
    for (int hf = 0; hf < 2; ++hf) {
      const int row = mt * 16 + g + hf * 8;
#pragma unroll
      for (int t8 = 0; t8 < 4; ++t8) {
        const int c = wn * kTileN + t8 * 8 + tig * 2;  // column within the CTA's tile
        float b0 = 0.0f, b1 = 0.0f;  // +0 without a bias, as before
        if (bias != nullptr) {
          const T2 bv = *reinterpret_cast<const T2*>(bias + c);
          b0 = Ty<T>::to_f(bv.x);
          b1 = Ty<T>::to_f(bv.y);
        }
        if (row < a.m)
          *reinterpret_cast<T2*>(out + row * a.ldo + n0 + c) = Ty<T>::pack(acc[mt][t8][2 * hf] + b0, acc[mt][t8][2 * hf + 1] + b1);
      }
    }
}

}  // namespace cg_wo
