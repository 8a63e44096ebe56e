// Session 23 harness: dynamic per-tensor quantization beyond 8 MiB (the cooperative one-kernel range).
// 1. bytes: the bulk-copy kernel (bulk23.cuh) against the library's launcher, f32/f16/bf16 -> int8/fp8, clean and
//    NaN/inf-poisoned inputs, each launch setting; 2. times (bf16 -> fp8, rotated copies beyond L2, median of 5
//    alternating rounds): library; the library kernel without its barrier / without its stores (phase costs);
//    bulk kernel settings; a device copy of the same bytes.
// Build: nvcc -std=c++17 -O3 -gencode=arch=compute_90a,code=sm_90a qt23.cu -o qt23
#define main qt7_main
#include "../../../h100-2026-11-23/session7/qt/qt.cu"
#undef main
#include "bulk23.cuh"

enum W { kLib, kNoSync, kNoStore, kReadOnly, kBulkSmem, kBulkRegs, kBulkRegsOnly, kBulkSmall, kNW };
static const char* wname[kNW] = {"library", "lib no barrier", "lib no stores", "lib reads only", "bulk smem-first 32K",
                                 "bulk regs-first 32K", "bulk regs only", "bulk smem-first 8K"};

template <typename TIn, typename TQ>
static void run_w_t(W w, RowArgs const& a, cudaStream_t s) {
  constexpr int kV = 16 / sizeof(TIn);
  switch (w) {
    case kNoSync: CK((s23::launch_probe<TIn, TQ, kV, false, true>(a, s))); break;
    case kNoStore: CK((s23::launch_probe<TIn, TQ, kV, true, false>(a, s))); break;
    case kReadOnly: CK((s23::launch_probe<TIn, TQ, kV, false, false>(a, s))); break;
    case kBulkSmem: CK((s23::launch_bulk<TIn, TQ, kV>(a, s, -1, 32768, false))); break;
    case kBulkRegs: CK((s23::launch_bulk<TIn, TQ, kV>(a, s, -1, 32768, true))); break;
    case kBulkRegsOnly: CK((s23::launch_bulk<TIn, TQ, kV>(a, s, 0, 32768, false))); break;
    case kBulkSmall: CK((s23::launch_bulk<TIn, TQ, kV>(a, s, -1, 8192, false))); break;
    default: break;
  }
}
static void run_w(W w, Case const& c, Bufs const& b, cudaStream_t s) {
  if (w == kLib) { run(kNew, c, b, s); return; }
  RowArgs a = new_args(c, b, 16 / esize(c.in));
  if (c.in == InType::kFloat) { if (c.out == OutType::kInt8) run_w_t<float, int8_t>(w, a, s); else run_w_t<float, __nv_fp8_e4m3>(w, a, s); }
  else if (c.in == InType::kHalf) { if (c.out == OutType::kInt8) run_w_t<__half, int8_t>(w, a, s); else run_w_t<__half, __nv_fp8_e4m3>(w, a, s); }
  else { if (c.out == OutType::kInt8) run_w_t<__nv_bfloat16, int8_t>(w, a, s); else run_w_t<__nv_bfloat16, __nv_fp8_e4m3>(w, a, s); }
}

