// Host emulation of the per-block int8 GEMM (cutlass_gemm/runtime/csrc/bi8_gemm.cuh) for CPU tests: the
// kernel source compiled as ordinary C++ (CG_WO_EMULATE) on the weight-only emulator's machinery (emu.cpp:
// one OS thread per CUDA thread, ldmatrix, cp.async landing at issue or only at its wait, barriers with
// convergence checks), plus mma.sync m16n8k32 s8 from the PTX ISA's fragment layouts. Built by
// tests/test_blockint8_emulated.py with g++ -std=c++20 -DCG_WO_EMULATE.
#include <cmath>

#include "emu.cpp"

inline float __ldg(const float* p) { return *p; }
inline float __expf(float x) { return std::exp(x); }

namespace cg_bi8 {
// mma.sync m16n8k32 row.col s32.s8.s8.s32. A (16 x 32 bytes): reg j of lane l holds row l / 4 + 8 (j & 1),
// columns 4 (l % 4) + 16 (j >> 1) + {0..3}; B (32 x 8): reg j holds rows 4 (l % 4) + 16 j + {0..3}, column
// l / 4; C/D: c[i] at row l / 4 + 8 (i >> 1), column 2 (l % 4) + (i & 1).
inline void mma_s8(int (&c)[4], const uint32_t (&a)[4], uint32_t b0, uint32_t b1) {
  auto& w = cg_wo_emu::warp();
  const int l = cg_wo_emu::lane();
  for (int j = 0; j < 4; ++j) w.u[l][j] = a[j];
  w.u[l][4] = b0;
  w.u[l][5] = b1;
  w.ops[l] = ++cg_wo_emu::tl_warp_ops;
  w.bar->arrive_and_wait();
  cg_wo_emu::check_lockstep(w);
  auto byte = [](uint32_t reg, int i) { return static_cast<int>(static_cast<int8_t>(reg >> (8 * i))); };
  auto A = [&](int r, int k) { return byte(w.u[(r % 8) * 4 + (k % 16) / 4][(r / 8) + 2 * (k / 16)], k % 4); };
  auto B = [&](int k, int n) { return byte(w.u[n * 4 + (k % 16) / 4][4 + k / 16], k % 4); };
  int d[4];
  for (int i = 0; i < 4; ++i) {
    const int r = l / 4 + 8 * (i >> 1), n = 2 * (l % 4) + (i & 1);
    int s = c[i];
    for (int k = 0; k < 32; ++k) s += A(r, k) * B(k, n);
    d[i] = s;
  }
  w.bar->arrive_and_wait();
  for (int i = 0; i < 4; ++i) c[i] = d[i];
}
inline float tanh_approx(float x) { return std::tanh(x); }
}  // namespace cg_bi8

#include "../../cutlass_gemm/runtime/csrc/bi8_gemm.cuh"

namespace {
using namespace cg_bi8;

template <typename T, int kB, int kBM, int kBN, int kWM, int kWN, int kST>
int run_bi8(Bi8Args a, int splits, bool eager, bool reverse_splits) {
  using S = Bi8Shape<kBM, kBN, kWM, kWN, kST>;
  const int mtiles = (a.m + kBM - 1) / kBM, ntiles = (a.n + kBN - 1) / kBN;
  std::vector<float> ws(static_cast<size_t>(splits) * mtiles * ntiles * kBM * kBN);
  std::vector<int> counters(static_cast<size_t>(mtiles) * ntiles, 0);
  a.workspace = ws.data();
  a.counters = counters.data();
  cg_wo_emu::g_eager_copies = eager;
  cg_wo_emu::g_diverged = false;
  cg_wo_emu::g_grid = {unsigned(ntiles), unsigned(mtiles), unsigned(splits)};
  for (int ty = 0; ty < mtiles; ++ty)
    for (int tx = 0; tx < ntiles; ++tx)
      for (int i = 0; i < splits; ++i) {
        const int sp = reverse_splits && ((tx + ty) % 2) ? splits - 1 - i : i;  // arrival order must not matter
        // stale bytes in shared memory: rows / chunks never loaded must not leak
        if (!cg_wo_emu::run_ctas({{unsigned(tx), unsigned(ty), unsigned(sp)}}, S::kThreads, S::kSmem, 0x7F, false,
                                 [&a] { bi8_gemm_kernel<T, kB, kBM, kBN, kWM, kWN, kST>(a); }))
          return 5;
      }
  for (int c : counters)
    if (c != 0) return 3;
  return 0;
}

template <typename T, int kB>
int by_cfg(int cfg, Bi8Args const& a, int splits, bool eager, bool rev) {
  switch (cfg) {
    case 0: return run_bi8<T, kB, 16, 64, 1, 4, 4>(a, splits, eager, rev);    // default, M <= 16
    case 1: return run_bi8<T, kB, 64, 128, 2, 4, 4>(a, splits, eager, rev);   // default, M <= 64
    case 2: return run_bi8<T, kB, 128, 128, 2, 4, 4>(a, splits, eager, rev);  // default, large M
    case 3: return run_bi8<T, kB, 16, 32, 1, 2, 2>(a, splits, eager, rev);    // 2 stages, 2 warps
    default: return 1;
  }
}
}  // namespace

extern "C" int bi8_emu_run(int cfg, int bf16, int block, int eager, int reverse_splits, const void* a, long lda,
                           const void* b, long ldb, const float* sa, long sa_rs, long sa_cs, const float* sb, long sb_rs,
                           long sb_cs, const void* bias, void* out, int m, int n, int k, int act, int splits) {
  Bi8Args p{};
  p.a = static_cast<const int8_t*>(a);
  p.lda = lda;
  p.b = static_cast<const int8_t*>(b);
  p.ldb = ldb;
  p.sa = sa;
  p.sa_rs = sa_rs;
  p.sa_cs = sa_cs;
  p.sb = sb;
  p.sb_rs = sb_rs;
  p.sb_cs = sb_cs;
  p.bias = bias;
  p.out = out;
  p.ldo = n;
  p.m = m;
  p.n = n;
  p.k = k;
  p.act = act;
  const bool e = eager != 0, r = reverse_splits != 0;
  try {
    if (bf16) return block == 64 ? by_cfg<__nv_bfloat16, 64>(cfg, p, splits, e, r) : by_cfg<__nv_bfloat16, 128>(cfg, p, splits, e, r);
    return block == 64 ? by_cfg<__half, 64>(cfg, p, splits, e, r) : by_cfg<__half, 128>(cfg, p, splits, e, r);
  } catch (std::exception const&) {
    return 4;
  }
}
