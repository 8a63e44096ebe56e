// Host emulation of the weight-only small-M kernel (cutlass_gemm/runtime/csrc/wo_gemm.cuh) for CPU tests:
// the kernel source is compiled as ordinary C++ (CG_WO_EMULATE) and each CTA runs as one OS thread per
// CUDA thread (the CTAs of a thread block cluster at once, sharing a cluster barrier). This file supplies
// what the GPU provides: thread / block indices, __syncthreads, the warp-collective ldmatrix and mma.sync
// (fragment layouts of the PTX ISA), cp.async (copied at issue, or deferred to the wait that covers it, to
// expose either kind of pipeline hazard), lop3, prmt, atomics, barrier.cluster and distributed shared memory.
// Built by tests/test_weight_only_emulated.py with g++ -std=c++20 -DCG_WO_EMULATE.
#include <atomic>
#include <barrier>
#include <cstdint>
#include <cmath>
#include <cstring>
#include <deque>
#include <memory>
#include <thread>
#include <vector>

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <stdexcept>

namespace cg_wo_emu {
struct Idx { unsigned x = 0, y = 0, z = 0; };
thread_local Idx tl_thread;
Idx g_grid;
bool g_eager_copies = true;
int g_cluster_splits = 0;  // emu_set_cluster: mma launches of 2..this many splits run as clusters
struct Warp {
  std::unique_ptr<std::barrier<>> bar;
  uint32_t u[32][10];
  float f[32][4];
  int ops[32];  // per lane: how many warp-collective (.aligned) instructions it has issued
};
// One CTA's state; its threads see it through tl_cta. A CTA of a cluster launch also sees the cluster's barrier and
// its CTAs by rank (distributed shared memory).
struct Cta {
  Idx block;
  std::vector<uint8_t> smem;
  int shared_int = 0;
  std::unique_ptr<std::barrier<>> bar;
  std::vector<Warp> warps;
  std::barrier<>* cluster_bar = nullptr;
  std::vector<Cta*> const* cluster = nullptr;
};
thread_local Cta* tl_cta = nullptr;
// Convergence checks (the .aligned rules of ldmatrix / mma.sync / bar.sync): every lane of a warp must
// issue each warp-collective instruction together (same count at the same rendezvous) and every thread of
// a CTA the same number of __syncthreads. A thread that exits drops out of its barriers (as on the GPU),
// so a partial arrival shows up as a count mismatch (emu_run returns 5) instead of a hang.
std::atomic<bool> g_diverged{false};
thread_local int tl_warp_ops = 0, tl_syncs = 0;
struct Copy { uint8_t* dst; const uint8_t* src; int bytes = 16; };
thread_local std::deque<std::vector<Copy>> tl_groups;  // committed groups, oldest first
thread_local std::vector<Copy> tl_open;

// L2 prefetches (pdl.cuh's prefetch_l2): each must fall inside the packed weight of the launch.
const uint8_t* g_w_lo = nullptr;
const uint8_t* g_w_hi = nullptr;
int g_prefetch_tiles = 0;
std::atomic<long> g_prefetches{0};
std::atomic<bool> g_bad_prefetch{false};
void prefetch_l2(const void* p) {
  const auto* b = static_cast<const uint8_t*>(p);
  if (b < g_w_lo || b >= g_w_hi) g_bad_prefetch = true;
  ++g_prefetches;
}

uint8_t* shared_bytes() { return tl_cta->smem.data(); }
int& shared_int() { return tl_cta->shared_int; }
std::vector<uint8_t>& smem() { return tl_cta->smem; }
int lane() { return tl_thread.x & 31; }
Warp& warp() { return tl_cta->warps[tl_thread.x >> 5]; }
void check_lockstep(Warp const& w) {  // after the rendezvous: all 32 lanes at the same collective
  for (int i = 0; i < 32; ++i)
    if (w.ops[i] != tl_warp_ops) g_diverged = true;
}

// Runs the CTAs `blocks` at once, `threads` OS threads each calling `kernel()`, each CTA with `smem` bytes of shared
// memory filled with `fill`; with `cluster` they form one thread block cluster (a barrier across all their threads,
// each CTA's shared memory readable by the others, rank = index in `blocks`). Returns false when a barrier or
// .aligned instruction was reached by part of a CTA or warp (a thread that exits drops out of its barriers, as on
// the GPU, so that shows up as a count mismatch instead of a hang).
template <typename F>
bool run_ctas(std::vector<Idx> const& blocks, int threads, int smem, uint8_t fill, bool cluster, F const& kernel) {
  const int n = static_cast<int>(blocks.size());
  std::vector<std::unique_ptr<Cta>> ctas;
  std::vector<Cta*> by_rank;
  std::barrier<> cluster_bar(n * threads);
  for (Idx const& b : blocks) {
    auto c = std::make_unique<Cta>();
    c->block = b;
    c->smem.assign(smem, fill);
    c->bar = std::make_unique<std::barrier<>>(threads);
    c->warps = std::vector<Warp>(threads / 32);
    for (auto& w : c->warps) w.bar = std::make_unique<std::barrier<>>(32);
    if (cluster) {
      c->cluster_bar = &cluster_bar;
      c->cluster = &by_rank;
    }
    by_rank.push_back(c.get());
    ctas.push_back(std::move(c));
  }
  std::vector<std::thread> pool;
  std::vector<int> syncs(n * threads), ops(n * threads);
  for (int ci = 0; ci < n; ++ci)
    for (int tid = 0; tid < threads; ++tid)
      pool.emplace_back([tid, ci, threads, &kernel, &syncs, &ops, &ctas] {
        tl_cta = ctas[ci].get();
        tl_thread = {unsigned(tid), 0, 0};
        tl_groups.clear();
        tl_open.clear();
        tl_warp_ops = tl_syncs = 0;
        kernel();
        syncs[ci * threads + tid] = tl_syncs;
        ops[ci * threads + tid] = tl_warp_ops;
        warp().bar->arrive_and_drop();
        tl_cta->bar->arrive_and_drop();
        if (tl_cta->cluster_bar != nullptr) tl_cta->cluster_bar->arrive_and_drop();
      });
  for (auto& th : pool) th.join();
  for (int ci = 0; ci < n; ++ci)
    for (int tid = 0; tid < threads; ++tid) {
      const int j = ci * threads + tid, j0 = ci * threads;
      if (syncs[j] != syncs[j0] || ops[j] != ops[j0 + (tid & ~31)]) g_diverged = true;
    }
  return !g_diverged;
}
}  // namespace cg_wo_emu

