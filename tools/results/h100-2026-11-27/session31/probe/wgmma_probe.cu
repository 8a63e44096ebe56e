// Session 31 probe (issue 12's M = 16 line): the direct x16 4x2 kernel (variant 22) with its products issued as SM90
// warpgroup MMAs instead of mma.sync. A probe, not a design.
//
//   nvcc -std=c++17 -O3 -gencode=arch=compute_90a,code=sm_90a -o wgp wgmma_probe.cu && ./wgp
//
// Why: at 16 rows variant 22 issues two m16n8k16 mma.sync (x is the B operand, 8 rows each) and two ldmatrix per 16 x 16
// weight fragment, and with its plan fixed it takes 17.6 us at 1 row and 19.1 at 16 against 14.0 for the M = 1 kernel
// (call5/rows.md). Here the four warps along N of a CTA (warps 0-3 and 4-7: one K slice each) form a warpgroup; each
// warp's dequantized 16-column fragment is already in the register layout wgmma's A operand takes (that of mma.sync's
// A), so one wgmma.m64n16k16 (A: the 4 warps' 64 columns from registers, B: the 16 x rows of the K step from the
// swizzled x tile in shared memory, which is exactly the 128-byte-swizzle K-major layout) replaces four mma.sync and
// two ldmatrix per warp. Same packed weight, same plan, same end of CTA (wo_warp.cuh's split-K), so the output is
// checked against variant 22's (fp32 sums in another order: a relative tolerance) and both are timed in alternation,
// with the M = 1 kernel (variant 23) beside them.
#include <algorithm>
#include <cstdio>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "../../../../../cutlass_gemm/runtime/csrc/wo_launch.cuh"

