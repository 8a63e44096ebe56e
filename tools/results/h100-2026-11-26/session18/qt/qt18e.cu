// Session 18 harness e: dynamic per-tensor quantization in two passes (tensor_absmax_kernel, then tensor_apply_kernel
// launched as a programmatic dependent) against the cooperative one-kernel form, through the library's launcher
// (tensor_two_pass_min / _max select the form). 1. every output byte (q, scale) of the two forms over dtypes, output
// types, strides and NaN/inf-poisoned rows; 2. the two-pass form captured in a CUDA graph and replayed; 3. times,
// the forms alternating over rotated copies beyond L2, median of 5 rounds.
// Build: nvcc -std=c++17 -O3 -gencode=arch=compute_90,code=sm_90 qt18e.cu -o qt18e
#define main qt7_main
#include "../../../h100-2026-11-23/session7/qt/qt.cu"
#undef main

static void form(bool two) {
  tensor_two_pass_min() = 0;
  tensor_two_pass_max() = two ? (int64_t{1} << 62) : 0;
}
static std::vector<uint8_t> outputs(Case const& c, Bufs const& b, bool two) {
  form(two);
  Sizes z = sizes(c);
  CK(cudaMemset(b.q, 0x5a, z.q)); CK(cudaMemset(b.scale, 0x5a, 4));
  run(kNew, c, b, 0);
  CK(cudaGetLastError()); CK(cudaDeviceSynchronize());
  std::vector<uint8_t> o(z.q + 4);
  CK(cudaMemcpy(o.data(), b.q, z.q, cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(o.data() + z.q, b.scale, 4, cudaMemcpyDeviceToHost));
  return o;
}
static int check(Case const& c, bool bad) {
  Bufs b = alloc(c);
  Sizes z = sizes(c);
  std::vector<uint8_t> hx;
  fill_host(hx, c.in, c.rows, c.cols, c.ldx, 7, bad);
  CK(cudaMemcpy(b.x, hx.data(), z.x, cudaMemcpyHostToDevice));
  const auto o0 = outputs(c, b, false), o1 = outputs(c, b, true);
  size_t d = 0;
  for (size_t i = 0; i < o0.size(); ++i) d += o0[i] != o1[i];
  float s;
  memcpy(&s, o1.data() + z.q, 4);
  if (d || c.rows * c.cols >= 4000000)
    printf("bytes %-4s->%-4s %6lldx%-6lld ld %-6lld poisoned %d: %s (%zu differ, scale %g)\n", iname(c.in), c.out == OutType::kInt8 ? "int8" : "fp8",
           (long long)c.rows, (long long)c.cols, (long long)c.ldx, bad, d ? "DIFFERENT" : "same", d, s);
  release(b);
  return d ? 1 : 0;
}
static float time_form(Case const& c, std::vector<Bufs> const& bs, bool two) {
  form(two);
  float med = batched([&](int i) { run(kNew, c, bs[i % bs.size()], 0); });
  CK(cudaGetLastError());
  return med;
}

int main() {
  cudaDeviceProp p; CK(cudaGetDeviceProperties(&p, 0));
  printf("device %s, %d SMs\n", p.name, p.multiProcessorCount);
  int fails = 0;
  for (InType in : {InType::kFloat, InType::kHalf, InType::kBFloat16})
    for (OutType out : {OutType::kInt8, OutType::kFp8})
      for (auto [r, k] : std::vector<std::pair<int64_t, int64_t>>{{1, 64}, {16, 4096}, {300, 4096}, {1000, 4104}, {2048, 4096}, {2048, 8192}, {3001, 8200}})
        for (int64_t ld : {k, k + 8, k + 1})
          for (bool bad : {false, true}) {
            if (ld != k && r < 2) continue;
            fails += check({RowMode::kPerTensor, in, out, r, k, ld}, bad);
          }
  printf("BYTE CHECKS: %d failed\n", fails);
  form(true);
  fails += graph_check(2048, 4096) + graph_check(300, 4096);
  fflush(stdout);
  const float bw = 2.0f * (1u << 30) / (time_copy(1u << 30, 3) * 1e-6f) / 1e9f;
  printf("copy bandwidth %.0f GB/s; dynamic per-tensor bf16 -> fp8; us = median of 5 alternating rounds; %% of the copy rate\n", bw);
  for (auto [m, k] : std::vector<std::pair<int64_t, int64_t>>{{16, 8192}, {128, 4096}, {512, 4096}, {1024, 4096}, {2048, 4096}, {4096, 4096},
                                                              {2048, 8192}, {3000, 8192}, {4096, 8192}, {8192, 4096}, {8192, 8192}}) {
    Case c{RowMode::kPerTensor, InType::kBFloat16, OutType::kFp8, m, k, k};
    Sizes z = sizes(c);
    const int nbuf = int(std::min<size_t>(64, std::max<size_t>(2, (400u << 20) / (z.x + z.q) + 1)));
    std::vector<Bufs> bs;
    std::vector<uint8_t> hx;
    fill_host(hx, c.in, c.rows, c.cols, c.ldx, 7, false);
    for (int i = 0; i < nbuf; ++i) { bs.push_back(alloc(c)); CK(cudaMemcpy(bs.back().x, hx.data(), z.x, cudaMemcpyHostToDevice)); }
    float t[2][5];
    for (int i = 0; i < 5; ++i)
      for (int w = 0; w < 2; ++w) t[w][i] = time_form(c, bs, w == 1);
    for (auto& b : bs) release(b);
    std::sort(t[0], t[0] + 5); std::sort(t[1], t[1] + 5);
    const float f = (z.x + z.q + 4) / (bw * 1e3f);
    printf("%5lld x %-5lld (%6.1f MB in)  one kernel %7.2f us %5.1f%%   two passes %7.2f us %5.1f%%   (%+.1f%%)\n", (long long)m, (long long)k,
           z.x / 1e6, t[0][2], 100.f * f / t[0][2], t[1][2], 100.f * f / t[1][2], 100.f * (t[0][2] - t[1][2]) / t[0][2]);
    fflush(stdout);
  }
  return fails ? 1 : 0;
}