#define __launch_bounds__(...)
#define threadIdx cg_wo_emu::tl_thread
#define blockIdx (cg_wo_emu::tl_cta->block)
#define gridDim cg_wo_emu::g_grid

inline void __syncthreads() {
  ++cg_wo_emu::tl_syncs;
  cg_wo_emu::tl_cta->bar->arrive_and_wait();
}
inline void __threadfence() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
inline int atomicAdd(int* p, int v) { return __atomic_fetch_add(p, v, __ATOMIC_SEQ_CST); }
inline float __ldcg(const float* p) { return *p; }
inline int min(int a, int b) { return a < b ? a : b; }
inline float __int_as_float(int v) { float f; std::memcpy(&f, &v, 4); return f; }
inline float __uint_as_float(unsigned v) { float f; std::memcpy(&f, &v, 4); return f; }
inline unsigned __float_as_uint(float f) { unsigned v; std::memcpy(&v, &f, 4); return v; }
inline unsigned __byte_perm(unsigned x, unsigned y, unsigned s) {
  uint8_t b[8];
  std::memcpy(b, &x, 4);
  std::memcpy(b + 4, &y, 4);
  unsigned r = 0;
  for (int i = 0; i < 4; ++i) r |= unsigned(b[(s >> (4 * i)) & 7]) << (8 * i);
  return r;
}

