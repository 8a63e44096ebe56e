// Weight-only GEMM for 33..64 rows on SM90: the products as warpgroup MMAs (wgmma, sm_90a), the weight as the
// register-fed A operand, x as the shared-memory B operand. out (M, N) = x (M, K) @ dequant(W)^T (+ bias) is computed
// as its transpose D^T (N, M) = W x^T, so one wgmma.m64n64k16 covers 64 weight rows (output columns) against all 64
// x rows: four times the work of the mma.sync kernel's instruction for the same dequantized fragment.
//
// Why (issue 12's M = 64 line, session 36): at 64 rows the mma.sync CTAs of wo_gemm.cuh issue 32 mma.sync per 32 x 64
// warp tile and stay latency-bound at one or two CTAs per SM (session 35: 33.5-35.4 us at 64 x 8192^2), and CUTLASS's
// mixed-input collective takes 29.8-30.3 us (40% issue, 35.5% tensor pipe, 31% DRAM). Here each warp dequantizes its
// 32-column weight tile (the packed layout "wo_mma_sm80_v1" of quant/prepack.py, unchanged: a warp's fragment of the
// mma.sync B operand for n8 sub-tiles 2p, 2p + 1 is, side by side, the m16 A fragment of wgmma) and the warpgroup's
// wgmmas of one K slab run asynchronously while the next slab is dequantized into a second register set.
//
// CTA: kWG warpgroups along N (4 warps each, one 32-column warp tile per warp: 128 columns per warpgroup), one 64-wide
// K slab per pipeline stage: the x slab (64 rows x 128 bytes, 128-byte swizzle: wgmma's K-major B layout, shared by
// the warpgroups; a TMA box), the warps' weight tiles and the slab's two scale (zero) rows (bulk copies), kStages
// stages on full / empty mbarriers, filled by a copy warp. Split-K across CTAs and the epilogue follow wo_gemm.cuh (partials in split
// order by the last CTA to arrive; counters left zero). Rows >= M of the x slab are zero-filled by the TMA.
#pragma once
#include "wo_common.cuh"

namespace cg_wo {

template <int kBits, bool kZero, int kWG, int kStages>
struct WgShape {
  static_assert(kStages >= 3, "two stages ahead of the dequantized one");
  static constexpr int kWarps = 4 * kWG;   // compute warps
  static constexpr int kThreads = kWarps * 32;  // compute threads (the CTA has one copy warp more)
  static constexpr int kBN = kWarps * kTileN;
  static constexpr int kRows = 64;
  static constexpr int kTileBytes = kTileN * kTileK * kBits / 8;
  static constexpr int kVecs = kTileBytes / (32 * 16);
  static constexpr int kXBytes = kRows * 128;
  static constexpr int kWBytes = kWarps * kTileBytes;
  static constexpr int kSRowBytes = kBN * 2;
  static constexpr int kSBytes = 2 * kSRowBytes;  // the slab's two k32 halves (group 32 needs both)
  // Stages 1024-aligned: every x slab starts a swizzle atom.
  static constexpr int kStageBytes = (kXBytes + kWBytes + kSBytes * (kZero ? 2 : 1) + 1023) / 1024 * 1024;
  static constexpr int kAcc = 64;  // fp32 accumulators per lane: two m64n64 fragments
  static constexpr int kSmem = kStages * kStageBytes + 1024;  // + the alignment slack of the dynamic base
};

#if !defined(CG_WO_EMULATE)
// wgmma wrappers (sm_90a). Elsewhere they compile to nothing: the host never launches these kernels off SM90 (wo_select).
#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define CG_WO_WGMMA 1
#endif

__device__ __forceinline__ void wg_fence() {
#ifdef CG_WO_WGMMA
  asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
#endif
}
__device__ __forceinline__ void wg_commit() {
#ifdef CG_WO_WGMMA
  asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
#endif
}
template <int kPending> __device__ __forceinline__ void wg_wait() {
#ifdef CG_WO_WGMMA
  asm volatile("wgmma.wait_group.sync.aligned %0;" ::"n"(kPending) : "memory");
#endif
}

// Shared-memory descriptor of a K-major, 128-byte-swizzled operand at `addr` (an atom base + the k offset): 8-row
// groups 1024 bytes apart.
__device__ __forceinline__ uint64_t wg_desc_sw128(uint32_t addr) {
  return static_cast<uint64_t>((addr & 0x3FFFF) >> 4) | (uint64_t{1} << 16) | (uint64_t{1024 >> 4} << 32) |
         (uint64_t{1} << 62);
}

#define CG_WO_D32(d)                                                                                                 \
  "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]),       \
      "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]),         \
      "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]),        \
      "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