namespace cg_wo {

__device__ __forceinline__ void wg_fence() { asm volatile("wgmma.fence.sync.aligned;" ::: "memory"); }
__device__ __forceinline__ void wg_commit() { asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory"); }
__device__ __forceinline__ void wg_wait0() { asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory"); }

// d (64 x 16 fp32, this warp's rows 16w..16w+15) += A (64 x 16 bf16, this warp's fragment) * B (16 x 16 from `desc`).
__device__ __forceinline__ void wg_m64n16k16(float (&d)[8], const uint32_t (&a)[4], uint64_t desc) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, 1, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n16k16.f32.bf16.bf16 {%0, %1, %2, %3, %4, %5, %6, %7}, {%8, %9, %10, %11}, %12, "
      "p, 1, 1, 0;\n}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc));
}

// Shared-memory matrix descriptor of a K-major, 128-byte-swizzled operand at `addr` (1024-aligned atom base + k offset):
// 8-row groups 1024 bytes apart.
__device__ __forceinline__ uint64_t sw128_desc(uint32_t addr) {
  return static_cast<uint64_t>((addr & 0x3FFFF) >> 4) | (uint64_t{1} << 16) | (uint64_t{1024 >> 4} << 32) |
         (uint64_t{1} << 62);
}

template <int kWarpsN, int kWarpsK, int kSMThreads>
__global__ void __launch_bounds__(kWarpsN * kWarpsK * 32, kSMThreads / (kWarpsN * kWarpsK * 32))
    wg_direct_kernel(WoArgs a) {
  using T = __nv_bfloat16;
  using T2 = __nv_bfloat162;
  constexpr int kBits = 4, kXRows = 16;
  static_assert(kWarpsN == 4, "a warpgroup is the four warps along N");
  using S = WdShape<kBits, false, kXRows, kWarpsN, kWarpsK, 1, kSMThreads>;
  CG_WO_KERNEL_SHARED;
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  const int wn = warp % kWarpsN, wk = warp / kWarpsN;
  const int g = lane >> 2;
  const WarpWork ww = warp_work<kWarpsN, kWarpsK>(a, wn, wk);
  const int nb = ww.nb, kblk = ww.kblk, st_begin = ww.st_begin, iters = ww.iters;
  const bool n_ok = ww.n_ok;
  // Every warp of a warpgroup must issue the same wgmmas: the loop count of an in-range warp, whatever n_ok.
  int my_n = iters;
  if (my_n > 0 && (st_begin + my_n - 1) * kWarpsK + wk >= kblk) --my_n;
  const int kb0 = st_begin * kWarpsK;
  const int ktiles = min(kblk, (st_begin + iters) * kWarpsK) - kb0;
  const T* scales = static_cast<const T*>(a.scales);
  const uint8_t* wrow = reinterpret_cast<const uint8_t*>(a.w) +
                        static_cast<int64_t>(n_ok ? nb : 0) * kblk * S::kTileBytes + lane * 16;
  const int s_col = nb * kTileN + 4 * g;
  struct Buf {
    uint4 w[S::kVecs];
    uint2 s[2];
  };
  auto load = [&](Buf& b, int j) {
    if (j < my_n && n_ok) {
      const int kb = (st_begin + j) * kWarpsK + wk;
      const uint8_t* src = wrow + static_cast<int64_t>(kb) * S::kTileBytes;
#pragma unroll
      for (int v = 0; v < S::kVecs; ++v) b.w[v] = ld_weight16(src + v * 512);
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const int64_t grp = (static_cast<int64_t>(kb) * kTileK + h * 32) >> a.group_shift;
        b.s[h] = ld_scale8(scales + grp * a.n + s_col);
      }
    }
  };
  float d[2][8];  // [column slice p][wgmma m64n16 fragment]
#pragma unroll
  for (int p = 0; p < 2; ++p)
#pragma unroll
    for (int i = 0; i < 8; ++i) d[p][i] = 0.0f;
  const uint32_t raw = smem_u32(smem);
  const uint32_t xbase = (raw + 1023) & ~1023u;  // the swizzle atoms are 1024-aligned (the launch adds 1024 bytes)
  auto compute = [&](Buf const& b, int j) {
    if (j >= my_n) return;  // warpgroup-uniform
    const uint32_t* wr = reinterpret_cast<const uint32_t*>(&b.w[0]);
    const uint32_t xs = xbase + (j * kWarpsK + wk) * S::kXTile;
    uint32_t f[2][4][4];  // [h][t8][..]
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const T* sc = reinterpret_cast<const T*>(&b.s[h]);
#pragma unroll
      for (int t8 = 0; t8 < 4; ++t8) {
        T2 s2;
        s2.x = sc[t8];
        s2.y = sc[t8];
        dequant_int4<T>(wr[t8 * 2 + h], as_t2<T2>(Ty<T>::kMagic4 + 0x00080008u), s2, f[h][t8]);
      }
    }
    wg_fence();
#pragma unroll
    for (int h = 0; h < 2; ++h)
#pragma unroll
      for (int jj = 0; jj < 2; ++jj) {
        const uint64_t desc = sw128_desc(xs + (2 * h + jj) * 32);
#pragma unroll
        for (int p = 0; p < 2; ++p) {
          const uint32_t af[4] = {f[h][2 * p][2 * jj], f[h][2 * p + 1][2 * jj], f[h][2 * p][2 * jj + 1],
                                  f[h][2 * p + 1][2 * jj + 1]};
          wg_m64n16k16(d[p], af, desc);
        }
      }
    wg_commit();
    wg_wait0();
  };
  cg_pdl::launch_dependents();
  cg_pdl::wait();
  Buf b0, b1;
  load(b0, 0);
  {
    const T* x = static_cast<const T*>(a.x);
    const int rows = min(a.m, kXRows);
    const int chunks = ktiles * rows * 8;
    for (int c = tid; c < chunks; c += S::kThreads) {
      const int cc = c & 7, r = (c >> 3) % rows, i = (c >> 3) / rows;
      cp_async16_ca(xbase + i * S::kXTile + r * 128 + ((cc ^ (r & 7)) * 16), x + r * a.ldx + (kb0 + i) * kTileK + cc * 8);
    }
    cp_async_commit();
    cp_async_wait<0>();
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");  // generic-proxy writes seen by the async proxy
    __syncthreads();
  }
  for (int j = 0; j < my_n; j += 2) {
    load(b1, j + 1);
    compute(b0, j);
    load(b0, j + 2);
    compute(b1, j + 1);
  }
  __syncthreads();
  // d[p][4 i + e] is WarpAcc's v[mt = i][p][e]: rows g / g + 8 of the warp's 16 columns of slice p, x rows 8 i + 2 t + e.
  WarpAcc<kXRows> acc;
#pragma unroll
  for (int p = 0; p < 2; ++p)
#pragma unroll
    for (int i = 0; i < 2; ++i)
#pragma unroll
      for (int e = 0; e < 4; ++e) acc.v[i][p][e] = d[p][4 * i + e];
  warp_tiles_store<T, kXRows, kWarpsN, kWarpsK>(a, acc, smem + (xbase - raw), s_last, wn, wk, nb, n_ok);
}

}  // namespace cg_wo

