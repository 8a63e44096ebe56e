// Per-block int8 W8A8 GEMM (SM80+; runs unchanged on SM90): one kernel for every M, no int32 partial
// tensor in memory.
//
//   out[m, n] = act( sum_kb sa[m, kb] * sb[n, kb] * (sum_{k in block kb} a[m, k] * w[n, k]) + bias[n] )
//
// a int8 (M, K) and w int8 (N, K) row-major ("TN": K contiguous), sa float32 (M, K/B) and sb float32
// (N, K/B) with any strides (the layouts of quantize_per_group / quant.quantize_per_block are consumed
// as they are), B = kBlock = 64 or 128. Inside a K block the products are added exactly in int32 by
// mma.sync m16n8k32 s8; at the end of the block each int32 fragment element is converted to float
// (exactly: see partial_value) and added to the fp32 accumulator with the weight
// sa[row] * sb[col] (one fma). Epilogue in fp32: + bias, activation, one rounding to T.
//
// Work split: a CTA owns a kBM x kBN output tile; kWM x kWN warps, each a (kBM / kWM) x (kBN / kWN)
// warp tile. A pipeline stage is 128 bytes of K (one block of 128, or two of 64) of the CTA's A rows and
// W rows, copied global -> shared with 16-byte cp.async (rows of 128 bytes, 16-byte chunks XOR-swizzled
// by row % 8 so ldmatrix is conflict-free); kStages - 1 stages in flight. Rows past M / N and chunks
// past K are zero-filled, so every warp runs the same .aligned instruction sequence and adds exact
// zeros; a K block past K (K % 128 == 64 with B = 64) is skipped by a CTA-uniform branch.
//
// Split-K (gridDim.z > 1, chosen by the host where the output tiles leave SM slots empty: small M): each
// split writes its fp32 tile to the workspace and counts itself in on the tile's counter; the last to
// arrive adds the partials in split order 0, 1, ... (bitwise deterministic) and runs the epilogue, then
// sets the counter back to 0 (zero at rest: no memset per call, graph-capturable).
#pragma once
#include "wo_common.cuh"