#define CG_WO_WGMMA_N64(TY)                                                                                          \
  "wgmma.mma_async.sync.aligned.m64n64k16.f32." TY "." TY " {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, " \
  "%13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, {%32, %33, %34, "  \
  "%35}, %36, 1, 1, 1, 0;"

// d (64 x 64 fp32; this warp's rows 16w..16w+15) += A (64 x 16, this warp's fragment in registers) * B (16 x 64 at `desc`).
template <typename T> __device__ __forceinline__ void wg_m64n64k16(float (&d)[32], const uint32_t (&a)[4], uint64_t desc);
template <> __device__ __forceinline__ void wg_m64n64k16<__nv_bfloat16>(float (&d)[32], const uint32_t (&a)[4], uint64_t desc) {
#ifdef CG_WO_WGMMA
  asm volatile(CG_WO_WGMMA_N64("bf16") : CG_WO_D32(d) : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc));
#endif
}
template <> __device__ __forceinline__ void wg_m64n64k16<__half>(float (&d)[32], const uint32_t (&a)[4], uint64_t desc) {
#ifdef CG_WO_WGMMA
  asm volatile(CG_WO_WGMMA_N64("f16") : CG_WO_D32(d) : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc));
#endif
}

// Pins registers across the asynchronous wgmmas (CUTLASS's warpgroup_fence_operand): no copy or reuse the compiler
// could place between an issue and the wait that retires it.
template <int kN>
__device__ __forceinline__ void wg_pin(float (&d)[kN][32]) {
#pragma unroll
  for (int p = 0; p < kN; ++p)
#pragma unroll
    for (int i = 0; i < 32; ++i) asm volatile("" : "+f"(d[p][i])::"memory");
}
__device__ __forceinline__ void wg_keep(const uint32_t (&f)[2][4][4]) {
#pragma unroll
  for (int h = 0; h < 2; ++h)
#pragma unroll
    for (int t = 0; t < 4; ++t) asm volatile("" ::"r"(f[h][t][0]), "r"(f[h][t][1]), "r"(f[h][t][2]), "r"(f[h][t][3]));
}

// mbarriers (shared::cta): the producer warp's copies complete a stage's "full" barrier, the consumer threads' arrivals
// after their last read of a slot complete its "empty" barrier.
__device__ __forceinline__ void mbar_init(uint32_t bar, int count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(bar), "r"(count) : "memory");
}
__device__ __forceinline__ void mbar_wait(uint32_t bar, int parity) {
  asm volatile(
      "{\n.reg .pred p;\nWAIT:\n"
      "mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\n"
      "@!p bra WAIT;\n}\n" ::"r"(bar), "r"(parity) : "memory");
}
__device__ __forceinline__ void mbar_arrive(uint32_t bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(bar) : "memory");
}
__device__ __forceinline__ void mbar_arrive_expect_tx(uint32_t bar, int bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(bytes) : "memory");
}
// A bulk copy of `bytes` (a multiple of 16) that counts its bytes off `bar`'s transaction count when they land.
__device__ __forceinline__ void bulk_copy(uint32_t dst, const void* src, int bytes, uint32_t bar) {
  asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];"
               ::"r"(dst), "l"(src), "r"(bytes), "r"(bar) : "memory");
}
// TMA: the 64 x 64 box of x at (k0, row 0) from the descriptor `tmap` (a kernel parameter) into `dst`, swizzled as the
// descriptor says (128 bytes), rows past M zero-filled; its bytes counted off `bar`.
__device__ __forceinline__ void tma_load_x(uint32_t dst, const void* tmap, int k0, uint32_t bar) {
  asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];"
               ::"r"(dst), "l"(tmap), "r"(k0), "r"(0), "r"(bar) : "memory");
}

