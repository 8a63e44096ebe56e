// Launchers of the W8A8 decode GEMV (gemv_w8a8.cuh) with the C ABI of a generated kernel's cg_launch
// (kernels/emit.py), so ops/gemm.py and fast_path.cpp plan and call them like any CUTLASS kernel. The
// checks here are the last line: the ops validate first and the heuristics send only M <= 16 calls here.
#include <cuda_runtime.h>

#include <algorithm>
#include <atomic>
#include <string>
#include <type_traits>

#include "gemv_w8a8.cuh"
#include "gemv_w8a8.h"

namespace cg {
namespace {

thread_local std::string g_last_error;
std::atomic<int> g_warps_k_override{0};

int fail(std::string text) {
  g_last_error = std::move(text);
  return 1;
}

int sm_count() {
  static int cache[64] = {};  // per device; 0 unknown
  int dev = 0;
  if (cudaGetDevice(&dev) != cudaSuccess || dev >= 64) return 132;
  if (cache[dev] == 0) {
    int n = 0;
    cudaDeviceGetAttribute(&n, cudaDevAttrMultiProcessorCount, dev);
    cache[dev] = n > 0 ? n : 132;
  }
  return cache[dev];
}

// The launch shape of a call: chunks of 64 K per lane step (4: the kDeep kernel at 512 threads per SM; 2: 1024 threads
// per SM plain, 768 block-scaled; 3: the plain M <= 8 kernel at 1024) and warps splitting K per CTA (a CTA owns 16
// weight rows, so a call makes ceil(N / 16) CTAs). Session 37 measured every step x warp form of every kernel kind (int8
// per token, int8 B = 128 / 64, e4m3 128 x 128) at 17 decode shapes in one process (tools/results/h100-2026-11-28/
// session37/call4/sw_probe.txt); the rule below takes its best form or one within 2.5% of it at 62 of the 68 (shape,
// kind) rows (worst: 16 x 1024 x 4096 e4m3 8%, 1 x 7168 x 2048 int8 B = 128 7%, 16 x 14336 x 4096 B = 64 3.5%), is
// nowhere more than 1% slower than session 15's rule and 4% faster in the geometric mean (up to 31%). What decides is
// whether the CTAs fit on the SMs in one wave and how many steps each warp makes:
// - few CTAs (<= half the SMs: N <= ~1056): 16 warps, 4 chunks (16 x 1024 x 4096: 3.96-4.90 us against 4.27-6.30 at 8);
// - up to two 8-warp CTAs per SM: 4 chunks, 8 warps, 4 where K gives a warp fewer than two steps (as since session 15);
// - plain form beyond that: 2 chunks and 8 warps (4 CTAs a SM at 1024 threads) where K <= 2048 (16 x 7168 x 2048 6.89 us
//   against 7.60; at M <= 8 4 chunks), else 4 chunks and 4 warps (one wave of 4 CTAs a SM) unless K gives 8 warps four steps (16 x 8192 x
//   4096 13.37 against 13.85, 16 x 14336 x 4096 21.62 against 22.88; 16 x 10240 x 8192 and 16 x 8192^2 keep 8);
// - block-scaled form beyond that: 2 chunks and 8 warps while the CTAs fit three a SM (16 x 6144 x 4096 int8 B = 128
//   11.07 us against 13.60, B = 64 12.49 against 15.24, e4m3 11.44 against 15.04), 4 chunks while they fit four a SM,
//   with 4 warps unless K gives 8 warps four steps (16 x 8192 x 4096 13.70 / 14.92 / 14.72 against 15.27 / 17.08 /
//   16.28), and past that 2 chunks with session 15's warps (8, or 4 where the CTAs fill one to two waves of three a SM);
// - the plain form at M <= 8 takes the 4-chunk kernel too (1 x 8192^2 23.23 us against 26.70 at 3 chunks and 16 warps,
//   1 x 28672 x 4096 40.10 against 47.26, 8 x 4096^2 7.34 against 8.27).
// g_step forces the depth (2 or 4; the plain M <= 8 kernel then has 3 or 4), g_warps_k_override the warps (tuning).
std::atomic<int> g_step{0};
struct Shape {
  int warps, step;
};
Shape choose(int64_t m, int64_t n, int64_t k, bool block) {
  const int64_t sms = sm_count();
  const int64_t ctas = (n + cg_gemv::kRows - 1) / cg_gemv::kRows;
  const int64_t chunks = (k + cg_gemv::kChunk - 1) / cg_gemv::kChunk;
  Shape s{8, 4};
  if (2 * ctas <= sms) {
    s = {16, 4};
  } else if (ctas <= 2 * sms || (block && m <= 8)) {
    s = {chunks >= 8 * 2 * 4 ? 8 : 4, 4};
  } else if (!block) {
    if (chunks <= 32 && ctas <= 4 * sms) s = {8, m <= 8 ? 4 : 2};
    else s = {chunks >= 4 * 8 * 4 ? 8 : 4, 4};
  } else if (ctas <= 3 * sms && chunks >= 2 * 8 * 2) {
    s = {8, 2};
  } else if (ctas <= 4 * sms) {
    s = {chunks >= 4 * 8 * 4 ? 8 : 4, 4};
  } else {
    s = {ctas <= 6 * sms ? 4 : 8, 2};
  }
  const int forced = g_step.load(std::memory_order_relaxed);
  if (forced) s.step = !block && m <= 8 && forced == 2 ? 3 : forced;
  const int kw = g_warps_k_override.load(std::memory_order_relaxed);
  if (kw) s.warps = kw;
  return s;
}

// The kernel's chunks per step: 4 with kDeep, else 2 (block-scaled; whole blocks) or 3 / 2 (plain, M <= 8 / M 9..16).
template <int kMT, int kBC, bool kDeep>
constexpr int unroll() { return kDeep ? 4 : kBC ? 2 : (kMT == 1 ? 3 : 2); }

// One kernel form: kUnroll chunks per step (the kernel's launch bounds: threads_per_sm()).
template <bool kFp8, typename TOut, int kMT, int kBC, int kUnroll>
cudaError_t launch_form(cg_gemv::GemvArgs a, int kw, cudaStream_t s) {
  const dim3 grid(static_cast<unsigned>((a.n + cg_gemv::kRows - 1) / cg_gemv::kRows));
  // A programmatic dependent where the device takes it (pdl.cuh); its warps then prefetch their first chunks (1 KB
  // each: 16 weight rows x 64 bytes), pdl.cuh's budget over the CTAs resident at once.
  const bool pdl = cg_pdl::active();
  const int per_sm = std::max(1, cg_gemv::threads_per_sm<kBC, kUnroll>() / (kw * 32));  // the launch bounds' CTAs
  const int64_t resident = std::min<int64_t>(grid.x, static_cast<int64_t>(sm_count()) * per_sm);
  // No first-wave prefetch for the B = 64 block form at 2 chunks per step (M 9..16 with many CTAs): there it cost time,
  // 16 x 28672 x 4096 int8 58.7 us with it, 53.2 without (tools/results/h100-2026-11-27/session23/call5/b64.md; B = 128
  // at the same shape gains from it, 42.95 -> 41.44).
  constexpr bool kNoPrefetch = kBC == 1 && kUnroll == 2;
  const int pf = pdl && !kNoPrefetch ? cg_pdl::prefetch_units(resident, kw, cg_gemv::kRows * cg_gemv::kChunk) : 0;
  switch (kw) {
    case 4: return cg_pdl::launch(cg_gemv::gemv_w8a8_kernel<kFp8, TOut, kMT, 4, kUnroll, kBC>, grid, 128, 0, s, pdl, a, pf);
    case 8: return cg_pdl::launch(cg_gemv::gemv_w8a8_kernel<kFp8, TOut, kMT, 8, kUnroll, kBC>, grid, 256, 0, s, pdl, a, pf);
    default: return cg_pdl::launch(cg_gemv::gemv_w8a8_kernel<kFp8, TOut, kMT, 16, kUnroll, kBC>, grid, 512, 0, s, pdl, a, pf);
  }
}

template <bool kFp8, typename TOut, int kMT, int kBC = 0, bool kDeep = false>
cudaError_t launch_mt(cg_gemv::GemvArgs a, int kw, cudaStream_t s) {
  return launch_form<kFp8, TOut, kMT, kBC, unroll<kMT, kBC, kDeep>()>(a, kw, s);
}

bool aligned16(void const* p) { return (reinterpret_cast<uintptr_t>(p) & 15u) == 0; }

// The cg_launch signature (GEMM launcher ABI 4): (a, b, d, m, n, k, lda, ldb, ldd, scale_a, scale_b, azp,
// azp_adj, azp_with_adj, bias, workspace, workspace_bytes, stream, scale_flags, m_padded); scale_flags bit 0 (1) /
// bit 1 (2): scale_a / scale_b is one element even where the launcher was picked for a vector; m_padded (rows A
// holds past m) is ignored: the GEMV reads rows by row, never a tile's worth out of bounds. b is the (K, N) column-major view of the (N, K) weight, ldb its
// column stride, i.e. the weight's row stride.
template <bool kFp8, typename TOut, bool kSaVec, bool kSbVec>
int launch(void const* a, void const* b, void* d, int64_t m, int64_t n, int64_t k, int64_t lda, int64_t ldb,
           int64_t ldd, void const* scale_a, void const* scale_b, void const* azp, void const* azp_adj,
           void const* azp_with_adj, void const* bias, void* /*workspace*/, size_t /*workspace_bytes*/,
           void* stream, int scale_flags, int64_t /*m_padded*/) {
  if (azp != nullptr || azp_adj != nullptr || azp_with_adj != nullptr)
    return fail("gemv_w8a8: zero-point epilogues are not served by the GEMV");
  if (m < 1 || m > cg_gemv::kMaxM)
    return fail("gemv_w8a8: M = " + std::to_string(m) + " is outside 1.." + std::to_string(cg_gemv::kMaxM));
  if (n < 1 || n >= (int64_t{1} << 31) || k < 16 || k % 16 || k >= (int64_t{1} << 31))
    return fail("gemv_w8a8: needs 1 <= N < 2^31 and 16 <= K < 2^31 with K % 16 == 0 (N = " + std::to_string(n) +
                ", K = " + std::to_string(k) + ")");
  if (!aligned16(a) || !aligned16(b) || (m > 1 && (lda < k || lda % 16)) || ldb < k || ldb % 16 || (m > 1 && ldd < n))
    return fail("gemv_w8a8: rows of a and b must be 16-byte aligned with leading dimensions >= K (lda = " +
                std::to_string(lda) + ", ldb = " + std::to_string(ldb) + ")");
  if (!scale_a || !scale_b || !d) return fail("gemv_w8a8: null scale or output pointer");
  cg_gemv::GemvArgs args;
  args.a = static_cast<const uint8_t*>(a);
  args.w = static_cast<const uint8_t*>(b);
  args.out = d;
  args.scale_a = static_cast<const float*>(scale_a);
  args.scale_b = static_cast<const float*>(scale_b);
  args.bias = bias;
  args.lda = m > 1 ? lda : k;
  args.ldw = ldb;
  args.ldo = m > 1 ? ldd : n;
  args.m = static_cast<int>(m);
  args.n = static_cast<int>(n);
  args.k = static_cast<int>(k);
  args.sa_vec = kSaVec && !(scale_flags & 1);
  args.sb_vec = kSbVec && !(scale_flags & 2);
  const Shape sh = choose(m, n, k, false);
  auto s = static_cast<cudaStream_t>(stream);
  const bool deep = sh.step == 4;
  const cudaError_t err = m <= 8 ? (deep ? launch_mt<kFp8, TOut, 1, 0, true>(args, sh.warps, s)
                                         : launch_mt<kFp8, TOut, 1>(args, sh.warps, s))
                                 : (deep ? launch_mt<kFp8, TOut, 2, 0, true>(args, sh.warps, s)
                                         : launch_mt<kFp8, TOut, 2>(args, sh.warps, s));
  if (err != cudaSuccess) return fail(std::string("gemv_w8a8: launch failed: ") + cudaGetErrorString(err));
  return 0;
}

using LaunchFn = int (*)(void const*, void const*, void*, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t,
                         void const*, void const*, void const*, void const*, void const*, void const*, void*, size_t,
                         void*, int, int64_t);

template <bool kFp8, typename TOut>
LaunchFn pick(bool sa_vec, bool sb_vec) {
  if (sa_vec) return sb_vec ? &launch<kFp8, TOut, true, true> : &launch<kFp8, TOut, true, false>;
  return sb_vec ? &launch<kFp8, TOut, false, true> : &launch<kFp8, TOut, false, false>;
}

}  // namespace

int64_t gemv_w8a8_address(bool fp8, bool bf16, bool sa_vec, bool sb_vec) {
  LaunchFn fn = fp8 ? (bf16 ? pick<true, __nv_bfloat16>(sa_vec, sb_vec) : pick<true, __half>(sa_vec, sb_vec))
                    : (bf16 ? pick<false, __nv_bfloat16>(sa_vec, sb_vec) : pick<false, __half>(sa_vec, sb_vec));
  return static_cast<int64_t>(reinterpret_cast<uintptr_t>(fn));
}

std::string gemv_w8a8_last_error() { return g_last_error; }

std::vector<int64_t> gemv_w8a8_plan(int64_t m, int64_t n, int64_t k, int64_t block) {
  const Shape sh = choose(m, n, k, block != 0);
  return {sh.warps, (n + cg_gemv::kRows - 1) / cg_gemv::kRows, int64_t{sh.warps} * 32, sh.step};
}

// The block-scaled form (the per-block int8 op and the blockwise fp8 op at M <= 16). The torch glue
// (bi8_ops.cu) checks shapes and dtypes; these checks are the last line.
int gemv_block_launch(GemvBlockCall const& c) {
  if (c.m < 1 || c.m > cg_gemv::kMaxM)
    return fail("gemv_block: M = " + std::to_string(c.m) + " is outside 1.." + std::to_string(cg_gemv::kMaxM));
  if ((c.block != 64 && c.block != 128) || (c.fp8 && c.block != 128) || (c.sb_shift != 0 && c.sb_shift != 7))
    return fail("gemv_block: block must be 64 or 128 (128 for fp8), sb_shift 0 or 7");
  if (c.n < 1 || c.n >= (int64_t{1} << 31) || c.k < c.block || c.k % c.block || c.k >= (int64_t{1} << 31))
    return fail("gemv_block: needs 1 <= N < 2^31 and K a positive multiple of the block below 2^31 (N = " +
                std::to_string(c.n) + ", K = " + std::to_string(c.k) + ")");
  if (!aligned16(c.a) || !aligned16(c.w) || (c.m > 1 && (c.lda < c.k || c.lda % 16)) || c.ldw < c.k || c.ldw % 16 ||
      (c.m > 1 && c.ldo < c.n))
    return fail("gemv_block: rows of a and w must be 16-byte aligned with leading dimensions >= K");
  if (!c.scale_a || !c.scale_b || !c.out || c.sa_rs < 0 || c.sa_cs < 0 || c.sb_rs < 0 || c.sb_cs < 0 || c.act < 0 ||
      c.act > 4)
    return fail("gemv_block: null pointer, negative scale stride or bad activation code");
  cg_gemv::GemvArgs args{};
  args.a = static_cast<const uint8_t*>(c.a);
  args.w = static_cast<const uint8_t*>(c.w);
  args.out = c.out;
  args.scale_a = c.scale_a;
  args.scale_b = c.scale_b;
  args.bias = c.bias;
  args.lda = c.m > 1 ? c.lda : c.k;
  args.ldw = c.ldw;
  args.ldo = c.m > 1 ? c.ldo : c.n;
  args.m = static_cast<int>(c.m);
  args.n = static_cast<int>(c.n);
  args.k = static_cast<int>(c.k);
  args.sa_rs = c.sa_rs;
  args.sa_cs = c.sa_cs;
  args.sb_rs = c.sb_rs;
  args.sb_cs = c.sb_cs;
  args.sb_shift = c.sb_shift;
  args.act = c.act;
  const Shape sh = choose(c.m, c.n, c.k, true);
  const int kw = sh.warps;
  auto s = static_cast<cudaStream_t>(c.stream);
  auto go = [&](auto fp8, auto out) -> cudaError_t {
    constexpr bool kF = decltype(fp8)::value;
    using TOut = decltype(out);
    const bool deep = sh.step == 4;
    auto rows = [&](auto bc) -> cudaError_t {  // m8 tiles x step
      constexpr int kB = decltype(bc)::value;
      if (c.m <= 8)
        return deep ? launch_mt<kF, TOut, 1, kB, true>(args, kw, s) : launch_mt<kF, TOut, 1, kB>(args, kw, s);
      return deep ? launch_mt<kF, TOut, 2, kB, true>(args, kw, s) : launch_mt<kF, TOut, 2, kB>(args, kw, s);
    };
    if (c.block == 64) {
      if constexpr (kF) return cudaErrorInvalidValue;  // refused above
      else return rows(std::integral_constant<int, 1>{});
    }
    return rows(std::integral_constant<int, 2>{});
  };
  const cudaError_t err = c.fp8 ? (c.bf16 ? go(std::true_type{}, __nv_bfloat16{}) : go(std::true_type{}, __half{}))
                                : (c.bf16 ? go(std::false_type{}, __nv_bfloat16{}) : go(std::false_type{}, __half{}));
  if (err != cudaSuccess) return fail(std::string("gemv_block: launch failed: ") + cudaGetErrorString(err));
  return 0;
}

int64_t pdl_set(int64_t mode) {
  const bool before = cg_pdl::enabled();
  if (mode == 0 || mode == 1) cg_pdl::mode().store(static_cast<int>(mode), std::memory_order_relaxed);
  return before ? 1 : 0;
}

int64_t pdl_set_prefetch_bytes(int64_t bytes) {
  return bytes >= 0 ? cg_pdl::prefetch_budget().exchange(bytes) : cg_pdl::prefetch_budget().load();
}

void gemv_set_step(int64_t step) { g_step.store(step == 2 || step == 4 ? static_cast<int>(step) : 0); }

void gemv_w8a8_set_warps_k(int64_t warps_k) {
  g_warps_k_override.store(warps_k == 4 || warps_k == 8 || warps_k == 16 ? static_cast<int>(warps_k) : 0);
}

}  // namespace cg
