// Session 18 harness (issue 10's quant-kernel line at M >= 2048): the library's quant headers (new) against
// commit ee39c0f's (head18/, namespace cg_quant_head) and against the new ones with plain loads (plain18/,
// namespace cg_quant_plain; bash heads.sh makes both), on session 7's helpers (qt.cu: buffers, NaN/inf-poisoned
// inputs, rotation over copies larger than L2, batched event timing).
// Changes under test: row-kernel loads with L1 policies (input L1::no_allocate, RMSNorm weight nc + evict_last);
// no residency-cap shared memory for kernels whose registers already hold them to the cap (RMSNorm: L1 back);
// the 4-vector kernels hinted to 64 registers (RMSNorm + residual: 78 -> 64, 6 -> 8 CTAs of 128 per SM).
// 1. every output byte of every mode new vs head (poisoned rows included) and plain vs new; 2. times, head / new /
// plain alternating, every mode at the benchmark's shapes.
// Build: bash heads.sh && nvcc -std=c++17 -O3 -gencode=arch=compute_90,code=sm_90 qt18.cu -o qt18
#define main qt7_main
#include "../../../h100-2026-11-23/session7/qt/qt.cu"
#undef main
#define cg_quant cg_quant_head
#include "head18/quant_launch.cuh"
#undef cg_quant
#define cg_quant cg_quant_plain
#include "plain18/quant_launch.cuh"
#undef cg_quant
namespace H = cg_quant_head;
namespace P = cg_quant_plain;

enum Which { kHead = 0, kLib = 1, kPlain = 2 };
static const char* wname(Which w) { return w == kHead ? "head" : w == kLib ? "new" : "plain"; }

template <typename A, typename M, typename I, typename O, typename L>
static void run_ns(Case const& c, Bufs const& b, cudaStream_t s, L&& launch) {
  RowArgs n = new_args(c, b, 16 / esize(c.in));
  A a{};
  static_assert(sizeof(A) == sizeof(RowArgs), "same argument block");
  memcpy(&a, &n, sizeof(a));
  CK(launch(a, static_cast<M>(c.mode), static_cast<I>(c.in), static_cast<O>(c.out), vectorized(c), s));
}
static void run_which(Which w, Case const& c, Bufs const& b, cudaStream_t s) {
  if (w == kLib) run(kNew, c, b, s);
  else if (w == kHead) run_ns<H::RowArgs, H::RowMode, H::InType, H::OutType>(c, b, s, [](auto&&... x) { return H::launch_quant(x...); });
  else run_ns<P::RowArgs, P::RowMode, P::InType, P::OutType>(c, b, s, [](auto&&... x) { return P::launch_quant(x...); });
}