// Warp specialization: warps 0 .. 4 kWG - 1 (kWG warpgroups) dequantize and issue the wgmmas; lane 0 of warp 4 kWG
// issues every copy of a stage as a bulk copy (weight tiles, scale rows) or a TMA box (x), all counted in bytes on the
// stage's full barrier. Every byte the wgmmas read comes through the async proxy, so no proxy fence is needed: with x
// copied by cp.async (the generic proxy) each stage needed a fence.proxy.async (a MEMBAR.ALL.CTA), which waited for the
// copies in flight, whoever issued them (session 36 calls 1-2: 1.0-1.7 us per 64-wide slab).
template <typename T, int kBits, bool kZero, int kWG, int kStages, int kChains, int kMinBlocks, bool kOverlap>
__global__ void __launch_bounds__(kWG * 128 + 32, kMinBlocks) wo_wgmma_kernel(const __grid_constant__ WoArgs a) {
  using S = WgShape<kBits, kZero, kWG, kStages>;
  CG_WO_KERNEL_SHARED;
  __shared__ __align__(8) uint64_t s_bar[2 * kStages];  // full[kStages], empty[kStages]
  cg_pdl::launch_dependents();
  cg_pdl::wait();
#ifdef CG_WO_WGMMA
  using T2 = typename Ty<T>::T2;
  constexpr int kCompute = S::kThreads;  // compute threads; the copy warp follows them
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  const int g = lane >> 2, tig = lane & 3;
  const int tile = blockIdx.x, split = blockIdx.y, splits = gridDim.y;
  const int n0 = tile * S::kBN;
  const int nblk = a.n / kTileN, kblk = a.k / kTileK;
  const int st_begin = static_cast<int>(static_cast<int64_t>(kblk) * split / splits);
  const int iters = static_cast<int>(static_cast<int64_t>(kblk) * (split + 1) / splits) - st_begin;
  const bool producer = warp == S::kWarps;
  const bool n_ok = !producer && n0 / kTileN + warp < nblk;
  const uint32_t raw = smem_u32(smem);
  const uint32_t base = (raw + 1023) & ~1023u;
  const uint32_t bar_full = smem_u32(&s_bar[0]), bar_empty = smem_u32(&s_bar[kStages]);
  if (tid == 0) {
#pragma unroll
    for (int i = 0; i < kStages; ++i) {
      mbar_init(bar_full + 8 * i, 1);  // lane 0's expect_tx arrival (the bytes do the rest)
      mbar_init(bar_empty + 8 * i, kCompute);
    }
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  __syncthreads();

  if (producer && lane == 0) {
    const uint8_t* wsrc = reinterpret_cast<const uint8_t*>(a.w);
    const T* scales = static_cast<const T*>(a.scales);
    const T* zeros = static_cast<const T*>(a.zeros);
    // A warp tile past N never loads (its columns are never stored, whatever its shared memory holds); scale columns
    // past N neither.
    const int64_t tstride = static_cast<int64_t>(kblk) * S::kTileBytes;  // from one 32-column block to the next
    const int tiles = min(S::kWarps, nblk - n0 / kTileN);                 // warp tiles of this CTA inside N
    const uint8_t* wtile = wsrc + (n0 / kTileN) * tstride + static_cast<int64_t>(st_begin) * S::kTileBytes;
    const int s_bytes = tiles * kTileN * 2;
    const int tx = S::kXBytes + tiles * S::kTileBytes + 2 * s_bytes * (kZero ? 2 : 1);
    for (int j = 0; j < iters; ++j) {
      const int slot = j % kStages;
      if (j >= kStages) mbar_wait(bar_empty + 8 * slot, ((j / kStages) - 1) & 1);
      const uint32_t xs = base + slot * S::kStageBytes;
      const uint32_t ws = xs + S::kXBytes;
      const uint32_t ss = ws + S::kWBytes;
      const uint32_t full = bar_full + 8 * slot;
      const int kb = st_begin + j;
      mbar_arrive_expect_tx(full, tx);
      tma_load_x(xs, &a.x_tmap, kb * kTileK, full);
      const uint8_t* wj = wtile + static_cast<int64_t>(j) * S::kTileBytes;
      for (int t = 0; t < tiles; ++t) bulk_copy(ws + t * S::kTileBytes, wj + t * tstride, S::kTileBytes, full);
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const int64_t grp = (static_cast<int64_t>(kb) * kTileK + h * 32) >> a.group_shift;
        bulk_copy(ss + h * S::kSRowBytes, scales + grp * a.n + n0, s_bytes, full);
        if constexpr (kZero) bulk_copy(ss + S::kSBytes + h * S::kSRowBytes, zeros + grp * a.n + n0, s_bytes, full);
      }
    }
  }

  // Dequantize this warp's 32 x 64 tile of the slab in `slot` into f[h][t8]: the mma.sync B fragments (k32 half h,
  // n8 sub-tile t8), registers (k0-1, k8-9) of the two k16 steps of the half.
  auto deq = [&](int slot, uint32_t (&f)[2][4][4]) {
    const uint8_t* st = smem + (base - raw) + slot * S::kStageBytes;
    const uint4* wt = reinterpret_cast<const uint4*>(st + S::kXBytes + warp * S::kTileBytes);
    const uint8_t* ss = st + S::kXBytes + S::kWBytes;
    uint32_t wr[S::kVecs * 4];
#pragma unroll
    for (int v = 0; v < S::kVecs; ++v) {
      const uint4 q = wt[v * 32 + lane];
      wr[4 * v] = q.x, wr[4 * v + 1] = q.y, wr[4 * v + 2] = q.z, wr[4 * v + 3] = q.w;
    }
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int so = h * S::kSRowBytes + (warp * 32 + g * 4) * 2;
      const uint2 sv = *reinterpret_cast<const uint2*>(ss + so);
      const T* sc = reinterpret_cast<const T*>(&sv);
      uint2 zv = make_uint2(0, 0);
      if constexpr (kZero) zv = *reinterpret_cast<const uint2*>(ss + S::kSBytes + so);
      const T* zc = reinterpret_cast<const T*>(&zv);
#pragma unroll
      for (int t8 = 0; t8 < 4; ++t8) {
        T2 s2;
        s2.x = sc[t8];
        s2.y = sc[t8];
        if constexpr (kBits == 4) {
          T2 off = as_t2<T2>(Ty<T>::kMagic4 + 0x00080008u);
          if constexpr (kZero) {
            T2 z2;
            z2.x = zc[t8];
            z2.y = zc[t8];
            off = __hadd2(z2, as_t2<T2>(Ty<T>::kMagic4));
          }
          dequant_int4<T>(wr[t8 * 2 + h], off, s2, f[h][t8]);
        } else {
          Int8Off<T> off = int8_off_sym<T>();
          if constexpr (kZero) off = int8_off<T>(zc[t8]);
          uint32_t lo[2], hi[2];
          dequant_int8(wr[t8 * 4 + 2 * h], off, s2, lo);
          dequant_int8(wr[t8 * 4 + 2 * h + 1], off, s2, hi);
          f[h][t8][0] = lo[0], f[h][t8][1] = lo[1], f[h][t8][2] = hi[0], f[h][t8][3] = hi[1];
        }
      }
    }
  };

  // Accumulators: slice p, chain c at d[p + 2 c]. With kChains = 2 the k16 steps of a slab alternate between two
  // accumulators per slice (added at the end, in a fixed order): four independent wgmma chains per batch instead of
  // two, so a wgmma waits less for the one before it on the same accumulator.
  float d[2 * kChains][32];
