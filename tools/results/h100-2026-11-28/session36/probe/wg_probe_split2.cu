// Session 36 probe (issue 12's M = 64 line): CTA shapes and accumulator chains of the warpgroup-MMA weight-only kernel
// (runtime/csrc/wo_wgmma.cuh), built straight from the header (no torch extension build), against the mma.sync kernel
// of variant 3 at 48 / 64 rows, bf16 x, int4 g128 symmetric. Each output is compared with variant 3's (fp32 sums in
// another order: a relative tolerance); times alternate in one process (batches of 20 launches on weight copies rotated
// past L2, 9 rounds, medians). A probe, not a design.
//
// Builds against the kernel of commit 73328ba (runtime/csrc/wo_wgmma.cuh, wo_launch.cuh; removed from the library in
// the commit after it) with probe/rotate.patch applied (the "rot" candidates of call 8):
//   git checkout 73328ba -- cutlass_gemm && git apply tools/results/h100-2026-11-28/session36/probe/rotate.patch
//   nvcc -std=c++17 -O3 -gencode=arch=compute_90a,code=sm_90a -o wgp wg_probe.cu && ./wgp
//   ./wgp C S       # only candidate C at shape S, 8 launches, no timing (for ncu --launch-skip 5)
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "cutlass_gemm/runtime/csrc/wo_launch.cuh"  // the worktree's (see call9/command.sh)