namespace cg_wo {
template <typename T> struct Ty;
inline uint32_t smem_u32(const void* p) {
  return static_cast<uint32_t>(static_cast<const uint8_t*>(p) - cg_wo_emu::smem().data());
}
inline void cp_async16(uint32_t dst, const void* src) {
  cg_wo_emu::Copy c{cg_wo_emu::smem().data() + dst, static_cast<const uint8_t*>(src)};
  if (dst + 16 > cg_wo_emu::smem().size()) throw std::runtime_error("cp.async past shared memory");
  if (cg_wo_emu::g_eager_copies) std::memcpy(c.dst, c.src, 16);
  else cg_wo_emu::tl_open.push_back(c);
}
inline void cp_async16_zero(uint32_t dst, const void*) {  // source size 0: the 16 bytes become zeros
  cg_wo_emu::Copy c{cg_wo_emu::smem().data() + dst, nullptr};
  if (dst + 16 > cg_wo_emu::smem().size()) throw std::runtime_error("cp.async past shared memory");
  if (cg_wo_emu::g_eager_copies) std::memset(c.dst, 0, 16);
  else cg_wo_emu::tl_open.push_back(c);
}
// cp.async.ca (wo_stream.cuh, the mma kernels' bias): the same copies (caching is invisible here), 16, 8 or 4 bytes.
inline void cp_async_n(uint32_t dst, const void* src, int bytes) {
  cg_wo_emu::Copy c{cg_wo_emu::smem().data() + dst, static_cast<const uint8_t*>(src), bytes};
  if (dst + bytes > cg_wo_emu::smem().size()) throw std::runtime_error("cp.async past shared memory");
  if (cg_wo_emu::g_eager_copies) std::memcpy(c.dst, c.src, bytes);
  else cg_wo_emu::tl_open.push_back(c);
}
inline void cp_async16_ca(uint32_t dst, const void* src) { cp_async_n(dst, src, 16); }
// The direct kernel's register loads (wo_direct.cuh): plain reads (cache policy is invisible here).
inline uint4 ld_weight16(const uint8_t* p) {
  uint4 v;
  std::memcpy(&v, p, 16);
  return v;
}
inline uint2 ld_scale8(const void* p) {
  uint2 v;
  std::memcpy(&v, p, 8);
  return v;
}
inline void cp_async8_ca(uint32_t dst, const void* src) { cp_async_n(dst, src, 8); }
inline void cp_async4_ca(uint32_t dst, const void* src) { cp_async_n(dst, src, 4); }
inline void cp_async_commit() {
  cg_wo_emu::tl_groups.push_back(std::move(cg_wo_emu::tl_open));
  cg_wo_emu::tl_open.clear();
}
template <int kPending> inline void cp_async_wait() {
  while (static_cast<int>(cg_wo_emu::tl_groups.size()) > kPending) {
    for (auto const& c : cg_wo_emu::tl_groups.front()) {
      if (c.src) std::memcpy(c.dst, c.src, c.bytes);
      else std::memset(c.dst, 0, c.bytes);
    }
    cg_wo_emu::tl_groups.pop_front();
  }
}

// ldmatrix .x4: lanes 8i..8i+7 give the row addresses of matrix i; lane l receives, from each matrix,
// the two 16-bit elements of row l / 4 at columns 2 (l % 4), +1.
inline void ldsm_x4(uint32_t (&r)[4], uint32_t addr) {
  auto& w = cg_wo_emu::warp();
  const int l = cg_wo_emu::lane();
  w.u[l][0] = addr;
  w.ops[l] = ++cg_wo_emu::tl_warp_ops;
  w.bar->arrive_and_wait();
  cg_wo_emu::check_lockstep(w);
  for (int i = 0; i < 4; ++i) {
    const uint32_t row_addr = w.u[8 * i + l / 4][0];
    if (row_addr + 16 > cg_wo_emu::smem().size()) throw std::runtime_error("ldmatrix past shared memory");
    std::memcpy(&r[i], cg_wo_emu::smem().data() + row_addr + (l % 4) * 4, 4);
  }
  w.bar->arrive_and_wait();
}

// Thread block clusters (the mma kernels' split-K through distributed shared memory, WoArgs::cluster_splits > 1):
// barrier.cluster meets every thread of the cluster's CTAs; a mapped address carries the CTA's rank + 1 above its
// 24-bit shared-memory offset, and a load through it reads that CTA's shared memory.
inline void cluster_sync() {
  if (cg_wo_emu::tl_cta->cluster_bar == nullptr) throw std::runtime_error("barrier.cluster outside a cluster launch");
  cg_wo_emu::tl_cta->cluster_bar->arrive_and_wait();
}
inline uint32_t map_cluster(uint32_t addr, int rank) {
  auto const* cl = cg_wo_emu::tl_cta->cluster;
  if (cl == nullptr || rank < 0 || rank >= static_cast<int>(cl->size()) || addr >= (1u << 24))
    throw std::runtime_error("mapa: no such CTA in the cluster, or an address past shared memory");
  return (static_cast<uint32_t>(rank + 1) << 24) | addr;
}
inline float ld_cluster_f32(uint32_t remote) {
  auto const* cl = cg_wo_emu::tl_cta->cluster;
  const int rank = static_cast<int>(remote >> 24) - 1;
  const uint32_t addr = remote & 0xFFFFFFu;
  if (cl == nullptr || rank < 0 || rank >= static_cast<int>(cl->size()))
    throw std::runtime_error("ld.shared::cluster: not a mapped address");
  auto const& peer = (*cl)[rank]->smem;
  if (addr + 4 > peer.size()) throw std::runtime_error("ld.shared::cluster past shared memory");
  float v;
  std::memcpy(&v, peer.data() + addr, 4);
  return v;
}

// __syncwarp: the warp's lanes meet (not a counted collective: the kernel calls it in the same places on
// every lane anyway).
inline void syncwarp_emu() { cg_wo_emu::warp().bar->arrive_and_wait(); }

template <typename T> float half_at(uint32_t reg, int hi) {
  uint16_t b = static_cast<uint16_t>(reg >> (16 * hi));
  T v;
  std::memcpy(&v, &b, 2);
  return Ty<T>::to_f(v);
}

// mma.sync m16n8k16 row.col, fp32 accumulate. A (16 x 16): reg j of lane l holds row l / 4 + 8 (j & 1),
// columns 2 (l % 4) + 8 (j >> 1) + {0, 1}; B (16 x 8): reg j holds rows 2 (l % 4) + 8 j + {0, 1}, column
// l / 4; C/D: c[i] at row l / 4 + 8 (i >> 1), column 2 (l % 4) + (i & 1).
template <typename T> inline void mma16816(float (&c)[4], const uint32_t (&a)[4], uint32_t b0, uint32_t b1) {
  auto& w = cg_wo_emu::warp();
  const int l = cg_wo_emu::lane();
  for (int j = 0; j < 4; ++j) w.u[l][j] = a[j];
  w.u[l][4] = b0;
  w.u[l][5] = b1;
  w.ops[l] = ++cg_wo_emu::tl_warp_ops;
  w.bar->arrive_and_wait();
  cg_wo_emu::check_lockstep(w);
  auto A = [&](int r, int k) { return half_at<T>(w.u[(r % 8) * 4 + (k % 8) / 2][(r / 8) + 2 * (k / 8)], k % 2); };
  auto B = [&](int k, int n) { return half_at<T>(w.u[n * 4 + (k % 8) / 2][4 + k / 8], k % 2); };
  float d[4];
  for (int i = 0; i < 4; ++i) {
    const int r = l / 4 + 8 * (i >> 1), n = 2 * (l % 4) + (i & 1);
    float s = c[i];
    for (int k = 0; k < 16; ++k) s += A(r, k) * B(k, n);
    d[i] = s;
  }
  w.bar->arrive_and_wait();
  for (int i = 0; i < 4; ++i) c[i] = d[i];
}

template <uint32_t kLut> inline uint32_t lop3(uint32_t a, uint32_t b, uint32_t c) {
  uint32_t r = 0;
  for (int i = 0; i < 8; ++i)
    if ((kLut >> i) & 1) r |= ((i & 4) ? a : ~a) & ((i & 2) ? b : ~b) & ((i & 1) ? c : ~c);
  return r;
}
}  // namespace cg_wo

