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

// Chunks of 64 K per lane step of a call, asked by the launchers and the plan (both forms; kDeep = 4 chunks).
// Plain form: 3 at M <= 8, 4 at M 9..16 (session 15: tools/results/h100-2026-11-26/session15/call6/
// probe_plain_gemv.log, int8 and e4m3, M 12 / 16, five shapes: 4 chunks beat the former 2 at every shape, int8
// 16 x 8192^2 26.5 -> 25.9 us, 16 x 4096 x 14336 23.9 -> 23.1, 16 x 28672 x 4096 43.5 -> 41.4; e4m3 27.9 -> 26.6,
// 24.6 -> 23.6, 47.1 -> 42.4). Block-scaled form (session15/call1 and call2, probe_block_gemv.log: int8 B = 64 / 128
// and e4m3, M = 1..16, five LLM shapes, 2 or 4 chunks x 4 / 8 / 16 warps): 4, but 2 at M 9..16 where N / 16 CTAs
// exceed four per SM (16 x 28672 x 4096 int8 43.5 us against 44.9 at 4 chunks). g_step forces 2 or 4 (tuning).
std::atomic<int> g_step{0};
int step_of(int64_t m, int64_t n, bool block) {
  const int forced = g_step.load(std::memory_order_relaxed);
  if (!block) return m <= 8 ? 3 : (forced ? forced : 4);  // the plain form's M <= 8 kernel has one depth
  if (forced) return forced;
  const int64_t ctas = (n + cg_gemv::kRows - 1) / cg_gemv::kRows;
  return m <= 8 || ctas <= 4 * static_cast<int64_t>(sm_count()) ? 4 : 2;
}

// Warps splitting K per CTA (a CTA owns 16 weight rows). At 4 chunks per step (either form; two CTAs of 8 warps
// per SM at its register count): 8, or 4 where 8 would give a warp fewer than two steps (K < 4096: block form
// 7168 x 2048 int8 8.0 vs 8.3 us at M = 1, 8.6 vs 9.1 at M = 16; plain form: 8 warps best or within 1.5%, call 6).
// The block form at 2 chunks: 8, or 4 where N / 16 CTAs need one to two waves of 8-warp CTAs at three per SM
// (call 1: 16 x 8192^2, 28.1 us at 4 warps against 33.1 at 8; 16 warps was never the best for it). The plain form at
// 3 chunks (M <= 8), measured on the H100 (int8, tools/results/h100-2026-11-24/session10/call2: gemv_bench.log and
// bd/decode.md, warps 4 / 8 / 16): 8 is best or within 2% wherever ceil(N / 16) * 8 warps reach 7168 (4096 at
// M 9..16 with 2 chunks); below that 16 is best (1 x 8192^2: 27.3 us against 28.6 at 8; 1 x 4096 x 14336: 24.8
// against 27.5; 1 x 28672 x 4096: 44.8 at 8 against 47.6 at 4); fewer when K gives a warp under 2 chunks.
int choose_warps(int64_t m, int64_t n, int64_t k, bool block) {
  const int forced = g_warps_k_override.load(std::memory_order_relaxed);
  if (forced) return forced;
  const int64_t ctas = (n + cg_gemv::kRows - 1) / cg_gemv::kRows;
  const int64_t chunks = (k + cg_gemv::kChunk - 1) / cg_gemv::kChunk;
  const int step = step_of(m, n, block);
  if (step == 4) return chunks >= 8 * 2 * step ? 8 : 4;
  if (block) {
    const int64_t slots = 3 * static_cast<int64_t>(sm_count());
    return ctas > slots && ctas <= 2 * slots ? 4 : 8;
  }
  int kw = ctas * 8 >= (m <= 8 ? 7168 : 4096) ? 8 : 16;  // (M 9..16 here only when forced to 2 chunks)
  while (kw > 4 && chunks < 2 * kw) kw /= 2;
  return kw;
}

// The kernel's chunks per step: 4 with kDeep, else 2 (block-scaled; whole blocks) or 3 / 2 (plain, M <= 8 / M 9..16).
template <int kMT, int kBC, bool kDeep>
constexpr int unroll() { return kDeep ? 4 : kBC ? 2 : (kMT == 1 ? 3 : 2); }

template <bool kFp8, typename TOut, int kMT, int kBC = 0, bool kDeep = false>
cudaError_t launch_mt(cg_gemv::GemvArgs a, int kw, cudaStream_t s) {
  constexpr int kUnroll = unroll<kMT, kBC, kDeep>();
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

bool aligned16(void const* p) { return (reinterpret_cast<uintptr_t>(p) & 15u) == 0; }

// The cg_launch signature (GEMM launcher ABI 3): (a, b, d, m, n, k, lda, ldb, ldd, scale_a, scale_b, azp,
// azp_adj, azp_with_adj, bias, workspace, workspace_bytes, stream, scale_flags); scale_flags bit 0 (1) / bit 1
// (2): scale_a / scale_b is one element even where the launcher was picked for a vector. b is the (K, N) column-major view of the (N, K) weight, ldb its
// column stride, i.e. the weight's row stride.
template <bool kFp8, typename TOut, bool kSaVec, bool kSbVec>
int launch(void const* a, void const* b, void* d, int64_t m, int64_t n, int64_t k, int64_t lda, int64_t ldb,
           int64_t ldd, void const* scale_a, void const* scale_b, void const* azp, void const* azp_adj,
           void const* azp_with_adj, void const* bias, void* /*workspace*/, size_t /*workspace_bytes*/,
           void* stream, int scale_flags) {
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
  const int kw = choose_warps(m, n, k, false);
  auto s = static_cast<cudaStream_t>(stream);
  const cudaError_t err = m <= 8 ? launch_mt<kFp8, TOut, 1>(args, kw, s)
                          : step_of(m, n, false) == 4 ? launch_mt<kFp8, TOut, 2, 0, true>(args, kw, s)
                                                      : launch_mt<kFp8, TOut, 2>(args, kw, s);
  if (err != cudaSuccess) return fail(std::string("gemv_w8a8: launch failed: ") + cudaGetErrorString(err));
  return 0;
}

using LaunchFn = int (*)(void const*, void const*, void*, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t,
                         void const*, void const*, void const*, void const*, void const*, void const*, void*, size_t,
                         void*, int);

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
  const int64_t kw = choose_warps(m, n, k, block != 0);
  return {kw, (n + cg_gemv::kRows - 1) / cg_gemv::kRows, kw * 32, step_of(m, n, block != 0)};
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
  const int kw = choose_warps(c.m, c.n, c.k, true);
  auto s = static_cast<cudaStream_t>(c.stream);
  auto go = [&](auto fp8, auto out) -> cudaError_t {
    constexpr bool kF = decltype(fp8)::value;
    using TOut = decltype(out);
    const bool deep = step_of(c.m, c.n, true) == 4;
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
