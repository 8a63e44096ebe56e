// Session 18 harness d: RMSNorm without residual (bf16 -> int8, fp16 -> fp8) with its weight loaded after the sum of
// squares (kLateW: from L1, which every row reads it through) instead of held in registers beside the row: 56 registers
// instead of 64 at the library's hints, 48 without spills at min-blocks 10 / 5 (1280 threads per SM instead of 1024).
// Variants, each a direct launch of the 4-vector exact kernel (128 threads at K = 4096, 256 at 8192):
//   0 lib    the library's launch (weight in registers, 64 registers, 8 / 4 CTAs per SM)
//   1 late   late weight, hints 8 / 4, plain loads
//   2 lateS  late weight, hints 8 / 4, input L1::no_allocate (the weight keeps L1 to itself)
//   3 late10 late weight, hints 10 / 5 (48 registers: 10 / 5 CTAs per SM), plain loads
//   4 lateS10 late weight, hints 10 / 5, input L1::no_allocate
// Bytes of every variant against the library's; times alternating, rotated copies beyond L2, median of 5 rounds.
// Build: nvcc -std=c++17 -O3 -gencode=arch=compute_90,code=sm_90 qt18d.cu -o qt18d
#define main qt7_main
#include "../../../h100-2026-11-23/session7/qt/qt.cu"
#undef main