namespace cg_bi8 {

using cg_wo::Ty;

// Activation codes; the same formulas as the CUTLASS epilogues (cutlass_gemm/kernels/activations.py).
enum Act : int { kActNone = 0, kActRelu = 1, kActRelu6 = 2, kActGeluTanh = 3, kActSilu = 4 };

struct Bi8Args {
  const int8_t* a;     // (M, K), row stride lda bytes (multiple of 16), 16-byte aligned
  int64_t lda;
  const int8_t* b;     // (N, K) weight, row stride ldb (multiple of 16), 16-byte aligned
  int64_t ldb;
  const float* sa;     // sa[m * sa_rs + kb * sa_cs]
  int64_t sa_rs, sa_cs;
  const float* sb;     // sb[n * sb_rs + kb * sb_cs]
  int64_t sb_rs, sb_cs;
  const void* bias;    // (N,) in T, or null
  void* out;           // (M, N) in T, row stride ldo
  int64_t ldo;
  int m, n, k;
  int act;             // Act
  float* workspace;    // split-K partials (bi8_plan().ws_floats), null when splits == 1
  int* counters;       // split-K arrival counters, one per output tile, zero before and after
};

constexpr int kStageK = 128;  // bytes (= int8 elements) of K per pipeline stage

template <int kBM, int kBN, int kWM, int kWN, int kStages>
struct Bi8Shape {
  static constexpr int kThreads = kWM * kWN * 32;
  static constexpr int kTM = kBM / kWM, kTN = kBN / kWN;  // warp tile
  static constexpr int kMT = kTM / 16, kNT = kTN / 8;      // mma tiles per warp tile
  static constexpr int kStageBytes = (kBM + kBN) * kStageK;
  static constexpr int kSmem = kStages * kStageBytes;
  static constexpr int kAChunks = kBM * (kStageK / 16);
  static constexpr int kChunks = (kBM + kBN) * (kStageK / 16);
  static constexpr int kCPer = kChunks / kThreads;        // 16-byte copies per thread per stage
  static constexpr int kAcc = kMT * kNT * 4;              // fp32 accumulators per thread
  static_assert(kTM % 16 == 0 && kTN % 16 == 0, "warp tile: m16 rows, pairs of n8 columns");
  static_assert(kChunks % kThreads == 0 && kAChunks % kThreads == 0, "whole copy rounds, A before W");
};

// (CG_WO_EMULATE: tests/wo_emu/bi8_emu.cpp compiles this kernel as host code and supplies its own
// emulation of the two wrappers below, as for the weight-only kernel.)
#ifndef CG_WO_EMULATE
__device__ __forceinline__ void mma_s8(int (&c)[4], const uint32_t (&a)[4], uint32_t b0, uint32_t b1) {
  asm volatile("mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
               "{%0, %1, %2, %3};"
               : "+r"(c[0]), "+r"(c[1]), "+r"(c[2]), "+r"(c[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

__device__ __forceinline__ float tanh_approx(float x) {
  float y;
  asm("tanh.approx.f32 %0, %1;" : "=f"(y) : "f"(x));  // CUTLASS's GELU_taylor uses the hardware tanh too
  return y;
}
#endif  // CG_WO_EMULATE

// NaN-propagating, as CUTLASS's ReLu / minimum_with_nan_propagation (a NaN in stays NaN).
__device__ __forceinline__ float activate(float x, int act) {
  switch (act) {
    case kActRelu: return x != x ? x : fmaxf(x, 0.0f);
    case kActRelu6: return x != x ? x : fminf(fmaxf(x, 0.0f), 6.0f);
    case kActGeluTanh: return 0.5f * x * (1.0f + tanh_approx(0.7978845608028654f * (x + 0.044715f * x * x * x)));
    case kActSilu: return x / (1.0f + __expf(-x));
    default: return x;
  }
}

// A K block's int32 partial sum d (|d| <= 128^3 = 2^21) as an exact float, in two halves: what the partial starts at
// and how it is read back. SM86+: from 0, read by I2FP.F32.S32 (the conversion sm_86+ code uses; on the H100 half the
// FFMA rate, tools/results/h100-2026-11-27/session29/call1/i2fp_rate.txt). SM80's I2F is a quarter-rate
// conversion-unit instruction (at 64 partials per thread per block as long as the block's mma instructions), so
// there the partial starts at the bits of 1.5 * 2^23, the mma adds d to them as integers (|d| < 2^22 keeps the
// exponent), the bits read as the float 1.5 * 2^23 + d, and one exact subtraction gives d (a register reset and a
// FADD per element, where SM86+ pays one I2FP). Both give the same float.
constexpr int kMagicBits = 0x4B400000;
constexpr int kRasterGroup = 8;
constexpr float kMagic = 12582912.0f;  // 1.5 * 2^23
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 860
constexpr int kPartialStart = 0;
__device__ __forceinline__ float partial_value(int d) { return __int2float_rn(d); }
#else
constexpr int kPartialStart = kMagicBits;
__device__ __forceinline__ float partial_value(int d) { return __int_as_float(d) - kMagic; }
#endif

template <typename T, int kBlock, int kBM, int kBN, int kWM, int kWN, int kStages>
__global__ void __launch_bounds__(kWM * kWN * 32) bi8_gemm_kernel(Bi8Args p) {
  using S = Bi8Shape<kBM, kBN, kWM, kWN, kStages>;
  using T2 = typename Ty<T>::T2;
  static_assert(kBlock == 64 || kBlock == 128, "block 64 or 128");
  constexpr int kThreads = S::kThreads, kMT = S::kMT, kNT = S::kNT;
  constexpr int kBlocksPerStage = kStageK / kBlock;
#ifndef CG_WO_EMULATE
  extern __shared__ __align__(128) uint8_t smem[];
  __shared__ int s_last;
#else
  uint8_t* smem = cg_wo_emu::shared_bytes();
  int& s_last = cg_wo_emu::shared_int();
#endif

  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  const int wm = warp / kWN, wn = warp % kWN;
  const int g = lane >> 2, tig = lane & 3;
  // Grouped rasterization: CTAs launched together cover kRasterGroup m tiles x a run of n tiles instead of
  // one m tile x every n tile, so a wave re-reads a few weight tiles from L2 rather than streaming the
  // whole weight from HBM (a 28672 x 4096 weight is 117 MB, over twice the H100's L2).
  const int tile = blockIdx.y * gridDim.x + blockIdx.x;  // also the split-K counter index
  const int group = kRasterGroup * gridDim.x;
  const int first_m = tile / group * kRasterGroup;
  const int group_m = min(static_cast<int>(gridDim.y) - first_m, kRasterGroup);
  const int m0 = (first_m + tile % group % group_m) * kBM, n0 = tile % group / group_m * kBN;
  const int split = blockIdx.z, splits = gridDim.z;
  const int kblocks = p.k / kBlock;
  const int stages_total = (p.k + kStageK - 1) / kStageK;
  const int st_begin = static_cast<int>(static_cast<int64_t>(stages_total) * split / splits);
  const int iters = static_cast<int>(static_cast<int64_t>(stages_total) * (split + 1) / splits) - st_begin;

  // Copy plan, fixed for the CTA (address arithmetic out of the pipeline loop): chunk c = i * kThreads +
  // tid is row c / 8 (A rows first, then W rows), 16-byte column c % 8, stored at chunk (c % 8) ^ (row % 8).
  const int8_t* src[S::kCPer];
  uint32_t dst_off[S::kCPer];
  bool live[S::kCPer];
  const int cc = tid % 8;  // kThreads is a multiple of 8: the column chunk is the same in every round
#pragma unroll
  for (int i = 0; i < S::kCPer; ++i) {
    const int c = i * kThreads + tid, row = c / 8;
    dst_off[i] = row * kStageK + ((cc ^ (row & 7)) << 4);
    if (i < S::kAChunks / kThreads) {
      const int r = m0 + row;
      live[i] = r < p.m;
      src[i] = p.a + static_cast<int64_t>(min(r, p.m - 1)) * p.lda + cc * 16;
    } else {
      const int r = n0 + row - kBM;
      live[i] = r < p.n;
      src[i] = p.b + static_cast<int64_t>(min(r, p.n - 1)) * p.ldb + cc * 16;
    }
  }
  const uint32_t smem_base = cg_wo::smem_u32(smem);
  auto load = [&](int slot, int st) {
    const uint32_t base = smem_base + slot * S::kStageBytes;
    const int k0 = st * kStageK;
    const bool k_live = k0 + cc * 16 < p.k;  // K is a multiple of 64: a chunk is wholly in or out
#pragma unroll
    for (int i = 0; i < S::kCPer; ++i) {
      if (live[i] && k_live) cg_wo::cp_async16(base + dst_off[i], src[i] + k0);
      else cg_wo::cp_async16_zero(base + dst_off[i], p.a);
    }
  };

  float acc[kMT][kNT][4];
#pragma unroll
  for (int mt = 0; mt < kMT; ++mt)
#pragma unroll
    for (int nt = 0; nt < kNT; ++nt)
#pragma unroll
      for (int r = 0; r < 4; ++r) acc[mt][nt][r] = 0.0f;

  // Scale rows / columns of this thread's fragment elements (clamped into range: past M / N they only
  // ever weigh zero products, and those outputs are never stored). 32-bit offsets save registers next
  // to the two accumulator sets; the host checks that every scale offset fits (bi8_offsets_fit).
  int sa_off[kMT][2], sb_off[kNT][2];
#pragma unroll
  for (int mt = 0; mt < kMT; ++mt)
#pragma unroll
    for (int h = 0; h < 2; ++h)
      sa_off[mt][h] = min(m0 + wm * S::kTM + mt * 16 + g + 8 * h, p.m - 1) * static_cast<int>(p.sa_rs);
#pragma unroll
  for (int nt = 0; nt < kNT; ++nt)
#pragma unroll
    for (int h = 0; h < 2; ++h)
      sb_off[nt][h] = min(n0 + wn * S::kTN + nt * 8 + tig * 2 + h, p.n - 1) * static_cast<int>(p.sb_rs);

  auto compute = [&](int slot, int st) {
    const uint32_t as = smem_base + slot * S::kStageBytes;
    const uint32_t bs = as + kBM * kStageK;
#pragma unroll
    for (int j = 0; j < kBlocksPerStage; ++j) {
      const int kb = st * kBlocksPerStage + j;
      if (kb >= kblocks) break;  // CTA-uniform: the half block past K of a K % 128 == 64 problem
      // The block's scales first: the loads (L1/L2 hits) complete under the block's mma instructions.
      float sa_v[kMT][2], sb_v[kNT][2];
#pragma unroll
      for (int mt = 0; mt < kMT; ++mt)
#pragma unroll
        for (int h = 0; h < 2; ++h) sa_v[mt][h] = __ldg(p.sa + sa_off[mt][h] + kb * static_cast<int>(p.sa_cs));
#pragma unroll
      for (int nt = 0; nt < kNT; ++nt)
#pragma unroll
        for (int h = 0; h < 2; ++h) sb_v[nt][h] = __ldg(p.sb + sb_off[nt][h] + kb * static_cast<int>(p.sb_cs));
      int ci[kMT][kNT][4];
#pragma unroll
      for (int mt = 0; mt < kMT; ++mt)
#pragma unroll
        for (int nt = 0; nt < kNT; ++nt)
#pragma unroll
          for (int r = 0; r < 4; ++r) ci[mt][nt][r] = kPartialStart;
#pragma unroll
      for (int ks = 0; ks < kBlock / 32; ++ks) {
        const int kc = j * (kBlock / 16) + ks * 2;  // first 16-byte chunk of this k32 step
        uint32_t af[kMT][4], bf[kNT / 2][4];
#pragma unroll
        for (int mt = 0; mt < kMT; ++mt) {  // regs: rows 0-7 / 8-15 x k 0-15, then k 16-31
          const int row = wm * S::kTM + mt * 16 + (lane & 15);
          const int chunk = kc + (lane >> 4);
          cg_wo::ldsm_x4(af[mt], as + row * kStageK + ((chunk ^ (row & 7)) << 4));
        }
#pragma unroll
        for (int np = 0; np < kNT / 2; ++np) {  // regs: n 0-7 x k 0-15, k 16-31, then n 8-15
          const int row = wn * S::kTN + np * 16 + (lane & 7) + ((lane >> 4) << 3);
          const int chunk = kc + ((lane >> 3) & 1);
          cg_wo::ldsm_x4(bf[np], bs + row * kStageK + ((chunk ^ (row & 7)) << 4));
        }
#pragma unroll
        for (int mt = 0; mt < kMT; ++mt)
#pragma unroll
          for (int nt = 0; nt < kNT; ++nt)
            mma_s8(ci[mt][nt], af[mt], bf[nt / 2][(nt & 1) * 2], bf[nt / 2][(nt & 1) * 2 + 1]);
      }
#pragma unroll
      for (int mt = 0; mt < kMT; ++mt)
#pragma unroll
        for (int nt = 0; nt < kNT; ++nt)
#pragma unroll
          for (int r = 0; r < 4; ++r)
            acc[mt][nt][r] = fmaf(partial_value(ci[mt][nt][r]), sa_v[mt][r >> 1] * sb_v[nt][r & 1], acc[mt][nt][r]);
    }
  };

  // ---- pipeline: kStages - 1 stages in flight ahead of the one being computed
#pragma unroll
  for (int i = 0; i < kStages - 1; ++i) {
    if (i < iters) load(i, st_begin + i);
    cg_wo::cp_async_commit();
  }
  for (int it = 0; it < iters; ++it) {
    cg_wo::cp_async_wait<kStages - 2>();
    __syncthreads();  // stage `it` landed for everyone; the slot of stage it - 1 is free
    const int next = it + kStages - 1;
    if (next < iters) load(next % kStages, st_begin + next);
    cg_wo::cp_async_commit();
    compute(it % kStages, st_begin + it);
  }
  cg_wo::cp_async_wait<0>();

  // ---- split-K: the last CTA of the tile to arrive adds the partials in split order
  if (splits > 1) {
    const int64_t per_tile = static_cast<int64_t>(S::kAcc) * kThreads;
    const int64_t ntiles = static_cast<int64_t>(gridDim.x) * gridDim.y;
    float* mine = p.workspace + (split * ntiles + tile) * per_tile + tid;
#pragma unroll
    for (int i = 0; i < S::kAcc; ++i) mine[i * kThreads] = acc[i / (kNT * 4)][(i / 4) % kNT][i % 4];
    __threadfence();
    __syncthreads();
    if (tid == 0) s_last = atomicAdd(p.counters + tile, 1) == splits - 1;
    __syncthreads();
    if (!s_last) return;
    __threadfence();
#pragma unroll
    for (int i = 0; i < S::kAcc; ++i) acc[i / (kNT * 4)][(i / 4) % kNT][i % 4] = 0.0f;
    for (int sp = 0; sp < splits; ++sp) {
      const float* part = p.workspace + (sp * ntiles + tile) * per_tile + tid;
#pragma unroll
      for (int i = 0; i < S::kAcc; ++i) acc[i / (kNT * 4)][(i / 4) % kNT][i % 4] += __ldcg(part + i * kThreads);
    }
    if (tid == 0) p.counters[tile] = 0;  // every split has counted in: reset for the next launch
  }

  // ---- epilogue: + bias, activation in fp32, one rounding to T; rows < M, columns < N
  T* out = static_cast<T*>(p.out);
  const T* bias = static_cast<const T*>(p.bias);
  const bool pairs = (p.ldo % 2) == 0;  // 4-byte stores of column pairs need an even row stride
#pragma unroll
  for (int nt = 0; nt < kNT; ++nt) {
    const int col = n0 + wn * S::kTN + nt * 8 + tig * 2;
    if (col >= p.n) continue;
    const bool two = col + 1 < p.n;
    float b0 = 0.0f, b1 = 0.0f;
    if (bias != nullptr) {
      b0 = Ty<T>::to_f(bias[col]);
      if (two) b1 = Ty<T>::to_f(bias[col + 1]);
    }
#pragma unroll
    for (int mt = 0; mt < kMT; ++mt)
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const int row = m0 + wm * S::kTM + mt * 16 + g + 8 * h;
        if (row >= p.m) continue;
        const float v0 = activate(acc[mt][nt][2 * h] + b0, p.act);
        const float v1 = activate(acc[mt][nt][2 * h + 1] + b1, p.act);
        T* o = out + static_cast<int64_t>(row) * p.ldo + col;
        if (two && pairs) {
          *reinterpret_cast<T2*>(o) = Ty<T>::pack(v0, v1);
        } else {
          const T2 v = Ty<T>::pack(v0, v1);
          o[0] = v.x;
          if (two) o[1] = v.y;
        }
      }
  }
}

}  // namespace cg_bi8
