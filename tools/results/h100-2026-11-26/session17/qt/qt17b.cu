// Session 17 harness b: the row kernels' shape (vectors per thread x threads per CTA, every slot filled: the exact
// variant) and residency cap, per mode, at M >= 2048; bf16 in, int8 out. Timed two ways: rotated over copies larger
// than L2 (cold, as qt17) and on one buffer (L2-warm, as tools/benchmark.py quant). Every variant's bytes are
// compared with the library's launch first (RMSNorm: another shape sums the squares in another order, so its last
// bit may differ; reported, not failed). Build: nvcc -std=c++17 -O3 -gencode=arch=compute_90,code=sm_90 qt17b.cu -o qt17b
#define main qt7_main
#include "../../../h100-2026-11-23/session7/qt/qt.cu"
#undef main

template <RowMode kM, int kCache, int kThreads, bool kRes>
static void launch_shape(Case const& c, Bufs const& b, int cap) {
  RowArgs a = new_args(c, b, 8);
  auto kernel = row_quant_kernel<__nv_bfloat16, int8_t, 8, kCache, kThreads, kM, 1, true, kRes>;
  const int keep = row_threads_per_sm_cap();
  row_threads_per_sm_cap() = cap;
  kernel<<<static_cast<unsigned>(c.rows), kThreads, cap_smem(kernel, kThreads), 0>>>(a);
  row_threads_per_sm_cap() = keep;
}

struct Shape { const char* name; void (*f)(Case const&, Bufs const&, int); int64_t nvec; };
template <RowMode kM, bool kRes>
static std::vector<Shape> shapes_for() {
  return {
      {"1x512", launch_shape<kM, 1, 512, kRes>, 512},   {"2x256", launch_shape<kM, 2, 256, kRes>, 512},
      {"4x128", launch_shape<kM, 4, 128, kRes>, 512},   {"8x64", launch_shape<kM, 8, 64, kRes>, 512},
      {"1x1024", launch_shape<kM, 1, 1024, kRes>, 1024}, {"2x512", launch_shape<kM, 2, 512, kRes>, 1024},
      {"4x256", launch_shape<kM, 4, 256, kRes>, 1024},  {"8x128", launch_shape<kM, 8, 128, kRes>, 1024},
  };
}

static void init(Case const& c, Bufs& b, bool bad) {
  Sizes z = sizes(c);
  std::vector<uint8_t> hx, hw;
  fill_host(hx, c.in, c.rows, c.cols, c.ldx, 7, bad);
  CK(cudaMemcpy(b.x, hx.data(), z.x, cudaMemcpyHostToDevice));
  if (c.res) CK(cudaMemcpy(b.res, hx.data(), z.res, cudaMemcpyHostToDevice));
  fill_host(hw, c.in, 1, c.cols, c.cols, 11, false);
  CK(cudaMemcpy(b.w, hw.data(), c.cols * esize(c.in), cudaMemcpyHostToDevice));
}

static size_t qdiff(Case const& c, Shape const& s) {
  Bufs b = alloc(c);
  init(c, b, true);
  Sizes z = sizes(c);
  std::vector<uint8_t> q0(z.q), q1(z.q);
  CK(cudaMemset(b.q, 0x5a, z.q)); run(kNew, c, b, 0); CK(cudaDeviceSynchronize());
  CK(cudaMemcpy(q0.data(), b.q, z.q, cudaMemcpyDeviceToHost));
  CK(cudaMemset(b.q, 0x5a, z.q)); s.f(c, b, 1024); CK(cudaGetLastError()); CK(cudaDeviceSynchronize());
  CK(cudaMemcpy(q1.data(), b.q, z.q, cudaMemcpyDeviceToHost));
  size_t d = 0;
  for (size_t i = 0; i < z.q; ++i) d += q0[i] != q1[i];
  release(b);
  return d;
}