#define __syncwarp() cg_wo::syncwarp_emu()
#include "../../cutlass_gemm/runtime/csrc/wo_gemm.cuh"
#include "../../cutlass_gemm/runtime/csrc/wo_stream.cuh"
#include "../../cutlass_gemm/runtime/csrc/wo_direct.cuh"
#include "../../cutlass_gemm/runtime/csrc/wo_spread.h"
#include "../../cutlass_gemm/runtime/csrc/wo_dequant.cuh"

namespace {
using namespace cg_wo;

// One launch of kernel `kern` whose shape is S (WoShape or WsShape), CTA by CTA; `row_blocks`: M > S::kRows runs as
// grid z row blocks (the mma kernels, wo_launch.cuh's wo_row_blocks), the blocks in reverse order.
template <typename S>
int run_kernel(void (*kern)(WoArgs), WoArgs a, int splits, bool eager, bool reverse_splits, int ws_rows, int smem = S::kSmem,
               bool row_blocks = false) {
  if (a.m < 1 || (a.m > S::kRows && !row_blocks)) return 2;
  const int ntiles = (a.n + S::kBN - 1) / S::kBN;
  const int mblocks = (a.m + S::kRows - 1) / S::kRows;
  std::vector<float> ws(static_cast<size_t>(splits) * ntiles * S::kBN * ws_rows * mblocks);
  std::vector<int> counters(static_cast<size_t>(ntiles) * mblocks, 0);
  a.workspace = ws.data();
  a.counters = counters.data();
  cg_wo_emu::g_eager_copies = eager;
  cg_wo_emu::g_diverged = false;
  cg_wo_emu::g_grid = {unsigned(ntiles), unsigned(splits), unsigned(mblocks)};
  // The splits of a column tile as one cluster (wo_launch.cuh: the mma kernels at <= the policy's splits), all its
  // CTAs' threads at once; otherwise one CTA at a time.
  const bool cluster = row_blocks && splits > 1 && splits <= cg_wo_emu::g_cluster_splits;
  a.cluster_splits = cluster ? splits : 0;
  for (int mb = mblocks - 1; mb >= 0; --mb)
  for (int t = 0; t < ntiles; ++t)
    for (int i = 0; i < (cluster ? 1 : splits); ++i) {
      std::vector<cg_wo_emu::Idx> blocks;  // one CTA, or the cluster of the tile's splits (rank = split)
      if (cluster) {
        for (int sp = 0; sp < splits; ++sp) blocks.push_back({unsigned(t), unsigned(sp), unsigned(mb)});
      } else {
        const int sp = reverse_splits && (t % 2) ? splits - 1 - i : i;  // arrival order must not matter
        blocks.push_back({unsigned(t), unsigned(sp), unsigned(mb)});
      }
      // NaN-filled shared memory: unloaded rows stay NaN and must not leak
      if (!cg_wo_emu::run_ctas(blocks, S::kThreads, smem, 0xFF, cluster, [kern, &a] { kern(a); }))
        return 5;  // a barrier or .aligned instruction reached by part of a CTA / warp
    }
  for (int c : counters)
    if (c != 0) return 3;  // the kernel must leave its split-K counters at zero
  return 0;
}

template <typename T, int kBits, bool kZero, int kMT, int kWN, int kWK, int kST>
int run(WoArgs a, int splits, bool eager, bool rev) {
  using S = WoShape<kBits, kZero, kMT, kWN, kWK, kST>;
  return run_kernel<S>(wo_gemm_kernel<T, kBits, kZero, kMT, kWN, kWK, kST>, a, splits, eager, rev, S::kRows, S::kSmem, true);
}

template <typename T, int kBits, bool kZero, int kXR, int kWN, int kWK, int kST>
int run_stream(WoArgs a, int splits, bool eager, bool rev) {
  using S = WsShape<kBits, kZero, kXR, kWN, kWK, kST>;
  return run_kernel<S>(wo_stream_kernel<T, kBits, kZero, kXR, kWN, kWK, kST>, a, splits, eager, rev, S::kAcc);
}

// A direct kernel, with the shared memory its launcher gives it for these splits (wo_launch.cuh: the x of the
// largest split's K range, or the warps' reduction if larger).
template <typename T, int kBits, bool kZero, int kXR, int kWN, int kWK, int kU, int kT>
int run_direct(WoArgs a, int splits, bool eager, bool rev) {
  using S = WdShape<kBits, kZero, kXR, kWN, kWK, kU, kT>;
  const int stages = (a.k / kTileK + kWK - 1) / kWK;
  const int x_bytes = (stages + splits - 1) / splits * kWK * S::kXTile;
  return run_kernel<S>(wo_direct_kernel<T, kBits, kZero, kXR, kWN, kWK, kU, kT>, a, splits, eager, rev, S::kAcc,
                       x_bytes > S::kRedBytes ? x_bytes : S::kRedBytes);
}

// The convolution form of the mma kernels (kConv; wo_conv.cuh's variants, same template arguments).
template <typename T, int kBits, bool kZero, int kMT, int kWN, int kWK, int kST>
int run_conv(WoArgs a, int splits, bool eager, bool rev) {
  using S = WoShape<kBits, kZero, kMT, kWN, kWK, kST>;
  return run_kernel<S>(wo_gemm_kernel<T, kBits, kZero, kMT, kWN, kWK, kST, 1, true>, a, splits, eager, rev, S::kRows,
                       S::kSmem, true);
}

template <typename T, int kBits, bool kZero>
int by_conv_variant(int variant, WoArgs const& a, int splits, bool eager, bool rev) {
  switch (variant) {
    case 1: return run_conv<T, kBits, kZero, 1, 1, 4, 4>(a, splits, eager, rev);
    case 2: return run_conv<T, kBits, kZero, 2, 4, 1, 4>(a, splits, eager, rev);
    case 3: return run_conv<T, kBits, kZero, 4, 4, 1, 3>(a, splits, eager, rev);
    case 28: return run_conv<T, kBits, kZero, 2, 2, 4, 3>(a, splits, eager, rev);
    default: return 1;
  }
}

template <typename T, int kBits, bool kZero>
int by_config(int cfg, WoArgs const& a, int splits, bool eager, bool rev) {
  switch (cfg) {
    // 100 + variant id: the stream kernels of wo_launch.cuh's kWoVariants (same template arguments)
    case 105: return run_stream<T, kBits, kZero, 1, 4, 1, 8>(a, splits, eager, rev);
    case 106: return run_stream<T, kBits, kZero, 4, 4, 1, 8>(a, splits, eager, rev);
    case 107: return run_stream<T, kBits, kZero, 8, 4, 1, 6>(a, splits, eager, rev);
    case 108: return run_stream<T, kBits, kZero, 8, 8, 1, 4>(a, splits, eager, rev);
    case 109: return run_stream<T, kBits, kZero, 8, 2, 2, 6>(a, splits, eager, rev);
    case 110: return run_stream<T, kBits, kZero, 16, 4, 1, 4>(a, splits, eager, rev);
    case 111: return run_stream<T, kBits, kZero, 16, 8, 1, 3>(a, splits, eager, rev);
    case 112: return run_stream<T, kBits, kZero, 32, 4, 1, 3>(a, splits, eager, rev);
    case 113: return run_stream<T, kBits, kZero, 64, 4, 1, 2>(a, splits, eager, rev);
    case 114: return run_direct<T, kBits, kZero, 1, 1, 4, 1, 1024>(a, splits, eager, rev);
    case 115: return run_direct<T, kBits, kZero, 1, 4, 2, 1, 768>(a, splits, eager, rev);
    case 116: return run_direct<T, kBits, kZero, 8, 4, 2, 1, 1024>(a, splits, eager, rev);
    case 117: return run_direct<T, kBits, kZero, 8, 4, 2, 1, 768>(a, splits, eager, rev);
    case 118: return run_direct<T, kBits, kZero, 16, 4, 2, 1, 768>(a, splits, eager, rev);
    case 119: return run_direct<T, kBits, kZero, 8, 2, 4, 1, 1024>(a, splits, eager, rev);
    case 120: return run_direct<T, kBits, kZero, 16, 2, 4, 2, 512>(a, splits, eager, rev);
    case 121: return run_direct<T, kBits, kZero, 16, 4, 2, 2, 512>(a, splits, eager, rev);
    case 122: return run_direct<T, kBits, kZero, 16, 4, 2, 1, 512>(a, splits, eager, rev);
    case 123: return run_direct<T, kBits, kZero, 1, 1, 16, 1, 1024>(a, splits, eager, rev);
    case 124: return run_direct<T, kBits, kZero, 16, 1, 8, 1, 512>(a, splits, eager, rev);
    case 125: return run_direct<T, kBits, kZero, 8, 1, 16, 1, 1024>(a, splits, eager, rev);
    case 126: return run_direct<T, kBits, kZero, 1, 1, 8, 1, 1024>(a, splits, eager, rev);
    case 0: return run<T, kBits, kZero, 1, 1, 4, 4>(a, splits, eager, rev);  // default, M <= 4
    case 1: return run<T, kBits, kZero, 2, 4, 1, 4>(a, splits, eager, rev);  // default, M <= 32
    case 2: return run<T, kBits, kZero, 4, 4, 1, 4>(a, splits, eager, rev);  // default, M <= 64
    case 3: return run<T, kBits, kZero, 1, 2, 4, 3>(a, splits, eager, rev);  // 8 warps, 3 stages
    case 4: return run<T, kBits, kZero, 4, 8, 1, 2>(a, splits, eager, rev);  // 8 warps along N, 2 stages
    case 5: return run<T, kBits, kZero, 1, 4, 1, 4>(a, splits, eager, rev);  // default, M <= 16
    case 6: return run<T, kBits, kZero, 2, 2, 2, 4>(a, splits, eager, rev);  // 2 x 2 warps
    case 7: return run<T, kBits, kZero, 2, 4, 2, 3>(a, splits, eager, rev);  // variant 27: 4 x 2 warps, 3 stages
    case 8: return run<T, kBits, kZero, 2, 2, 4, 3>(a, splits, eager, rev);  // variant 28: 2 x 4 warps, 3 stages
    case 9: return run<T, kBits, kZero, 3, 4, 2, 3>(a, splits, eager, rev);  // variant 32: 3 m tiles, 4 x 2 warps
    case 10: return run<T, kBits, kZero, 4, 2, 4, 3>(a, splits, eager, rev);  // variant 34 (its register cap aside)
    default: return 1;
  }
}
}  // namespace