#define CK(x)                                                                              \
  do {                                                                                     \
    cudaError_t e = (x);                                                                   \
    if (e != cudaSuccess) { printf("%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); exit(1); } \
  } while (0)

using namespace cg_wo;

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

int main(int argc, char** argv) {
  const int shapes[][2] = {{8192, 8192}, {4096, 14336}, {28672, 4096}};
  cudaStream_t st;
  CK(cudaStreamCreate(&st));
  std::vector<float> wl;
  for (auto const& sh : shapes) {
    const int n = sh[0], k = sh[1];
    const int copies = std::max(2, static_cast<int>((200ll << 20) / (int64_t(n) * k / 2)) + 1);
    std::vector<uint8_t*> ws(copies);
    std::vector<uint16_t*> ss(copies);
    std::vector<uint8_t> hw(int64_t(n) * k / 2);
    std::vector<uint16_t> hs(int64_t(k / 128) * n), hx(16 * k);
    srand(n + k);
    for (auto& v : hw) v = rand() & 0xFF;
    for (auto& v : hs) v = f2bf(0.001f + 0.01f * (rand() / float(RAND_MAX)));
    for (auto& v : hx) v = f2bf((rand() / float(RAND_MAX)) * 2 - 1);
    for (int c = 0; c < copies; ++c) {
      CK(cudaMalloc(&ws[c], hw.size()));
      CK(cudaMalloc(&ss[c], hs.size() * 2));
      CK(cudaMemcpy(ws[c], hw.data(), hw.size(), cudaMemcpyHostToDevice));
      CK(cudaMemcpy(ss[c], hs.data(), hs.size() * 2, cudaMemcpyHostToDevice));
    }
    uint16_t *dx, *o22, *owg, *o23;
    CK(cudaMalloc(&dx, hx.size() * 2));
    CK(cudaMemcpy(dx, hx.data(), hx.size() * 2, cudaMemcpyHostToDevice));
    CK(cudaMalloc(&o22, 16 * n * 2));
    CK(cudaMalloc(&owg, 16 * n * 2));
    CK(cudaMalloc(&o23, 16 * n * 2));
    float* wsp;
    int* cnt;
    CK(cudaMalloc(&wsp, 64 << 20));
    CK(cudaMalloc(&cnt, 1 << 20));
    CK(cudaMemset(cnt, 0, 1 << 20));
    auto args = [&](int m, int c, void* out) {
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
    const WoKernel k22 = wo_select(ActType::kBFloat16, 4, false, 16, 22, k);
    const WoPlan p22 = wo_plan(k22, n, k);
    WoKernel kwg = k22;
    kwg.fn = wg_direct_kernel<4, 2, 512>;
    kwg.red = static_cast<int>(wd_x_bytes(k22, k, p22.splits)) + 1024;  // the x tiles and the alignment slack
    WoPlan pwg = p22;
    pwg.kernel = kwg;
    const WoKernel k23 = wo_select(ActType::kBFloat16, 4, false, 1, 23, k);
    const WoPlan p23 = wo_plan(k23, n, k);
    CK(p22.err);
    CK(p23.err);
    CK(launch_wo_gemm(args(16, 0, o22), p22, st));
    CK(launch_wo_gemm(args(16, 0, owg), pwg, st));
    CK(cudaStreamSynchronize(st));
    std::vector<uint16_t> a22(16 * n), awg(16 * n);
    CK(cudaMemcpy(a22.data(), o22, a22.size() * 2, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(awg.data(), owg, awg.size() * 2, cudaMemcpyDeviceToHost));
    double num = 0, den = 0, worst = 0;
    for (int r = 0; r < 16; ++r) {
      double rn = 0, rd = 0;
      for (int c = 0; c < n; ++c) {
        const double u = bf2f(awg[r * n + c]), v = bf2f(a22[r * n + c]);
        rn += (u - v) * (u - v);
        rd += v * v;
      }
      num += rn, den += rd;
      worst = std::max(worst, std::sqrt(rn / std::max(rd, 1e-30)));
    }
    printf("%dx%d: splits %d, CTAs %d; wgmma vs variant 22 at 16 rows: rel err %.3e (worst row %.3e)%s\n", n, k,
           p22.splits, p22.ntiles * p22.splits, std::sqrt(num / den), worst, worst < 1e-2 ? "" : " BAD");
    // Timing: in alternation, batches of 20 launches on rotating weight copies behind a sleep, 9 rounds, medians.
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    auto batch = [&](int which) {
      for (int i = 0; i < 20; ++i) {
        const int c = i % copies;
        if (which == 0) CK(launch_wo_gemm(args(16, c, o22), p22, st));
        if (which == 1) CK(launch_wo_gemm(args(16, c, owg), pwg, st));
        if (which == 2) CK(launch_wo_gemm(args(1, c, o23), p23, st));
        if (which == 3) CK(launch_wo_gemm(args(1, c, owg), pwg, st));
      }
    };
    std::vector<float> t[4];
    for (int w = 0; w < 4; ++w) batch(w);
    for (int round = 0; round < 9; ++round)
      for (int w = 0; w < 4; ++w) {
        CK(cudaStreamSynchronize(st));
        CK(cudaEventRecord(e0, st));
        batch(w);
        CK(cudaEventRecord(e1, st));
        CK(cudaEventSynchronize(e1));
        float ms;
        CK(cudaEventElapsedTime(&ms, e0, e1));
        t[w].push_back(ms * 1e3f / 20);
      }
    const char* names[4] = {"v22 mma.sync, 16 rows", "wgmma, 16 rows", "v23 (M = 1 kernel), 1 row", "wgmma, 1 row"};
    const double floor_us = (int64_t(n) * k / 2 + hs.size() * 2) / 3.0e6;
    for (int w = 0; w < 4; ++w) {
      std::sort(t[w].begin(), t[w].end());
      printf("  %-28s %7.2f us (%.0f%% of the 3.0 TB/s floor)\n", names[w], t[w][4], 100 * floor_us / t[w][4]);
    }
    for (int c = 0; c < copies; ++c) cudaFree(ws[c]), cudaFree(ss[c]);
    cudaFree(dx), cudaFree(o22), cudaFree(owg), cudaFree(o23), cudaFree(wsp), cudaFree(cnt);
  }
  return 0;
}