template <typename TIn, typename TQ, int kThreads, int kMB, Ld kLd>
static void late(Case const& c, Bufs const& b) {
  RowArgs a = new_args(c, b, 8);
  row_quant_kernel<TIn, TQ, 8, 4, kThreads, RowMode::kRmsNorm, kMB, true, false, kLd, true><<<static_cast<unsigned>(c.rows), kThreads, 0, 0>>>(a);
}
template <typename TIn, typename TQ>
static void launch_t(int which, Case const& c, Bufs const& b) {
  constexpr Ld P = Ld::kPlain, S = Ld::kStream;
  if (c.cols == 4096) {
    if (which == 1) late<TIn, TQ, 128, 8, P>(c, b); else if (which == 2) late<TIn, TQ, 128, 8, S>(c, b);
    else if (which == 3) late<TIn, TQ, 128, 10, P>(c, b); else late<TIn, TQ, 128, 10, S>(c, b);
  } else {
    if (which == 1) late<TIn, TQ, 256, 4, P>(c, b); else if (which == 2) late<TIn, TQ, 256, 4, S>(c, b);
    else if (which == 3) late<TIn, TQ, 256, 5, P>(c, b); else late<TIn, TQ, 256, 5, S>(c, b);
  }
}
static void launch(int which, Case const& c, Bufs const& b) {
  if (which == 0) { run(kNew, c, b, 0); return; }
  if (c.in == InType::kBFloat16) launch_t<__nv_bfloat16, int8_t>(which, c, b);
  else launch_t<__half, __nv_fp8_e4m3>(which, c, b);
}
static void init(Case const& c, Bufs& b) {
  Sizes z = sizes(c);
  std::vector<uint8_t> hx, hr, hw;
  fill_host(hx, c.in, c.rows, c.cols, c.ldx, 7, false);
  CK(cudaMemcpy(b.x, hx.data(), z.x, cudaMemcpyHostToDevice));
  if (c.res) { fill_host(hr, c.in, c.rows, c.cols, c.cols, 9, false); CK(cudaMemcpy(b.res, hr.data(), z.res, cudaMemcpyHostToDevice)); }
  fill_host(hw, c.in, 1, c.cols, c.cols, 11, false);
  CK(cudaMemcpy(b.w, hw.data(), c.cols * esize(c.in), cudaMemcpyHostToDevice));
}
static std::vector<uint8_t> out_of(Case const& c, Bufs const& b, int which) {
  Sizes z = sizes(c);
  CK(cudaMemset(b.q, 0x5a, z.q)); CK(cudaMemset(b.scale, 0x5a, z.scale)); CK(cudaMemset(b.resout, 0x5a, z.res + 16));
  launch(which, c, b);
  CK(cudaGetLastError()); CK(cudaDeviceSynchronize());
  std::vector<uint8_t> o(z.q + z.scale + z.res);
  CK(cudaMemcpy(o.data(), b.q, z.q, cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(o.data() + z.q, b.scale, z.scale, cudaMemcpyDeviceToHost));
  if (z.res) CK(cudaMemcpy(o.data() + z.q + z.scale, b.resout, z.res, cudaMemcpyDeviceToHost));
  return o;
}
// rotated copies beyond L2, allocated once per case
static std::vector<Bufs> bufs_for(Case const& c) {
  Sizes z = sizes(c);
  const int nbuf = int(std::min<size_t>(64, std::max<size_t>(2, (400u << 20) / (z.x + z.q + 2 * z.res) + 1)));
  std::vector<Bufs> bs;
  for (int i = 0; i < nbuf; ++i) { bs.push_back(alloc(c)); init(c, bs.back()); }
  return bs;
}
static float time_v(Case const& c, std::vector<Bufs> const& bs, int which) {
  float med = batched([&](int i) { launch(which, c, bs[i % bs.size()]); });
  CK(cudaGetLastError());
  return med;
}

constexpr int kV = 5;
static const char* nm[kV] = {"lib", "late", "lateS", "late10", "lateS10"};
int main() {
  cudaDeviceProp p; CK(cudaGetDeviceProperties(&p, 0));
  printf("device %s, %d SMs\n", p.name, p.multiProcessorCount);
  int fails = 0;
  // bytes, poisoned rows included, odd row counts
  for (InType in : {InType::kBFloat16, InType::kHalf})
    for (auto [m, k] : std::vector<std::pair<int64_t, int64_t>>{{300, 4096}, {2049, 4096}, {1001, 8192}}) {
      Case c{RowMode::kRmsNorm, in, in == InType::kHalf ? OutType::kFp8 : OutType::kInt8, m, k, k};
      Bufs b = alloc(c);
      Sizes z = sizes(c);
      std::vector<uint8_t> hx, hw;
      fill_host(hx, c.in, c.rows, c.cols, c.ldx, 7, true);
      CK(cudaMemcpy(b.x, hx.data(), z.x, cudaMemcpyHostToDevice));
      fill_host(hw, c.in, 1, c.cols, c.cols, 11, false);
      CK(cudaMemcpy(b.w, hw.data(), c.cols * esize(c.in), cudaMemcpyHostToDevice));
      const auto o0 = out_of(c, b, 0);
      for (int w = 1; w < kV; ++w)
        if (out_of(c, b, w) != o0) { printf("bytes %s %lldx%lld %s DIFFERENT\n", iname(in), (long long)m, (long long)k, nm[w]); ++fails; }
      release(b);
    }
  printf("BYTE CHECKS: %d failed\n", fails);
  const float bw = 2.0f * (1u << 30) / (time_copy(1u << 30, 3) * 1e-6f) / 1e9f;
  printf("copy bandwidth %.0f GB/s; RMSNorm without residual; us = median of 5 alternating rounds; %% of the copy rate\n", bw);
  for (InType in : {InType::kBFloat16, InType::kHalf})
    for (auto [m, k] : std::vector<std::pair<int64_t, int64_t>>{{2048, 4096}, {4096, 4096}, {8192, 4096}, {2048, 8192}, {4096, 8192}, {8192, 8192}}) {
      if (in == InType::kHalf && m == 4096) continue;
      Case c{RowMode::kRmsNorm, in, in == InType::kHalf ? OutType::kFp8 : OutType::kInt8, m, k, k};
      float t[kV][5];
      std::vector<Bufs> bs = bufs_for(c);
      for (int i = 0; i < 5; ++i)
        for (int w = 0; w < kV; ++w) t[w][i] = time_v(c, bs, w);
      for (auto& b : bs) release(b);
      Sizes z = sizes(c);
      const float f = (z.x + z.q + z.scale) / (bw * 1e3f);
      printf("%s %5lld x %-5lld", iname(in), (long long)m, (long long)k);
      for (int w = 0; w < kV; ++w) { std::sort(t[w], t[w] + 5); printf("  %s %6.2f us %5.1f%%", nm[w], t[w][2], 100.f * f / t[w][2]); }
      printf("\n");
      fflush(stdout);
    }
  return fails ? 1 : 0;
}
