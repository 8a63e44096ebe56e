// Standalone harness for the per-block int8 GEMM (cutlass_gemm/runtime/csrc/bi8_launch.cuh): plain CUDA,
// no torch. 1) checks many shapes against a double reference computed on the host (outputs poisoned
// with NaN before every run; split-K runs twice and must be bitwise equal); 2) times the default kernel
// (and tile / split variants) against the bandwidth floor (small M) and the int8 tensor-core peak (large
// M). See README.md for the build and run commands.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "../../../../cutlass_gemm/runtime/csrc/bi8_launch.cuh"
#include "bi8_wgmma.cuh"  // experimental SM90 variant (checked and timed only on SM90)

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { printf("CUDA error %s at %s:%d\n", cudaGetErrorString(e_), __FILE__, __LINE__); exit(1); } } while (0)
using namespace cg_bi8;
using bf16 = __nv_bfloat16;

static float bits_to_f(uint16_t b, bool is_bf16) {
  if (is_bf16) { uint32_t u = uint32_t(b) << 16; float f; memcpy(&f, &u, 4); return f; }
  __half h; memcpy(&h, &b, 2); return __half2float(h);
}
static uint16_t f_to_bits(float v, bool is_bf16) {
  uint16_t b;
  if (is_bf16) { bf16 h = __float2bfloat16_rn(v); memcpy(&b, &h, 2); }
  else { __half h = __float2half_rn(v); memcpy(&b, &h, 2); }
  return b;
}

static double act_ref(double x, int act) {
  switch (act) {
    case kActRelu: return x > 0 ? x : 0;
    case kActRelu6: return std::min(std::max(x, 0.0), 6.0);
    case kActGeluTanh: return 0.5 * x * (1.0 + std::tanh(0.7978845608028654 * (x + 0.044715 * x * x * x)));
    case kActSilu: return x / (1.0 + std::exp(-x));
    default: return x;
  }
}

struct Case {
  int m, n, k, block;
  bool is_bf16, bias, outliers, pad_lda, sb_transposed;
  int act, force_splits;
  int variant = 0;  // 0: the library's kernel for this M; 1: the experimental wgmma kernel (SM90)
};

static Bi8Kernel wgmma_kernel(bool is_bf16, int block) {
  if (is_bf16) return block == 64 ? cg_bi8_sm90::bi8_wgmma<bf16, 64>() : cg_bi8_sm90::bi8_wgmma<bf16, 128>();
  return block == 64 ? cg_bi8_sm90::bi8_wgmma<__half, 64>() : cg_bi8_sm90::bi8_wgmma<__half, 128>();
}

struct Dev {
  int8_t *a = nullptr, *b = nullptr;
  float *sa = nullptr, *sb = nullptr, *ws = nullptr;
  uint16_t *bias = nullptr, *out = nullptr;
  int* counters = nullptr;
};