static std::vector<uint8_t> outputs(W w, Case const& c, Bufs const& b) {
  Sizes z = sizes(c);
  CK(cudaMemset(b.q, 0x5a, z.q)); CK(cudaMemset(b.scale, 0x5a, 4));
  run_w(w, c, b, 0);
  CK(cudaGetLastError()); CK(cudaDeviceSynchronize());
  std::vector<uint8_t> o(z.q + 4);
  CK(cudaMemcpy(o.data(), b.q, z.q, cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(o.data() + z.q, b.scale, 4, cudaMemcpyDeviceToHost));
  return o;
}
static int check_bulk(Case const& c, bool bad) {
  Bufs b = alloc(c);
  Sizes z = sizes(c);
  std::vector<uint8_t> hx;
  fill_host(hx, c.in, c.rows, c.cols, c.ldx, 7, bad);
  CK(cudaMemcpy(b.x, hx.data(), z.x, cudaMemcpyHostToDevice));
  const auto ref = outputs(kLib, c, b);
  int fails = 0;
  for (W w : {kBulkSmem, kBulkRegs, kBulkRegsOnly, kBulkSmall}) {
    const auto o = outputs(w, c, b);
    size_t d = 0;
    for (size_t i = 0; i < o.size(); ++i) d += o[i] != ref[i];
    float s; memcpy(&s, o.data() + z.q, 4);
    printf("bytes %-4s->%-4s %6lldx%-6lld poisoned %d %-20s: %s (%zu differ, scale %g)\n", iname(c.in), c.out == OutType::kInt8 ? "int8" : "fp8",
           (long long)c.rows, (long long)c.cols, bad, wname[w], d ? "DIFFERENT" : "same", d, s);
    fails += d != 0;
  }
  release(b);
  return fails;
}

int main(int argc, char** argv) {
  cudaDeviceProp p; CK(cudaGetDeviceProperties(&p, 0));
  printf("device %s, %d SMs, L2 %d MB, smem/SM %zu, optin %zu\n", p.name, p.multiProcessorCount, p.l2CacheSize >> 20,
         p.sharedMemPerMultiprocessor, p.sharedMemPerBlockOptin);
  int fails = 0;
  for (InType in : {InType::kFloat, InType::kHalf, InType::kBFloat16})
    for (OutType out : {OutType::kInt8, OutType::kFp8})
      for (auto [r, k] : std::vector<std::pair<int64_t, int64_t>>{{1024, 4096}, {2048, 8192}, {3001, 8200}, {4096, 8192}})
        for (bool bad : {false, true}) {
          if (in == InType::kFloat && r == 4096) continue;
          fails += check_bulk({RowMode::kPerTensor, in, out, r, k, k}, bad);
        }
  printf("BYTE CHECKS: %d failed\n", fails);
  fflush(stdout);
  const float bw = 2.0f * (1u << 30) / (time_copy(1u << 30, 3) * 1e-6f) / 1e9f;
  printf("copy bandwidth %.0f GB/s; bf16 -> fp8; us = median of 5 alternating rounds; %% = copy floor (x + q bytes at that rate) / time\n", bw);
  const bool quick = argc > 1;
  for (auto [m, k] : std::vector<std::pair<int64_t, int64_t>>{{1024, 4096}, {2048, 4096}, {4096, 4096}, {2048, 8192}, {3000, 8192}, {4096, 8192},
                                                              {8192, 4096}, {8192, 8192}}) {
    Case c{RowMode::kPerTensor, InType::kBFloat16, OutType::kFp8, m, k, k};
    Sizes z = sizes(c);
    const int nbuf = int(std::min<size_t>(64, std::max<size_t>(2, (400u << 20) / (z.x + z.q) + 1)));
    std::vector<Bufs> bs;
    std::vector<uint8_t> hx;
    fill_host(hx, c.in, c.rows, c.cols, c.ldx, 7, false);
    for (int i = 0; i < nbuf; ++i) { bs.push_back(alloc(c)); CK(cudaMemcpy(bs.back().x, hx.data(), z.x, cudaMemcpyHostToDevice)); }
    std::vector<float> t[kNW];
    for (int i = 0; i < (quick ? 3 : 5); ++i)
      for (int w = 0; w < kNW; ++w) t[w].push_back(batched([&](int j) { run_w(W(w), c, bs[j % bs.size()], 0); }));
    for (auto& b : bs) release(b);
    const float cp = time_copy((z.x + z.q) / 2);
    const float f = (z.x + z.q) / (bw * 1e3f);
    printf("%5lld x %-5lld (%6.1f MB in)  floor %6.2f us  same-size copy %7.2f us (%5.1f%%)\n", (long long)m, (long long)k, z.x / 1e6, f, cp, 100.f * f / cp);
    for (int w = 0; w < kNW; ++w) {
      const float med = median(t[w]);
      printf("    %-22s %8.2f us  %5.1f%% of floor  %5.1f%% of same-size copy\n", wname[w], med, 100.f * f / med, 100.f * cp / med);
    }
    fflush(stdout);
  }
  return fails ? 1 : 0;
}