template <typename F>
static float time_cold(Case const& c, F&& launch) {
  Sizes z = sizes(c);
  const int nbuf = int(std::min<size_t>(64, std::max<size_t>(2, (400u << 20) / (z.x + z.q + 2 * z.res) + 1)));
  std::vector<Bufs> bs;
  for (int i = 0; i < nbuf; ++i) { bs.push_back(alloc(c)); init(c, bs.back(), false); }
  float med = batched([&](int i) { launch(bs[i % nbuf]); });
  CK(cudaGetLastError());
  for (auto& b : bs) release(b);
  return med;
}
template <typename F>
static float time_warm(Case const& c, F&& launch) {
  Bufs b = alloc(c);
  init(c, b, false);
  float med = batched([&](int) { launch(b); });
  CK(cudaGetLastError());
  release(b);
  return med;
}

int main() {
  cudaDeviceProp p; CK(cudaGetDeviceProperties(&p, 0));
  printf("device %s, %d SMs\n", p.name, p.multiProcessorCount);
  const float bw = 2.0f * (1u << 30) / (time_copy(1u << 30, 3) * 1e-6f) / 1e9f;
  printf("copy bandwidth %.0f GB/s; us = median of 3 rounds; %% = bytes moved / copy bandwidth / time\n", bw);
  auto floor_of = [&](Case const& c) {
    Sizes z = sizes(c);
    return (z.x + z.q + 2 * z.res + z.scale + (c.mode == RowMode::kRmsNorm ? c.cols * 2 : 0)) / (bw * 1e3f);
  };
  struct ModeRow { const char* name; RowMode m; bool res; std::vector<Shape> shapes; };
  std::vector<ModeRow> modes = {
      {"per_token", RowMode::kDynamic, false, shapes_for<RowMode::kDynamic, false>()},
      {"asym", RowMode::kDynamicAsym, false, shapes_for<RowMode::kDynamicAsym, false>()},
      {"rmsnorm", RowMode::kRmsNorm, false, shapes_for<RowMode::kRmsNorm, false>()},
      {"rmsnorm+res", RowMode::kRmsNorm, true, shapes_for<RowMode::kRmsNorm, true>()},
  };
  for (auto [m, k] : std::vector<std::pair<int64_t, int64_t>>{{2048, 4096}, {2048, 8192}, {4096, 4096}}) {
    for (auto& mr : modes) {
      Case c{mr.m, InType::kBFloat16, OutType::kInt8, m, k, k, false, false, mr.res};
      float lc[3], lw[3];
      for (int i = 0; i < 3; ++i) { lc[i] = time_case(kNew, c); lw[i] = time_warm(c, [&](Bufs const& b) { run(kNew, c, b, 0); }); }
      std::sort(lc, lc + 3); std::sort(lw, lw + 3);
      const float f = floor_of(c);
      printf("%5lld %5lld %-12s library      cold %7.2f us %5.1f%%  warm %7.2f us %5.1f%%\n", (long long)m, (long long)k, mr.name, lc[1],
             100.f * f / lc[1], lw[1], 100.f * f / lw[1]);
      for (auto& s : mr.shapes) {
        if (s.nvec != k / 8) continue;
        const size_t d = qdiff(c, s);
        for (int cap : {1024, 1536, 2048}) {
          float tc[3], tw[3];
          for (int i = 0; i < 3; ++i) {
            tc[i] = time_cold(c, [&](Bufs const& b) { s.f(c, b, cap); });
            tw[i] = time_warm(c, [&](Bufs const& b) { s.f(c, b, cap); });
          }
          std::sort(tc, tc + 3); std::sort(tw, tw + 3);
          printf("%5lld %5lld %-12s %-6s cap %4d cold %7.2f us %5.1f%%  warm %7.2f us %5.1f%%  (%zu q bytes differ)\n", (long long)m,
                 (long long)k, mr.name, s.name, cap, tc[1], 100.f * f / tc[1], tw[1], 100.f * f / tw[1], d);
        }
      }
    }
  }
  return 0;
}
