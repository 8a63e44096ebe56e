// Session 12 harness 2: the row kernels with the next wave's rows prefetched into L2 (quant_rows.cuh
// prefetch_next_wave, RowArgs::prefetch_ahead) against the kernels of commit bd50d1a (head13/, the same headers in
// namespace cg_quant_head), on session 7's helpers (qt.cu):
//   1. session 7's checks (8 known RMSNorm summation-order cases against commit 6f3f184);
//   2. every row mode new vs head: every output byte equal, poisoned rows included;
//   3. time, head vs new vs new with the prefetch off, alternating, at M = 2048-8192.
// Build: bash heads.sh && (cd ../../../../.. && git apply tools/results/h100-2026-11-26/session12/qt/prefetch.diff) && nvcc -std=c++17 -O3 -gencode=arch=compute_90,code=sm_90 qt13.cu -o qt13
#define main qt7_main
#include "../../../h100-2026-11-23/session7/qt/qt.cu"
#undef main
#define cg_quant cg_quant_head
#include "head13/quant_launch.cuh"
#undef cg_quant
namespace H = cg_quant_head;

static void run_head(Case const& c, Bufs const& b, cudaStream_t s) {
  RowArgs n = new_args(c, b, 16 / esize(c.in));
  H::RowArgs a{};
  static_assert(sizeof(H::RowArgs) + 8 == sizeof(RowArgs), "the argument block plus prefetch_ahead");
  memcpy(&a, &n, sizeof(a));  // the same fields in the same order; the new one is last
  CK(H::launch_quant(a, static_cast<H::RowMode>(c.mode), static_cast<H::InType>(c.in), static_cast<H::OutType>(c.out),
                     vectorized(c), s));
}

