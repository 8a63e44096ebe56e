// Session 9 harness: the row kernels at 8 vectors per thread (half the threads per row, so the per-thread
// reductions and scale arithmetic cost half as much per value) vs the library's launch, on session 7's
// helpers (buffers, poisoned inputs, rotation, batched event timing): bytes compared first, then timed side
// by side. Build: nvcc -std=c++17 -O3 -gencode=arch=compute_90,code=sm_90 qt10.cu -o qt10
#define main qt7_main
#include "../../session7/qt/qt.cu"
#undef main

// bf16 in: each thread 8 vectors of a row, nvec / 8 threads (64 or 128), residency capped like the library's
template <typename TQ, RowMode kM>
static void launch8(RowArgs const& a, cudaStream_t s) {
  auto capped = [&](auto kernel, int threads) { kernel<<<static_cast<unsigned>(a.rows), threads, cap_smem(kernel, threads), s>>>(a); };
  if (a.cols / 8 <= 8 * 64) capped(row_quant_kernel<__nv_bfloat16, TQ, 8, 8, 64, kM, 1>, 64);
  else capped(row_quant_kernel<__nv_bfloat16, TQ, 8, 8, 128, kM, 1>, 128);
}
static void run8(Case const& c, Bufs const& b, cudaStream_t s) {
  RowArgs a = new_args(c, b, 8);
  auto go = [&](auto m) {
    if (c.out == OutType::kInt8) launch8<int8_t, decltype(m)::value>(a, s);
    else if constexpr (decltype(m)::value != RowMode::kDynamicAsym) launch8<__nv_fp8_e4m3, decltype(m)::value>(a, s);
  };
  switch (c.mode) {
    case RowMode::kDynamic: go(std::integral_constant<RowMode, RowMode::kDynamic>{}); break;
    case RowMode::kDynamicAsym: go(std::integral_constant<RowMode, RowMode::kDynamicAsym>{}); break;
    case RowMode::kStatic: go(std::integral_constant<RowMode, RowMode::kStatic>{}); break;
    default: go(std::integral_constant<RowMode, RowMode::kRmsNorm>{}); break;
  }
  CK(cudaGetLastError());
}

// Library launch vs run8 on the same (NaN/inf-poisoned) input: every output byte equal?
static int check8(Case const& c) {
  Bufs b = alloc(c);
  Sizes z = sizes(c);
  std::vector<uint8_t> hx, hr, hw;
  fill_host(hx, c.in, c.rows, c.cols, c.ldx, 7, true);
  CK(cudaMemcpy(b.x, hx.data(), z.x, cudaMemcpyHostToDevice));
  if (c.res) { fill_host(hr, c.in, c.rows, c.cols, c.cols, 9, false); CK(cudaMemcpy(b.res, hr.data(), z.res, cudaMemcpyHostToDevice)); }
  fill_host(hw, c.in, 1, c.cols, c.cols, 11, false);
  CK(cudaMemcpy(b.w, hw.data(), c.cols * esize(c.in), cudaMemcpyHostToDevice));
  std::vector<uint8_t> out[2];
  for (int i = 0; i < 2; ++i) {
    CK(cudaMemset(b.q, 0x5a, z.q)); CK(cudaMemset(b.scale, 0x5a, z.scale)); CK(cudaMemset(b.azp, 0x5a, c.rows * 4)); CK(cudaMemset(b.resout, 0x5a, z.res + 16));
    if (i == 0) run(kNew, c, b, 0); else run8(c, b, 0);
    CK(cudaDeviceSynchronize());
    size_t n = z.q + z.scale + c.rows * 4 + z.res, o = 0;
    out[i].resize(n);
    CK(cudaMemcpy(out[i].data(), b.q, z.q, cudaMemcpyDeviceToHost)); o += z.q;
    CK(cudaMemcpy(out[i].data() + o, b.scale, z.scale, cudaMemcpyDeviceToHost)); o += z.scale;
    CK(cudaMemcpy(out[i].data() + o, b.azp, c.rows * 4, cudaMemcpyDeviceToHost)); o += c.rows * 4;
    if (z.res) CK(cudaMemcpy(out[i].data() + o, b.resout, z.res, cudaMemcpyDeviceToHost));
  }
  release(b);
  const bool same = out[0] == out[1];
  printf("check8 %-10s %6lldx%-6lld res%d %s: %s\n", mname(c.mode), (long long)c.rows, (long long)c.cols, c.res, c.out == OutType::kInt8 ? "int8" : "fp8", same ? "same" : "DIFFERENT");
  return same ? 0 : 1;
}

static float time8(Case const& c) {  // time_case's rotation, run8 as the launch
  Sizes z = sizes(c);
  const int nbuf = int(std::min<size_t>(64, std::max<size_t>(2, (400u << 20) / (z.x + z.q + 2 * z.res) + 1)));
  std::vector<Bufs> bs;
  std::vector<uint8_t> hx;
  fill_host(hx, c.in, c.rows, c.cols, c.ldx, 7, false);
  for (int i = 0; i < nbuf; ++i) {
    bs.push_back(alloc(c));
    CK(cudaMemcpy(bs.back().x, hx.data(), z.x, cudaMemcpyHostToDevice));
    if (c.res) CK(cudaMemcpy(bs.back().res, hx.data(), z.res, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(bs.back().w, hx.data(), c.cols * 2, cudaMemcpyHostToDevice));
  }
  float med = batched([&](int i) { run8(c, bs[i % nbuf], 0); });
  for (auto& b : bs) release(b);
  return med;
}

static int rows8() {
  int fails = 0;
  const std::vector<std::pair<int64_t, int64_t>> shapes = {{2048, 4096}, {2048, 8192}, {4096, 8192}, {300, 4096}, {1000, 8192}};
  const RowMode modes[] = {RowMode::kDynamic, RowMode::kDynamicAsym, RowMode::kStatic, RowMode::kRmsNorm, RowMode::kRmsNorm};
  for (auto [m, k] : shapes)
    for (int w = 0; w < 5; ++w)
      for (OutType out : {OutType::kInt8, OutType::kFp8})
        if (!(modes[w] == RowMode::kDynamicAsym && out == OutType::kFp8))
          fails += check8({modes[w], InType::kBFloat16, out, m, k, k, false, false, w == 4});
  printf("ROWS8 CHECKS: %d failed\n", fails);
  const float bw = 2.0f * (1u << 30) / (time_copy(1u << 30, 3) * 1e-6f) / 1e9f;
  printf("\ncopy bandwidth %.0f GB/s; bf16 -> int8, us and %% of the copy floor: library launch vs 8 vectors per thread\n", bw);
  const char* names[] = {"per_token", "asym", "static", "rms_norm", "rms_norm +residual"};
  for (auto [m, k] : std::vector<std::pair<int64_t, int64_t>>{{2048, 4096}, {2048, 8192}, {4096, 8192}})
    for (int w = 0; w < 5; ++w) {
      Case c{modes[w], InType::kBFloat16, OutType::kInt8, m, k, k, false, false, w == 4};
      Sizes z = sizes(c);
      const float floor_us = (z.x + z.q + 2 * z.res) / (bw * 1e3f);
      const float t0 = time_case(kNew, c), t1 = time8(c);
      printf("%6lld %6lld %-20s lib %7.2f us %5.1f%%   x8 %7.2f us %5.1f%%\n", (long long)m, (long long)k, names[w], t0, 100.f * floor_us / t0, t1, 100.f * floor_us / t1);
    }
  return fails;
}

int main() { return rows8(); }