static std::vector<uint8_t> outputs(Case const& c, Bufs const& b, Which w) {
  Sizes z = sizes(c);
  CK(cudaMemset(b.q, 0x5a, z.q)); CK(cudaMemset(b.scale, 0x5a, z.scale)); CK(cudaMemset(b.azp, 0x5a, c.rows * 4));
  CK(cudaMemset(b.resout, 0x5a, z.res + 16));
  run_which(w, c, b, 0);
  CK(cudaDeviceSynchronize());
  const size_t na = c.mode == RowMode::kDynamicAsym ? c.rows * 4 : 0;
  std::vector<uint8_t> o(z.q + z.scale + z.res + na);
  CK(cudaMemcpy(o.data(), b.q, z.q, cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(o.data() + z.q, b.scale, z.scale, cudaMemcpyDeviceToHost));
  if (z.res) CK(cudaMemcpy(o.data() + z.q + z.scale, b.resout, z.res, cudaMemcpyDeviceToHost));
  if (na) CK(cudaMemcpy(o.data() + z.q + z.scale + z.res, b.azp, na, cudaMemcpyDeviceToHost));
  return o;
}

// new vs head and plain vs new: every byte (q, scales, azp, residual out)
static int check3(Case const& c) {
  Bufs b = alloc(c);
  Sizes z = sizes(c);
  std::vector<uint8_t> hx, hr, hw;
  fill_host(hx, c.in, c.rows, c.cols, c.ldx, 7, true);
  CK(cudaMemcpy(b.x, hx.data(), z.x, cudaMemcpyHostToDevice));
  if (c.res) { fill_host(hr, c.in, c.rows, c.cols, c.cols, 9, false); CK(cudaMemcpy(b.res, hr.data(), z.res, cudaMemcpyHostToDevice)); }
  fill_host(hw, c.in, 1, c.cols, c.cols, 11, false);
  CK(cudaMemcpy(b.w, hw.data(), c.cols * esize(c.in), cudaMemcpyHostToDevice));
  const auto oh = outputs(c, b, kHead), on = outputs(c, b, kLib), op = outputs(c, b, kPlain);
  size_t dh = 0, dp = 0;
  for (size_t i = 0; i < oh.size(); ++i) { dh += oh[i] != on[i]; dp += op[i] != on[i]; }
  if (dh || dp || c.rows * c.cols > 1000000)
    printf("bytes %-10s %-4s->%-4s %6lldx%-6lld ld %-6lld azp%d ub%d res%d g%-3d: new vs head %s (%zu), plain vs new %s (%zu)\n", mname(c.mode),
           iname(c.in), c.out == OutType::kInt8 ? "int8" : "fp8", (long long)c.rows, (long long)c.cols, (long long)c.ldx, c.azp, c.ub, c.res,
           c.group, dh ? "DIFFERENT" : "same", dh, dp ? "DIFFERENT" : "same", dp);
  release(b);
  return (dh ? 1 : 0) + (dp ? 1 : 0);
}

static float time_which(Which w, Case const& c) {
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
  float med = batched([&](int i) { run_which(w, c, bs[i % nbuf], 0); });
  CK(cudaGetLastError());
  for (auto& b : bs) release(b);
  return med;
}

struct Row { const char* name; Case c; };
static std::vector<Row> rows_of(int64_t m, int64_t k) {
  return {
      {"per_token int8", {RowMode::kDynamic, InType::kBFloat16, OutType::kInt8, m, k, k}},
      {"asym int8", {RowMode::kDynamicAsym, InType::kBFloat16, OutType::kInt8, m, k, k}},
      {"static int8 (+azp)", {RowMode::kStatic, InType::kBFloat16, OutType::kInt8, m, k, k, true}},
      {"per_tensor fp8", {RowMode::kPerTensor, InType::kBFloat16, OutType::kFp8, m, k, k}},
      {"group int8 g128", {RowMode::kGroup, InType::kBFloat16, OutType::kInt8, m, k, k, false, false, false, 128}},
      {"rmsnorm int8", {RowMode::kRmsNorm, InType::kBFloat16, OutType::kInt8, m, k, k}},
      {"rmsnorm +res int8", {RowMode::kRmsNorm, InType::kBFloat16, OutType::kInt8, m, k, k, false, false, true}},
      {"rmsnorm fp8 f16", {RowMode::kRmsNorm, InType::kHalf, OutType::kFp8, m, k, k}},
  };
}

int main(int argc, char** argv) {
  cudaDeviceProp p; CK(cudaGetDeviceProperties(&p, 0));
  printf("device %s, %d SMs\n", p.name, p.multiProcessorCount);
  const bool quick = argc > 1 && std::string(argv[1]) == "quick";
  int fails = 0;
  const std::vector<std::pair<int64_t, int64_t>> shapes = {{1, 64}, {5, 100}, {37, 1024}, {16, 2048}, {300, 4096}, {64, 8192}, {7, 20000},
                                                           {2048, 4096}, {1000, 4104}, {2048, 8192}, {300, 8192}, {600, 40000}};
  for (InType in : {InType::kFloat, InType::kHalf, InType::kBFloat16})
    for (OutType out : {OutType::kInt8, OutType::kFp8})
      for (auto [r, k] : shapes)
        for (int64_t ld : {k, k + 8, k + 1}) {
          if (ld != k && (r < 2 || r > 400)) continue;
          fails += check3({RowMode::kDynamic, in, out, r, k, ld});
          fails += check3({RowMode::kPerTensor, in, out, r, k, ld});
          if (out == OutType::kInt8) fails += check3({RowMode::kDynamicAsym, in, out, r, k, ld});
          else fails += check3({RowMode::kDynamic, in, out, r, k, ld, false, true});
          fails += check3({RowMode::kStatic, in, out, r, k, ld, true});
          fails += check3({RowMode::kStatic, in, out, r, k, ld, false});
          if (ld % 8 == 0 && k % 8 == 0)
            for (bool res : {false, true}) fails += check3({RowMode::kRmsNorm, in, out, r, k, ld, false, false, res});
          for (int gs : {64, 128}) if (k % gs == 0 && ld % 8 == 0) fails += check3({RowMode::kGroup, in, out, r, k, ld, false, false, false, gs});
        }
  for (OutType out : {OutType::kInt8, OutType::kFp8}) {
    fails += check3({RowMode::kRmsNorm, InType::kBFloat16, out, 4096, 8192, 8192, false, false, true});
    fails += check3({RowMode::kRmsNorm, InType::kHalf, out, 3000, 4096, 4096, false, false, false});
  }
  printf("BYTE CHECKS: %d failed\n", fails);
  fflush(stdout);

  const float bw = 2.0f * (1u << 30) / (time_copy(1u << 30, 3) * 1e-6f) / 1e9f;
  printf("\ncopy bandwidth (1 GiB device-to-device, read + written): %.0f GB/s\n", bw);
  printf("bf16 in unless named; us = median of 3 alternating rounds of batched device time; %% = bytes moved / copy bandwidth / time\n");
  auto floor_of = [&](Case const& c) {
    Sizes z = sizes(c);
    return (z.x + z.q + 2 * z.res + z.scale + (c.mode == RowMode::kRmsNorm ? c.cols * 2 : 0)) / (bw * 1e3f);
  };
  std::vector<std::pair<int64_t, int64_t>> tshapes = {{2048, 4096}, {2048, 8192}, {4096, 4096}, {8192, 8192}, {16, 8192}, {128, 4096}};
  if (quick) tshapes.resize(2);
  for (auto [m, k] : tshapes) {
    printf("%6lld %6lld %-20s %7.2f us (copy of x + q bytes)\n", (long long)m, (long long)k, "memcpy D2D", time_copy((m * k * 3) / 2));
    for (auto& r : rows_of(m, k)) {
      float t[3][3];
      for (int i = 0; i < 3; ++i)
        for (int w = 0; w < 3; ++w) t[w][i] = time_which(static_cast<Which>(w), r.c);
      printf("%6lld %6lld %-20s", (long long)m, (long long)k, r.name);
      const float f = floor_of(r.c);
      for (int w = 0; w < 3; ++w) {
        std::sort(t[w], t[w] + 3);
        printf("  %s %7.2f us %5.1f%%", wname(static_cast<Which>(w)), t[w][1], 100.f * f / t[w][1]);
      }
      printf("  (new vs head %+.1f%%)\n", 100.f * (t[0][1] - t[1][1]) / t[0][1]);
      fflush(stdout);
    }
  }
  return fails ? 1 : 0;
}