static std::vector<uint8_t> outputs(Case const& c, Bufs const& b, bool head) {
  Sizes z = sizes(c);
  CK(cudaMemset(b.q, 0x5a, z.q)); CK(cudaMemset(b.scale, 0x5a, z.scale)); CK(cudaMemset(b.resout, 0x5a, z.res + 16));
  if (head) run_head(c, b, 0); else run(kNew, c, b, 0);
  CK(cudaDeviceSynchronize());
  std::vector<uint8_t> o(z.q + z.scale + z.res);
  CK(cudaMemcpy(o.data(), b.q, z.q, cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(o.data() + z.q, b.scale, z.scale, cudaMemcpyDeviceToHost));
  if (z.res) CK(cudaMemcpy(o.data() + z.q + z.scale, b.resout, z.res, cudaMemcpyDeviceToHost));
  return o;
}

static int check_head(Case const& c) {
  Bufs b = alloc(c);
  Sizes z = sizes(c);
  std::vector<uint8_t> hx, hr, hw;
  fill_host(hx, c.in, c.rows, c.cols, c.ldx, 7, true);
  CK(cudaMemcpy(b.x, hx.data(), z.x, cudaMemcpyHostToDevice));
  if (c.res) { fill_host(hr, c.in, c.rows, c.cols, c.cols, 9, false); CK(cudaMemcpy(b.res, hr.data(), z.res, cudaMemcpyHostToDevice)); }
  fill_host(hw, c.in, 1, c.cols, c.cols, 11, false);
  CK(cudaMemcpy(b.w, hw.data(), c.cols * esize(c.in), cudaMemcpyHostToDevice));
  const auto o0 = outputs(c, b, true), o1 = outputs(c, b, false);
  // the poisoned rows (0: a NaN, last: an infinity) must come out with a NaN scale and zero q
  float s0 = 0, s1 = 0;
  CK(cudaMemcpy(&s0, b.scale, 4, cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(&s1, b.scale + (c.rows - 1), 4, cudaMemcpyDeviceToHost));
  const bool poisoned = c.rows <= 4 || (std::isnan(s0) && std::isnan(s1));
  const bool same = o0 == o1;
  printf("head %-8s %-4s->%-4s %6lldx%-6lld ld %-6lld res%d: %s%s\n", mname(c.mode), iname(c.in), c.out == OutType::kInt8 ? "int8" : "fp8",
         (long long)c.rows, (long long)c.cols, (long long)c.ldx, c.res, same ? "same" : "DIFFERENT", poisoned ? "" : " (poisoned row NOT NaN)");
  release(b);
  return (same && poisoned) ? 0 : 1;
}

static float time_head(Case const& c) {  // time_case's rotation with the head launch
  Sizes z = sizes(c);
  const int nbuf = int(std::min<size_t>(64, std::max<size_t>(2, (400u << 20) / (z.x + z.q + 2 * z.res) + 1)));
  std::vector<Bufs> bs;
  std::vector<uint8_t> hx, hw;
  fill_host(hx, c.in, c.rows, c.cols, c.ldx, 7, false);
  fill_host(hw, c.in, 1, c.cols, c.cols, 11, false);
  for (int i = 0; i < nbuf; ++i) {
    bs.push_back(alloc(c));
    CK(cudaMemcpy(bs.back().x, hx.data(), z.x, cudaMemcpyHostToDevice));
    if (c.res) CK(cudaMemcpy(bs.back().res, hx.data(), z.res, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(bs.back().w, hw.data(), c.cols * esize(c.in), cudaMemcpyHostToDevice));
  }
  float med = batched([&](int i) { run_head(c, bs[i % nbuf], 0); });
  for (auto& b : bs) release(b);
  return med;
}

int main() {
  cudaDeviceProp p; CK(cudaGetDeviceProperties(&p, 0));
  printf("device %s, %d SMs\n", p.name, p.multiProcessorCount);
  char arg0[] = "qt7", arg1[] = "check";
  char* argv7[] = {arg0, arg1, nullptr};
  const int f7 = qt7_main(2, argv7);
  int fails = 0;
  const std::vector<std::pair<int64_t, int64_t>> shapes = {{37, 1024}, {300, 4096}, {2048, 4096}, {1000, 4104}, {3000, 4096},
                                                           {2048, 8192}, {6000, 2048}, {600, 40000}};
  for (InType in : {InType::kFloat, InType::kHalf, InType::kBFloat16})
    for (OutType out : {OutType::kInt8, OutType::kFp8})
      for (auto [r, k] : shapes)
        for (int64_t ld : {k, k + 8}) {
          if (ld != k && r > 1000) continue;
          fails += check_head({RowMode::kDynamic, in, out, r, k, ld});
          fails += check_head({RowMode::kStatic, in, out, r, k, ld});
          if (out == OutType::kInt8) { fails += check_head({RowMode::kDynamicAsym, in, out, r, k, ld}); fails += check_head({RowMode::kStatic, in, out, r, k, ld, true}); }
          else fails += check_head({RowMode::kDynamic, in, out, r, k, ld, false, true});
          if (ld % 8 == 0 && k % 8 == 0) { fails += check_head({RowMode::kRmsNorm, in, out, r, k, ld}); fails += check_head({RowMode::kRmsNorm, in, out, r, k, ld, false, false, true}); }
        }
  printf("qt7 checks: %d failed (session 11: 8, all RMSNorm last-bit); HEAD CHECKS: %d failed\n", f7, fails);

  const float bw = 2.0f * (1u << 30) / (time_copy(1u << 30, 3) * 1e-6f) / 1e9f;
  printf("\ncopy bandwidth (1 GiB device-to-device, read + written): %.0f GB/s\n", bw);
  printf("bf16 in; us = median device time; %% = bytes moved / copy bandwidth / time\n");
  auto floor_of = [&](Case const& c) {
    Sizes z = sizes(c);
    return (z.x + z.q + 2 * z.res + (c.mode == RowMode::kRmsNorm ? c.cols * 2 : 0)) / (bw * 1e3f);
  };
  for (auto [m, k] : std::vector<std::pair<int64_t, int64_t>>{{2048, 4096}, {2048, 8192}, {4096, 4096}, {4096, 8192}, {8192, 8192}})
    for (int w = 0; w < 5; ++w) {
      const RowMode modes[] = {RowMode::kDynamic, RowMode::kDynamicAsym, RowMode::kStatic, RowMode::kRmsNorm, RowMode::kRmsNorm};
      Case c{modes[w], InType::kBFloat16, OutType::kInt8, m, k, k, false, false, w == 4};
      float th = 1e9f, tn = 1e9f, toff = 1e9f;
      for (int r = 0; r < 3; ++r) {  // alternating, the order turning; the smallest median of each
        for (int j = 0; j < 3; ++j) {
          const int v = (j + r) % 3;
          if (v == 0) th = std::min(th, time_head(c));
          else { row_prefetch_enabled() = v == 1; float t = time_case(kNew, c); if (v == 1) tn = std::min(tn, t); else toff = std::min(toff, t); }
        }
      }
      row_prefetch_enabled() = true;
      const float f = floor_of(c);
      printf("%6lld %6lld %-18s head %7.2f us %5.1f%%   prefetch %7.2f us %5.1f%%   off %7.2f us %5.1f%%   (%+.1f%% vs head)\n",
             (long long)m, (long long)k, w == 4 ? "rmsnorm +residual" : mname(c.mode), th, 100.f * f / th, tn, 100.f * f / tn, toff,
             100.f * f / toff, 100.f * (th - tn) / th);
    }
  return (fails || f7 > 8) ? 1 : 0;
}