#pragma unroll
  for (int p = 0; p < 2 * kChains; ++p)
#pragma unroll
    for (int i = 0; i < 32; ++i) d[p][i] = 0.0f;

  // The slab's eight wgmmas (k16 step q = 2 h + jj, column slice p), one commit group.
  auto issue = [&](int slot, uint32_t (&f)[2][4][4]) {
    const uint32_t xs = base + slot * S::kStageBytes;
    uint64_t desc[4];  // made before the fence: a wgmma input defined inside the batch serializes it (ptxas C7513)
#pragma unroll
    for (int q = 0; q < 4; ++q) desc[q] = wg_desc_sw128(xs + q * 32);
    wg_pin(d);
    wg_fence();
#pragma unroll
    for (int h = 0; h < 2; ++h)
#pragma unroll
      for (int jj = 0; jj < 2; ++jj)
#pragma unroll
        for (int p = 0; p < 2; ++p) {
          const uint32_t af[4] = {f[h][2 * p][2 * jj], f[h][2 * p + 1][2 * jj], f[h][2 * p][2 * jj + 1],
                                  f[h][2 * p + 1][2 * jj + 1]};
          wg_m64n64k16<T>(d[p + 2 * ((2 * h + jj) % kChains)], af, desc[2 * h + jj]);
        }
    wg_commit();
    wg_pin(d);
  };

  // Stage it: its batch issued, then (while it runs) stage it + 1 waited for and dequantized into the other register
  // set, then the batch retired and the slot released. Retiring each batch before the next is issued keeps every wgmma
  // input defined before its batch starts: with a second batch in flight ptxas serializes the wgmmas (C7513, as
  // session 32 found). The other warpgroup's batch fills the tensor pipe meanwhile.
  auto ready = [&](int j) { mbar_wait(bar_full + 8 * (j % kStages), (j / kStages) & 1); };
  auto step = [&](int it, uint32_t (&f)[2][4][4], uint32_t (&fn)[2][4][4]) {
    issue(it % kStages, f);
    if (it + 1 < iters) {
      ready(it + 1);
      deq((it + 1) % kStages, fn);
    }
    wg_wait<0>();
    wg_keep(f);
    wg_pin(d);
    mbar_arrive(bar_empty + 8 * (it % kStages));
  };

  uint32_t fa[2][4][4], fb[2][4][4];
  if (!producer && !kOverlap) {
    // One register set (fewer registers: more CTAs per SM, whose warpgroups overlap one another instead).
    for (int it = 0; it < iters; ++it) {
      ready(it);
      deq(it % kStages, fa);
      issue(it % kStages, fa);
      wg_wait<0>();
      wg_keep(fa);
      wg_pin(d);
      mbar_arrive(bar_empty + 8 * (it % kStages));
    }
  }
  if (!producer && kOverlap) {
    if (iters > 0) {
      ready(0);
      deq(0, fa);
    }
    for (int it = 0; it < iters; it += 2) {
      step(it, fa, fb);
      if (it + 1 < iters) step(it + 1, fb, fa);
    }
    wg_wait<0>();
    wg_keep(fa);
    wg_keep(fb);
    wg_pin(d);
  }
  (void)fb;