static int run_case(Case const& c, std::mt19937_64& rng, int* total) {
  const int kb = c.k / c.block;
  const int64_t lda = c.pad_lda ? c.k + 32 : c.k;
  std::uniform_int_distribution<int> qd(-127, 127);
  std::uniform_real_distribution<float> sd(0.5f, 2.0f);
  std::vector<int8_t> a(size_t(c.m) * lda), w(size_t(c.n) * c.k);
  for (auto& v : a) v = int8_t(qd(rng));
  for (auto& v : w) v = int8_t(qd(rng));
  std::vector<float> sa(size_t(c.m) * kb), sb(size_t(c.n) * kb);  // logical [row][kb]
  for (auto& v : sa) v = sd(rng) * 1e-2f;
  for (auto& v : sb) v = sd(rng) * 1e-3f;
  // outlier channels: some blocks' scales 1e4 times the others (weights up, activations down, so that
  // fp16 outputs stay finite where both meet)
  if (c.outliers)
    for (int i = 0; i < c.n; i += 7) sb[size_t(i) * kb + (i % kb)] *= 1e4f;
  if (c.outliers)
    for (int i = 0; i < c.m; i += 3) sa[size_t(i) * kb + ((i + 1) % kb)] *= 1e-4f;
  std::vector<uint16_t> bias(c.n);
  for (auto& v : bias) v = f_to_bits(sd(rng) - 1.25f, c.is_bf16);
  // scale_b as stored: [n][kb] or transposed [kb][n] (strides allowed)
  std::vector<float> sb_store(sb.size());
  for (int i = 0; i < c.n; ++i)
    for (int j = 0; j < kb; ++j) sb_store[c.sb_transposed ? size_t(j) * c.n + i : size_t(i) * kb + j] = sb[size_t(i) * kb + j];

  Dev d;
  CK(cudaMalloc(&d.a, a.size()));
  CK(cudaMalloc(&d.b, w.size()));
  CK(cudaMalloc(&d.sa, sa.size() * 4));
  CK(cudaMalloc(&d.sb, sb.size() * 4));
  CK(cudaMalloc(&d.bias, bias.size() * 2));
  CK(cudaMalloc(&d.out, size_t(c.m) * c.n * 2));
  CK(cudaMemcpy(d.a, a.data(), a.size(), cudaMemcpyHostToDevice));
  CK(cudaMemcpy(d.b, w.data(), w.size(), cudaMemcpyHostToDevice));
  CK(cudaMemcpy(d.sa, sa.data(), sa.size() * 4, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(d.sb, sb_store.data(), sb.size() * 4, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(d.bias, bias.data(), bias.size() * 2, cudaMemcpyHostToDevice));

  const Bi8Kernel kern = c.variant ? wgmma_kernel(c.is_bf16, c.block) : bi8_select(c.is_bf16, c.block, c.m);
  const Bi8Plan plan = bi8_plan(kern, c.m, c.n, c.k, c.variant ? 1 : c.force_splits);
  if (plan.splits > 1) {
    CK(cudaMalloc(&d.ws, plan.ws_floats * 4));
    CK(cudaMalloc(&d.counters, size_t(plan.mtiles) * plan.ntiles * 4));
    CK(cudaMemset(d.counters, 0, size_t(plan.mtiles) * plan.ntiles * 4));
  }
  Bi8Args args{};
  args.a = d.a; args.lda = lda; args.b = d.b; args.ldb = c.k;
  args.sa = d.sa; args.sa_rs = kb; args.sa_cs = 1;
  args.sb = d.sb; args.sb_rs = c.sb_transposed ? 1 : kb; args.sb_cs = c.sb_transposed ? c.n : 1;
  args.bias = c.bias ? d.bias : nullptr;
  args.out = d.out; args.ldo = c.n;
  args.m = c.m; args.n = c.n; args.k = c.k; args.act = c.act;
  args.workspace = d.ws; args.counters = d.counters;

  std::vector<uint16_t> y1(size_t(c.m) * c.n), y2(y1.size());
  for (int rep = 0; rep < 2; ++rep) {
    CK(cudaMemset(d.out, 0xFF, y1.size() * 2));  // NaN in fp16 and bf16
    CK(launch_bi8_gemm(args, plan, 0));
    CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(rep ? y2.data() : y1.data(), d.out, y1.size() * 2, cudaMemcpyDeviceToHost));
  }
  // reference (double) and per-element check
  int bad = 0;
  double worst = 0;
  for (int i = 0; i < c.m; ++i)
    for (int j = 0; j < c.n; ++j) {
      double s = 0, absum = 0;
      for (int q = 0; q < kb; ++q) {
        int64_t dot = 0;
        const int8_t* ar = a.data() + size_t(i) * lda + size_t(q) * c.block;
        const int8_t* wr = w.data() + size_t(j) * c.k + size_t(q) * c.block;
        for (int t = 0; t < c.block; ++t) dot += int(ar[t]) * int(wr[t]);
        const double term = double(sa[size_t(i) * kb + q]) * double(sb[size_t(j) * kb + q]) * double(dot);
        s += term;
        absum += std::fabs(term);
      }
      if (c.bias) s += bits_to_f(bias[j], c.is_bf16);
      const double ref = act_ref(s, c.act);
      const double got = bits_to_f(y1[size_t(i) * c.n + j], c.is_bf16);
      const double rtol = c.is_bf16 ? 1.0 / 128 : 1.0 / 1024;
      double tol = rtol * std::fabs(ref) + 2e-6 * absum + 1e-3;
      if (c.act == kActGeluTanh) tol += 1e-3 * std::fabs(s);  // tanh.approx.f32
      const double err = std::fabs(got - ref);
      if (!(err <= tol)) {
        if (bad < 3) printf("  mismatch (%d, %d): got %g ref %g tol %g\n", i, j, got, ref, tol);
        ++bad;
      }
      worst = std::max(worst, err / (std::fabs(ref) + 1e-30));
    }
  const bool same = memcmp(y1.data(), y2.data(), y1.size() * 2) == 0;
  printf("CHECK%s m=%d n=%d k=%d B=%d %s bias=%d act=%d outliers=%d lda_pad=%d sbT=%d splits=%d tile=%dx%d: %s%s\n",
         c.variant ? "[wgmma]" : "", c.m, c.n, c.k, c.block, c.is_bf16 ? "bf16" : "fp16", c.bias, c.act, c.outliers, c.pad_lda, c.sb_transposed,
         plan.splits, kern.bm, kern.bn, bad ? "FAIL" : "ok", same ? "" : " NONDETERMINISTIC");
  cudaFree(d.a); cudaFree(d.b); cudaFree(d.sa); cudaFree(d.sb); cudaFree(d.bias); cudaFree(d.out);
  if (d.ws) cudaFree(d.ws);
  if (d.counters) cudaFree(d.counters);
  ++*total;
  return (bad || !same) ? 1 : 0;
}

// ------------------------------------------------------------------------------------ timing
__global__ void sleep_kernel(long long cycles) {
  const long long t0 = clock64();
  while (clock64() - t0 < cycles) {}
}

static double d2d_rate() {  // bytes / s of a 1 GiB device-to-device copy (read + write counted)
  const size_t bytes = size_t(1) << 30;
  void *x, *y;
  CK(cudaMalloc(&x, bytes));
  CK(cudaMalloc(&y, bytes));
  cudaEvent_t e0, e1;
  cudaEventCreate(&e0); cudaEventCreate(&e1);
  CK(cudaMemcpy(y, x, bytes, cudaMemcpyDeviceToDevice));
  std::vector<float> t;
  for (int r = 0; r < 5; ++r) {
    cudaEventRecord(e0);
    cudaMemcpy(y, x, bytes, cudaMemcpyDeviceToDevice);
    cudaEventRecord(e1);
    cudaEventSynchronize(e1);
    float ms; cudaEventElapsedTime(&ms, e0, e1); t.push_back(ms);
  }
  std::sort(t.begin(), t.end());
  cudaFree(x); cudaFree(y);
  return 2.0 * bytes / (t[2] * 1e-3);
}

template <typename T, int kB, int kBM, int kBN, int kWM, int kWN, int kS>
static Bi8Kernel variant() { return bi8_kernel<T, kB, kBM, kBN, kWM, kWN, kS>(); }

static void time_shape(int m, int n, int k, int block, double rate, double peak_tops, bool sm90) {
  const int kb = k / block;
  const size_t wbytes = size_t(n) * k + size_t(n) * kb * 4;
  const int copies = int(std::max<size_t>(1, (size_t(256) << 20) / wbytes + 1));
  std::vector<int8_t*> ws(copies);
  std::vector<float*> sbs(copies);
  for (int i = 0; i < copies; ++i) {
    CK(cudaMalloc(&ws[i], size_t(n) * k));
    CK(cudaMalloc(&sbs[i], size_t(n) * kb * 4));
    CK(cudaMemset(ws[i], 1, size_t(n) * k));
    CK(cudaMemset(sbs[i], 0, size_t(n) * kb * 4));  // zero scales: finite outputs, same work
  }
  int8_t* a; float* sa; void* out; float* wsp; int* cnt;
  CK(cudaMalloc(&a, size_t(m) * k));
  CK(cudaMalloc(&sa, size_t(m) * kb * 4));
  CK(cudaMalloc(&out, size_t(m) * n * 2));
  CK(cudaMemset(a, 1, size_t(m) * k));
  CK(cudaMemset(sa, 0, size_t(m) * kb * 4));
  CK(cudaMalloc(&wsp, size_t(64) << 20));
  CK(cudaMalloc(&cnt, 1 << 20));
  CK(cudaMemset(cnt, 0, 1 << 20));

  struct V { const char* name; Bi8Kernel k; int force; };
  std::vector<V> vs;
  const bool b64 = block == 64;
  vs.push_back({"default", bi8_select(true, block, m), 0});
  vs.push_back({"default-nosplit", bi8_select(true, block, m), 1});
  if (m <= 16) {
    vs.push_back({"16x32 1x2w s4", b64 ? variant<bf16, 64, 16, 32, 1, 2, 4>() : variant<bf16, 128, 16, 32, 1, 2, 4>(), 0});
    vs.push_back({"16x128 1x4w s4", b64 ? variant<bf16, 64, 16, 128, 1, 4, 4>() : variant<bf16, 128, 16, 128, 1, 4, 4>(), 0});
    vs.push_back({"16x64 1x4w s6", b64 ? variant<bf16, 64, 16, 64, 1, 4, 6>() : variant<bf16, 128, 16, 64, 1, 4, 6>(), 0});
  } else if (m >= 1024) {
    vs.push_back({"128x128 2x4w s3", b64 ? variant<bf16, 64, 128, 128, 2, 4, 3>() : variant<bf16, 128, 128, 128, 2, 4, 3>(), 0});
    vs.push_back({"64x128 2x4w s4", b64 ? variant<bf16, 64, 64, 128, 2, 4, 4>() : variant<bf16, 128, 64, 128, 2, 4, 4>(), 0});
    vs.push_back({"128x128 2x2w s4", b64 ? variant<bf16, 64, 128, 128, 2, 2, 4>() : variant<bf16, 128, 128, 128, 2, 2, 4>(), 0});
    if (sm90) vs.push_back({"wgmma 128x128 s4", wgmma_kernel(true, block), 1});
  }
  cudaEvent_t e0, e1;
  cudaEventCreate(&e0); cudaEventCreate(&e1);
  for (auto const& v : vs) {
    const Bi8Plan plan = bi8_plan(v.k, m, n, k, v.force);
    if (plan.ws_floats * 4 > (int64_t(64) << 20)) { printf("TIME skip %s (workspace)\n", v.name); continue; }
    Bi8Args args{};
    args.a = a; args.lda = k; args.sa = sa; args.sa_rs = kb; args.sa_cs = 1;
    args.sb_rs = kb; args.sb_cs = 1; args.out = out; args.ldo = n; args.m = m; args.n = n; args.k = k;
    args.workspace = wsp; args.counters = cnt;
    int it = 0;
    auto call = [&]() {
      args.b = ws[it % copies]; args.sb = sbs[it % copies]; ++it;
      CK(launch_bi8_gemm(args, plan, 0));
    };
    for (int i = 0; i < 10; ++i) call();
    CK(cudaDeviceSynchronize());
    std::vector<float> t;
    const int batch = 20;
    for (int r = 0; r < 7; ++r) {
      sleep_kernel<<<1, 1>>>(2000000);  // the batch queues up behind it: launch gaps do not count
      cudaEventRecord(e0);
      for (int i = 0; i < batch; ++i) call();
      cudaEventRecord(e1);
      CK(cudaEventSynchronize(e1));
      float ms; cudaEventElapsedTime(&ms, e0, e1); t.push_back(ms * 1e3f / batch);
    }
    std::sort(t.begin(), t.end());
    const double us = t[3];
    const double bytes = double(wbytes) + double(m) * k + double(m) * kb * 4 + double(m) * n * 2;
    const double floor_us = bytes / rate * 1e6;
    const double tops = 2.0 * m * n * k / (us * 1e-6) / 1e12;
    printf("TIME m=%d n=%d k=%d B=%d %-18s splits=%2d: %8.2f us  bw-floor %7.2f us (%.0f%% of floor)  %7.1f TOPS (%.0f%% of %.0f)\n",
           m, n, k, block, v.name, plan.splits, us, floor_us, 100.0 * floor_us / us, tops, 100.0 * tops / peak_tops, peak_tops);
  }
  for (int i = 0; i < copies; ++i) { cudaFree(ws[i]); cudaFree(sbs[i]); }
  cudaFree(a); cudaFree(sa); cudaFree(out); cudaFree(wsp); cudaFree(cnt);
}

int main(int argc, char** argv) {
  const std::string what = argc > 1 ? argv[1] : "all";
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  printf("device %s, sm_%d%d, %d SMs\n", prop.name, prop.major, prop.minor, prop.multiProcessorCount);
  if (what == "all" || what == "check") {
    std::mt19937_64 rng(1234);
    int failed = 0, total = 0;
    const int ms[] = {1, 5, 16, 17, 128};
    const int nks[][2] = {{192, 384}, {320, 640}, {100, 192}, {72, 1152}};
    int variant_i = 0;
    for (int m : ms)
      for (auto const& nk : nks)
        for (int block : {64, 128}) {
          if (nk[1] % block) continue;
          for (bool is_bf16 : {true, false}) {
            const int v = variant_i++;
            Case c{m, nk[0], nk[1], block, is_bf16, v % 2 == 0, v % 3 == 0, v % 4 == 1, v % 5 == 2, v % 5, 0};
            failed += run_case(c, rng, &total);
          }
        }
    // split-K forced (determinism across two runs), outliers, every activation
    for (int act = 0; act < 5; ++act)
      failed += run_case(Case{16, 320, 1152, 128, true, true, true, false, false, act, 3}, rng, &total);
    failed += run_case(Case{3, 192, 1344, 64, false, true, true, true, true, 0, 5}, rng, &total);
    failed += run_case(Case{17, 256, 2048, 128, true, false, true, false, false, 0, 4}, rng, &total);
    // large M (several m tiles, partial last tile), both blocks
    failed += run_case(Case{2048, 200, 640, 64, true, true, true, false, false, 0, 0}, rng, &total);
    failed += run_case(Case{2048, 320, 384, 128, false, true, false, true, true, 4, 0}, rng, &total);
    failed += run_case(Case{300, 136, 1152, 128, true, false, true, false, false, 1, 0}, rng, &total);
    if (prop.major == 9) {  // the experimental wgmma kernel: tails, both blocks, both dtypes, activations
      int wf = 0, wt = 0;
      const int wcases[][4] = {{128, 128, 256, 128}, {300, 200, 640, 64}, {2048, 320, 1152, 128}, {17, 72, 384, 128},
                               {129, 136, 192, 64}};
      int v = 0;
      for (auto const& w : wcases)
        for (bool is_bf16 : {true, false}) {
          Case c{w[0], w[1], w[2], w[3], is_bf16, v % 2 == 0, true, v % 3 == 0, v % 4 == 1, v % 5, 1, 1};
          ++v;
          wf += run_case(c, rng, &wt);
        }
      printf("WGMMA CHECKS: %d failed (of %d) (experimental kernel; not counted below)\n", wf, wt);
    }
    printf("CHECKS: %d failed (of %d)\n", failed, total);
    if (failed && what == "check") return 1;
  }
  if (what == "all" || what == "time") {
    const double rate = d2d_rate();
    // dense int8 tensor-core peak used for the percentage: H100 SXM 1979 TOPS (wgmma); mma.sync reaches less
    const double peak = prop.major >= 9 ? 1979.0 : 624.0;
    printf("d2d copy rate %.0f GB/s\n", rate / 1e9);
    const int nks[][2] = {{4096, 4096}, {8192, 8192}, {28672, 4096}, {4096, 14336}};
    for (int m : {1, 16})
      for (auto const& nk : nks)
        for (int block : {128, 64}) time_shape(m, nk[0], nk[1], block, rate, peak, prop.major == 9);
    for (int m : {2048, 4096})
      for (auto const& nk : nks) time_shape(m, nk[0], nk[1], 128, rate, peak, prop.major == 9);
  }
  return 0;
}