namespace {
// The argument block both entries start from.
WoArgs emu_args(const void* x, long ldx, const void* w, const void* scales, const void* zeros, int zero, const void* bias,
                void* out, int m, int n, int k, int group_shift) {
  WoArgs a{};
  a.x = x;
  a.ldx = ldx;
  a.w = static_cast<const uint32_t*>(w);
  a.scales = scales;
  a.zeros = zero ? zeros : nullptr;
  a.bias = bias;
  a.out = out;
  a.ldo = n;
  a.m = m;
  a.n = n;
  a.k = k;
  a.group_shift = group_shift;
  return a;
}

// fn.template operator()<T, kBits, kZero>() for the call's activation type and weight format; 4 where the emulation
// threw (an access past shared memory, a barrier reached by part of a CTA).
template <typename Fn>
int by_format(int bf16, int bits, int zero, Fn&& fn) {
  try {
    if (bf16) {
      if (bits == 4) return zero ? fn.template operator()<__nv_bfloat16, 4, true>() : fn.template operator()<__nv_bfloat16, 4, false>();
      return zero ? fn.template operator()<__nv_bfloat16, 8, true>() : fn.template operator()<__nv_bfloat16, 8, false>();
    }
    if (bits == 4) return zero ? fn.template operator()<__half, 4, true>() : fn.template operator()<__half, 4, false>();
    return zero ? fn.template operator()<__half, 8, true>() : fn.template operator()<__half, 8, false>();
  } catch (std::exception const&) {
    return 4;
  }
}
}  // namespace