#define CK(x)                                                                                            \
  do {                                                                                                   \
    cudaError_t e = (x);                                                                                 \
    if (e != cudaSuccess) { printf("%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); exit(1); } \
  } while (0)

using namespace cg_wo;
using B = __nv_bfloat16;

static uint16_t f2bf(float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  return static_cast<uint16_t>((u + 0x7FFF + ((u >> 16) & 1)) >> 16);
}
static float bf2f(uint16_t h) {
  uint32_t u = static_cast<uint32_t>(h) << 16;
  float f;
  memcpy(&f, &u, 4);
  return f;
}

struct Cand { const char* name; WoKernel k; };

int main(int argc, char** argv) {
  const int only_c = argc > 2 ? atoi(argv[1]) : -1, only_s = argc > 2 ? atoi(argv[2]) : -1;
  std::vector<Cand> cands = {
      {"v3 mma mt4 4x1 s3", wo_kernel<B, 4, false, 4, 4, 1, 3>()},
      {"w1 s4 b3 ser", wg_kernel<B, 4, false, 1, 4, 1, 3, false, false, 0>()},
      {"w1 s4 b3 COPY ONLY", wg_kernel<B, 4, false, 1, 4, 1, 3, false, false, 1>()},
      {"w1 s4 b3 COPY 1 BLOCK", wg_kernel<B, 4, false, 1, 4, 1, 3, false, false, 3>()},
      {"w1 s8 b2 COPY ONLY", wg_kernel<B, 4, false, 1, 8, 1, 2, false, false, 1>()},
      {"w1 s8 b2 COPY 1 BLOCK", wg_kernel<B, 4, false, 1, 8, 1, 2, false, false, 3>()},
      {"w2 s6 b1 COPY ONLY", wg_kernel<B, 4, false, 2, 6, 1, 1, false, false, 1>()},
      {"w2 s6 b1 COPY 1 BLOCK", wg_kernel<B, 4, false, 2, 6, 1, 1, false, false, 3>()},
  };
  const int shapes[][3] = {{64, 8192, 8192}, {64, 4096, 14336}, {64, 28672, 4096}, {1, 8192, 8192}, {64, 4096, 4096}};
  cudaStream_t st;
  CK(cudaStreamCreate(&st));
  for (int si = 0; si < 5; ++si) {
    if (only_s >= 0 && si != only_s) continue;
    const int m = shapes[si][0], n = shapes[si][1], k = shapes[si][2];
    const int copies = std::max(2, static_cast<int>((200ll << 20) / (int64_t(n) * k / 2)) + 1);
    std::vector<uint8_t*> ws(copies);
    std::vector<uint16_t*> ss(copies);
    std::vector<uint8_t> hw(int64_t(n) * k / 2);
    std::vector<uint16_t> hs(int64_t(k / 128) * n), hx(int64_t(m) * k);
    srand(n + k + m);
    for (auto& v : hw) v = rand() & 0xFF;
    for (auto& v : hs) v = f2bf(0.001f + 0.01f * (rand() / float(RAND_MAX)));
    for (auto& v : hx) v = f2bf((rand() / float(RAND_MAX)) * 2 - 1);
    for (int c = 0; c < copies; ++c) {
      CK(cudaMalloc(&ws[c], hw.size()));
      CK(cudaMalloc(&ss[c], hs.size() * 2));
      CK(cudaMemcpy(ws[c], hw.data(), hw.size(), cudaMemcpyHostToDevice));
      CK(cudaMemcpy(ss[c], hs.data(), hs.size() * 2, cudaMemcpyHostToDevice));
    }
    uint16_t* dx;
    CK(cudaMalloc(&dx, hx.size() * 2));
    CK(cudaMemcpy(dx, hx.data(), hx.size() * 2, cudaMemcpyHostToDevice));
    float* wsp;
    int* cnt;
    CK(cudaMalloc(&wsp, 64 << 20));
    CK(cudaMalloc(&cnt, 1 << 20));
    CK(cudaMemset(cnt, 0, 1 << 20));
    const int nc = static_cast<int>(cands.size());
    std::vector<uint16_t*> outs(nc);
    std::vector<WoPlan> plans(nc);
    for (int i = 0; i < nc; ++i) {
      CK(cudaMalloc(&outs[i], int64_t(m) * n * 2));
      CK(cudaMemset(outs[i], 0xff, int64_t(m) * n * 2));  // NaN poison
      plans[i] = wo_plan(cands[i].k, n, k);
      CK(plans[i].err);
    }
    auto args = [&](int c, void* out) {
      WoArgs a{};
      a.x = dx;
      a.ldx = k;
      a.w = reinterpret_cast<const uint32_t*>(ws[c]);
      a.scales = ss[c];
      a.out = out;
      a.ldo = n;
      a.m = m;
      a.n = n;
      a.k = k;
      a.group_shift = 7;
      a.workspace = wsp;
      a.counters = cnt;
      return a;
    };
    if (only_c >= 0) {
      for (int r = 0; r < 8; ++r) CK(launch_wo_gemm(args(r % copies, outs[only_c]), plans[only_c], st));
      CK(cudaStreamSynchronize(st));
      printf("%s at %d x %d x %d: done\n", cands[only_c].name, m, n, k);
      return 0;
    }
    for (int i = 0; i < nc; ++i) CK(launch_wo_gemm(args(0, outs[i]), plans[i], st));
    CK(cudaStreamSynchronize(st));
    std::vector<uint16_t> ref(int64_t(m) * n), got(int64_t(m) * n);
    CK(cudaMemcpy(ref.data(), outs[0], ref.size() * 2, cudaMemcpyDeviceToHost));
    printf("%d x %d x %d (int4 g128, bf16):\n", m, n, k);
    std::vector<double> errs(nc, 0.0);
    for (int i = 1; i < nc; ++i) {
      CK(cudaMemcpy(got.data(), outs[i], got.size() * 2, cudaMemcpyDeviceToHost));
      double num = 0, den = 0;
      bool finite = true;
      for (size_t e = 0; e < ref.size(); ++e) {
        const double u = bf2f(got[e]), v = bf2f(ref[e]);
        finite = finite && std::isfinite(u);
        num += (u - v) * (u - v);
        den += v * v;
      }
      errs[i] = finite ? std::sqrt(num / den) : 1e30;
    }
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    auto batch = [&](int i) {
      for (int r = 0; r < 20; ++r) CK(launch_wo_gemm(args(r % copies, outs[i]), plans[i], st));
    };
    std::vector<std::vector<float>> t(nc);
    for (int i = 0; i < nc; ++i) batch(i);
    for (int round = 0; round < 9; ++round)
      for (int i = 0; i < nc; ++i) {
        CK(cudaStreamSynchronize(st));
        CK(cudaEventRecord(e0, st));
        batch(i);
        CK(cudaEventRecord(e1, st));
        CK(cudaEventSynchronize(e1));
        float ms;
        CK(cudaEventElapsedTime(&ms, e0, e1));
        t[i].push_back(ms * 1e3f / 20);
      }
    const double floor_us = (int64_t(n) * k / 2 + hs.size() * 2) / 3.0e6;
    for (int i = 0; i < nc; ++i) {
      std::sort(t[i].begin(), t[i].end());
      const WoDeviceFit fit = wo_fit(cands[i].k);
      printf("  %-20s grid %4d x %2d (%d/SM) %7.2f us (%3.0f%% of the 3.0 TB/s floor)  rel err vs v3 %.2e%s\n", cands[i].name,
             plans[i].ntiles, plans[i].splits, fit.per_sm, t[i][4], 100 * floor_us / t[i][4], errs[i],
             errs[i] < 1e-2 ? "" : " BAD");
    }
    for (int c = 0; c < copies; ++c) cudaFree(ws[c]), cudaFree(ss[c]);
    for (int i = 0; i < nc; ++i) cudaFree(outs[i]);
    cudaFree(dx), cudaFree(wsp), cudaFree(cnt);
  }
  return 0;
}