#pragma unroll
  for (int c = 1; c < kChains; ++c)
#pragma unroll
    for (int p = 0; p < 2; ++p)
#pragma unroll
      for (int i = 0; i < 32; ++i) d[p][i] += d[p + 2 * c][i];

  // ---- split-K: the last CTA of the tile to arrive adds the partials in split order (wo_gemm.cuh's rule)
  if (splits > 1) {
    const int64_t per_split = static_cast<int64_t>(gridDim.x) * S::kWarps * S::kAcc * 32;
    const int64_t mine = (static_cast<int64_t>(tile) * S::kWarps + warp) * S::kAcc * 32 + lane;
    if (!producer) {
      float* dst = a.workspace + split * per_split + mine;
#pragma unroll
      for (int i = 0; i < S::kAcc; ++i) dst[i * 32] = d[i / 32][i % 32];
    }
    __threadfence();
    __syncthreads();
    if (tid == 0) s_last = atomicAdd(a.counters + tile, 1) == splits - 1;
    __syncthreads();
    if (!s_last || producer) return;
    __threadfence();
#pragma unroll
    for (int i = 0; i < S::kAcc; ++i) d[i / 32][i % 32] = 0.0f;
    for (int sp = 0; sp < splits; ++sp) {
      const float* src = a.workspace + sp * per_split + mine;
#pragma unroll
      for (int i = 0; i < S::kAcc; ++i) d[i / 32][i % 32] += __ldcg(src + i * 32);
    }
    if (tid == 0) a.counters[tile] = 0;
  }

  // ---- epilogue: d[p][4 i + e] is D^T's row (weight column) 16 w + g + 8 (e / 2) of slice p, column (x row)
  // 8 i + 2 tig + e % 2: output column n0 + 32 warp + 8 (2 p + e / 2) + g. + bias in fp32, one rounding to T.
  if (!n_ok) return;
  T* out = static_cast<T*>(a.out);
  const T* bias = static_cast<const T*>(a.bias);
#pragma unroll
  for (int p = 0; p < 2; ++p)
#pragma unroll
    for (int hi = 0; hi < 2; ++hi) {
      const int col = n0 + warp * kTileN + (2 * p + hi) * 8 + g;
      const float b = bias != nullptr ? Ty<T>::to_f(bias[col]) : 0.0f;
#pragma unroll
      for (int i = 0; i < 8; ++i)
#pragma unroll
        for (int e = 0; e < 2; ++e) {
          const int row = 8 * i + 2 * tig + e;
          if (row < a.m) out[row * a.ldo + col] = Ty<T>::from_f(d[p][4 * i + 2 * hi + e] + b);
        }
    }
#else
  (void)a;
  (void)s_last;
  (void)s_bar;
#endif  // CG_WO_WGMMA
}
#endif  // !CG_WO_EMULATE

}  // namespace cg_wo