extern "C" int emu_run(int cfg, int bf16, int bits, int zero, int eager, int reverse_splits, const void* x, long ldx,
                       const void* w, const void* scales, const void* zeros, const void* bias, void* out, int m, int n,
                       int k, int group_shift, int splits) {
  WoArgs a = emu_args(x, ldx, w, scales, zeros, zero, bias, out, m, n, k, group_shift);
  a.prefetch = cg_wo_emu::g_prefetch_tiles;
  cg_wo_emu::g_w_lo = static_cast<const uint8_t*>(w);
  cg_wo_emu::g_w_hi = cg_wo_emu::g_w_lo + static_cast<int64_t>(n) * k * bits / 8;
  cg_wo_emu::g_bad_prefetch = false;
  cg_wo_emu::g_prefetches = 0;
  const bool e = eager != 0, r = reverse_splits != 0;
  const int rc = by_format(bf16, bits, zero, [&]<typename T, int kBits, bool kZero>() {
    return by_config<T, kBits, kZero>(cfg, a, splits, e, r);
  });
  return rc == 0 && cg_wo_emu::g_bad_prefetch ? 6 : rc;  // 6: an L2 prefetch outside the packed weight
}

// The convolution form (wo_conv.cuh) of mma variant `variant` on an NHWC x: geom = (h, w, c, p, q, kw, stride_h,
// stride_w, pad_h, pad_w, dil_h, dil_w, k_real) as WoConv; m = batch * p * q output pixels, out (m, n).
extern "C" int emu_run_conv(int variant, int bf16, int bits, int zero, int eager, const void* x, const void* w,
                            const void* scales, const void* zeros, const void* bias, void* out, int m, int n, int k,
                            int group_shift, int splits, const int* geom) {
  WoArgs a = emu_args(x, geom[2], w, scales, zeros, zero, bias, out, m, n, k, group_shift);
  a.conv = WoConv{geom[0], geom[1], geom[2], geom[3], geom[4], geom[5], geom[6], geom[7], geom[8], geom[9], geom[10],
                  geom[11], geom[12]};
  const bool e = eager != 0;
  return by_format(bf16, bits, zero, [&]<typename T, int kBits, bool kZero>() {
    return by_conv_variant<T, kBits, kZero>(variant, a, splits, e, false);
  });
}

// Warp tiles the direct kernels prefetch (WoArgs::prefetch) in the next emu_run calls; the prefetches the last
// call issued.
extern "C" void emu_set_prefetch(int tiles) { cg_wo_emu::g_prefetch_tiles = tiles; }
// The mma kernels' split launches of at most this many splits run as thread block clusters in the next emu_run calls
// (wo_launch.cuh's wo_set_cluster_reduce; 0: none).
extern "C" void emu_set_cluster(int max_splits) { cg_wo_emu::g_cluster_splits = max_splits; }
// The launcher's shared-memory spread (wo_spread.h), for the CPU tests.
extern "C" int emu_spread_smem(long ctas, int sms, int per_sm, int smem_sm, int reserved, int static_smem, int smem) {
  return cg_wo::wo_spread_smem_bytes(ctas, sms, per_sm, smem_sm, reserved, static_smem, smem);
}
extern "C" long emu_prefetch_count() { return cg_wo_emu::g_prefetches.load(); }

// The int8 dequantizer (wo_common.cuh dequant_int8, both activation types) against the rule it implements, (u - z) * s
// rounded once to T, for every stored byte u and zero point z in 0..255 (and the symmetric constant) and `nscales`
// scales of both signs, bit for bit: the number of mismatching elements.
template <typename T, typename T2> long dequant_int8_mismatches(int nscales) {
  using namespace cg_wo;
  long bad = 0;
  uint32_t state = 12345u;
  for (int i = 0; i < nscales; ++i) {
    state = state * 1664525u + 1013904223u;
    uint16_t sb = static_cast<uint16_t>((state >> 9) & 0x7fff) | (i % 2 ? 0x8000 : 0);
    T s;
    std::memcpy(&s, &sb, 2);
    const float sf = Ty<T>::to_f(s);
    if (!std::isfinite(sf) || sf == 0.0f) continue;
    T2 s2;
    s2.x = s;
    s2.y = s;
    for (int z = 0; z <= 256; ++z) {  // 256: int8_off_sym (z = 128)
      const Int8Off<T> off = z == 256 ? int8_off_sym<T>() : int8_off<T>(Ty<T>::from_f(static_cast<float>(z)));
      const int zz = z == 256 ? 128 : z;
      for (int u0 = 0; u0 < 256; u0 += 4) {
        const uint32_t word = u0 | (u0 + 1) << 8 | (u0 + 2) << 16 | static_cast<uint32_t>(u0 + 3) << 24;
        uint32_t b[2];
        dequant_int8(word, off, s2, b);
        for (int j = 0; j < 4; ++j) {
          const uint16_t got = static_cast<uint16_t>(b[j / 2] >> (16 * (j % 2)));
          const T want = Ty<T>::from_f(static_cast<float>(u0 + j - zz) * sf);  // exact product, one rounding
          uint16_t wb;
          std::memcpy(&wb, &want, 2);
          bad += got != wb;
        }
      }
    }
  }
  return bad;
}
extern "C" long emu_dequant_int8_mismatches(int bf16, int nscales) {
  return bf16 ? dequant_int8_mismatches<__nv_bfloat16, __nv_bfloat162>(nscales)
              : dequant_int8_mismatches<__half, __half2>(nscales);
}

// The dequantization kernel (wo_dequant.cuh) with `tiles` (1 or 4) 32 x 64 tiles per CTA, on its launch's grid
// (N / 32, ceil(K / 64 / tiles)), each CTA's shared memory filled with 0xFF first: 0, 5 where part of a CTA missed a
// barrier, 4 where the emulation threw, 1 for an unknown tile count.
template <typename T, int kBits, int kTiles>
int run_dequant(cg_wo::DequantArgs const& a) {
  std::vector<cg_wo_emu::Idx> blocks;
  for (int y = 0; y < (a.k / 64 + kTiles - 1) / kTiles; ++y)
    for (int x = 0; x < a.n / 32; ++x) blocks.push_back({unsigned(x), unsigned(y), 0});
  const int smem = 32 * (kTiles * 64 + 8) * static_cast<int>(sizeof(T));
  return cg_wo_emu::run_ctas(blocks, 256, smem, 0xFF, false, [&a] { cg_wo::wo_dequant_kernel<T, kBits, kTiles>(a); })
             ? 0 : 5;
}
extern "C" int emu_dequant(int tiles, int bf16, int bits, const void* w, const void* scales, const void* zeros,
                           void* out, int n, int k, int group_shift) {
  cg_wo::DequantArgs a{static_cast<const uint32_t*>(w), scales, zeros, out, n, k, group_shift};
  cg_wo_emu::g_diverged = false;
  return by_format(bf16, bits, 0, [&]<typename T, int kBits, bool>() {
    return tiles == 1 ? run_dequant<T, kBits, 1>(a) : tiles == 4 ? run_dequant<T, kBits, 4>(a) : 1;
  });
}
