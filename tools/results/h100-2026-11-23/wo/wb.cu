// Standalone harness for the weight-only small-M GEMM (cutlass_gemm/runtime/csrc/wo_launch.cuh): plain
// CUDA + cuBLAS, no torch. 1) checks every format (fp16/bf16 x int4/int8 x symmetric/zero point x group
// 32/64/128/per channel) at M = 1, 3, 16, 17, 33, 64 on small odd-but-allowed shapes (auto plan and a
// forced split-K), against a double reference from the unpacked weights; split-K runs twice and must be
// bitwise equal. 2) times the default kernel vs cuBLAS bf16 (cublasGemmEx, what F.linear calls) and a
// few tuning variants. Timing: CUDA events around batches of 20 calls queued behind a GPU sleep, median
// of 7 batches, weights rotated over > 200 MB of copies; floor = (weight + scale bytes) / the rate of a
// 1 GiB cudaMemcpy D2D (read + write) in this process. See README.md for the build command.
#include <cublas_v2.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "../../../../cutlass_gemm/runtime/csrc/wo_launch.cuh"

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { printf("CUDA error %s at %s:%d\n", cudaGetErrorString(e_), __FILE__, __LINE__); exit(1); } } while (0)
using namespace cg_wo;
using bf16 = __nv_bfloat16;

static const int kOrder[8] = {0, 2, 4, 6, 1, 3, 5, 7};
static const int kFrag[4] = {0, 1, 8, 9};

// ------------------------------------------------------------------------------------ host format
struct HostW {  // unpacked weight: stored unsigned u, scales s, zero points z (symmetric: 2^(b-1))
  int n, k, bits, group;  // group 0: per channel
  bool zero;
  std::vector<uint8_t> u;
  std::vector<float> s, z;  // (groups, n), s already rounded to the activation dtype
  int groups() const { return group ? k / group : 1; }
};

template <typename T> static uint16_t to_bits(float v) {
  T h = std::is_same<T, bf16>::value ? T(__float2bfloat16_rn(v)) : T(__float2half_rn(v));
  uint16_t b; memcpy(&b, &h, 2); return b;
}
template <typename T> static float round_t(float v) {
  if (std::is_same<T, bf16>::value) return __bfloat162float(__float2bfloat16_rn(v));
  return __half2float(__float2half_rn(v));
}

template <typename T>
static HostW make_weight(int n, int k, int bits, int group, bool zero, uint64_t seed) {
  HostW w{n, k, bits, group, zero};
  std::mt19937_64 g(seed);
  const int top = 1 << bits;
  w.u.resize((size_t)n * k);
  for (auto& v : w.u) v = (uint8_t)(g() % top);
  w.s.resize((size_t)w.groups() * n);
  w.z.resize(w.s.size());
  std::uniform_real_distribution<float> sd(0.002f, 0.02f);
  for (size_t i = 0; i < w.s.size(); ++i) {
    w.s[i] = round_t<T>(sd(g) * (bits == 4 ? 1.0f : 0.1f));
    w.z[i] = zero ? (float)(g() % (top + 1)) : (float)(top / 2);  // zero points may reach 2^b (GPTQ v1)
  }
  return w;
}

// The layout of cutlass_gemm/quant/prepack.py, written again from its docstring (independent check).
static std::vector<uint32_t> pack_weight(HostW const& w) {
  const int kb_n = w.k / 64, words = w.bits == 4 ? 256 : 512, vecs = w.bits == 4 ? 2 : 4;
  std::vector<uint32_t> out((size_t)(w.n / 32) * kb_n * words);
  for (int nb = 0; nb < w.n / 32; ++nb)
    for (int kb = 0; kb < kb_n; ++kb)
      for (int v = 0; v < vecs; ++v)
        for (int lane = 0; lane < 32; ++lane)
          for (int c = 0; c < 4; ++c) {
            const int wi = v * 4 + c, gq = lane / 4, t = lane % 4;
            uint32_t word = 0;
            for (int p = 0; p < 32 / w.bits; ++p) {
              int t8, step, r;
              if (w.bits == 4) { const int e = kOrder[p]; t8 = wi / 2; step = 2 * (wi % 2) + e / 4; r = e % 4; }
              else { t8 = wi / 4; step = wi % 4; r = p; }
              const int nn = nb * 32 + t8 * 8 + gq, kk = kb * 64 + kFrag[r] + 2 * t + 16 * step;
              word |= (uint32_t)w.u[(size_t)nn * w.k + kk] << (w.bits * p);
            }
            out[((size_t)nb * kb_n + kb) * words + (v * 32 + lane) * 4 + c] = word;
          }
  return out;
}

template <typename T> static std::vector<uint16_t> pack_cols(std::vector<float> const& v, int groups, int n) {
  std::vector<uint16_t> out(v.size());
  for (int gi = 0; gi < groups; ++gi)
    for (int col = 0; col < n; ++col) {
      const int nb = col / 32, pos = col % 32, src = nb * 32 + (pos % 4) * 8 + pos / 4;
      out[(size_t)gi * n + col] = to_bits<T>(v[(size_t)gi * n + src]);
    }
  return out;
}

// ------------------------------------------------------------------------------------ device problem
template <typename T> struct Dev {
  uint32_t* w = nullptr; void *s = nullptr, *z = nullptr, *bias = nullptr, *x = nullptr, *out = nullptr;
  float* ws = nullptr; int* counters = nullptr; int64_t ldx = 0;
  void upload(HostW const& hw, std::vector<uint16_t> const& xh, int m, int64_t ldx_, std::vector<uint16_t> const& bh) {
    auto pw = pack_weight(hw);
    auto ps = pack_cols<T>(hw.s, hw.groups(), hw.n), pz = pack_cols<T>(hw.z, hw.groups(), hw.n);
    CK(cudaMalloc(&w, pw.size() * 4)); CK(cudaMemcpy(w, pw.data(), pw.size() * 4, cudaMemcpyHostToDevice));
    CK(cudaMalloc(&s, ps.size() * 2)); CK(cudaMemcpy(s, ps.data(), ps.size() * 2, cudaMemcpyHostToDevice));
    if (hw.zero) { CK(cudaMalloc(&z, pz.size() * 2)); CK(cudaMemcpy(z, pz.data(), pz.size() * 2, cudaMemcpyHostToDevice)); }
    CK(cudaMalloc(&bias, bh.size() * 2)); CK(cudaMemcpy(bias, bh.data(), bh.size() * 2, cudaMemcpyHostToDevice));
    CK(cudaMalloc(&x, xh.size() * 2)); CK(cudaMemcpy(x, xh.data(), xh.size() * 2, cudaMemcpyHostToDevice));
    CK(cudaMalloc(&out, (size_t)m * hw.n * 2));
    CK(cudaMalloc(&ws, (size_t)kMaxSplits * (hw.n + 128) * kMaxM * 4)); CK(cudaMalloc(&counters, 4096 * 4));
    CK(cudaMemset(counters, 0, 4096 * 4));
    ldx = ldx_;
  }
  void release() { for (void* p : {(void*)w, s, z, bias, x, out, (void*)ws, (void*)counters}) if (p) cudaFree(p); }
  WoArgs args(int m, int n, int k, int group) const {
    WoArgs a{};
    a.x = x; a.ldx = ldx; a.w = w; a.scales = s; a.zeros = z; a.bias = bias; a.out = out; a.ldo = n;
    a.m = m; a.n = n; a.k = k; a.group_shift = group ? __builtin_ctz(group) : kPerChannelShift;
    a.workspace = ws; a.counters = counters;
    return a;
  }
};

// ------------------------------------------------------------------------------------ checks
struct Variant { std::string name; WoKernel k; int splits; };
template <int kBits> static std::vector<Variant> tuning_variants(int m);
static int g_checks = 0, g_failed = 0;

template <typename T>
static void check_case(int bits, bool zero, int group, int m, int n, int k, int force_splits,
                       const WoKernel* variant = nullptr, const char* label = "default") {
  HostW hw = make_weight<T>(n, k, bits, group, zero, 1000 + bits * 7 + zero * 3 + group + n + k);
  std::mt19937_64 g(m * 31 + n);
  std::normal_distribution<float> nd(0.f, 1.f);
  const int64_t ldx = k + 8;  // padded rows: exercises the row stride
  std::vector<uint16_t> xh((size_t)m * ldx, 0), bh(n);
  std::vector<float> xf((size_t)m * k), bf(n);
  for (int r = 0; r < m; ++r)
    for (int c = 0; c < k; ++c) { float v = round_t<T>(nd(g)); xf[(size_t)r * k + c] = v; xh[(size_t)r * ldx + c] = to_bits<T>(v); }
  for (int c = 0; c < n; ++c) { bf[c] = round_t<T>(nd(g) * 0.1f); bh[c] = to_bits<T>(bf[c]); }
  Dev<T> d;
  d.upload(hw, xh, m, ldx, bh);
  const WoKernel kern = variant ? *variant : wo_select(std::is_same<T, bf16>::value ? ActType::kBFloat16 : ActType::kHalf, bits, zero, m);
  const WoPlan plan = wo_plan(kern, n, k, force_splits);
  const WoArgs a = d.args(m, n, k, group);
  std::vector<uint16_t> o1((size_t)m * n), o2(o1.size());
  CK(cudaMemset(d.out, 0xFF, o1.size() * 2));  // poison (NaN)
  CK(launch_wo_gemm(a, plan, 0)); CK(cudaDeviceSynchronize());
  CK(cudaMemcpy(o1.data(), d.out, o1.size() * 2, cudaMemcpyDeviceToHost));
  CK(cudaMemset(d.out, 0xFF, o1.size() * 2));
  CK(launch_wo_gemm(a, plan, 0)); CK(cudaDeviceSynchronize());
  CK(cudaMemcpy(o2.data(), d.out, o2.size() * 2, cudaMemcpyDeviceToHost));
  d.release();
  const int gs = group ? group : k;
  std::vector<double> wd((size_t)n * k);  // exact dequantized weight s * (u - z), double
  for (int c = 0; c < n; ++c)
    for (int kk = 0; kk < k; ++kk) {
      const size_t gi = (size_t)(kk / gs) * n + c;
      wd[(size_t)c * k + kk] = (double)hw.s[gi] * ((double)hw.u[(size_t)c * k + kk] - hw.z[gi]);
    }
  double worst = 0;
  for (int r = 0; r < m; ++r) {  // per-row normwise relative error vs double
    double num = 0, den = 0;
    for (int c = 0; c < n; ++c) {
      double ref = bf[c];
      const float* xr = &xf[(size_t)r * k];
      const double* wr = &wd[(size_t)c * k];
      for (int kk = 0; kk < k; ++kk) ref += (double)xr[kk] * wr[kk];
      uint16_t b = o1[(size_t)r * n + c];
      const double got = std::is_same<T, bf16>::value ? (double)__bfloat162float(*reinterpret_cast<bf16*>(&b))
                                                       : (double)__half2float(*reinterpret_cast<__half*>(&b));
      num += (got - ref) * (got - ref); den += ref * ref;
    }
    worst = std::max(worst, std::isfinite(num) ? std::sqrt(num / std::max(den, 1e-30)) : 1e30);
  }
  const bool same = o1 == o2;
  ++g_checks;
  if (!(worst <= 1e-2) || !same) {
    ++g_failed;
    printf("FAIL %s %s int%d %s g%d M=%d N=%d K=%d splits=%d: rel err %.3g%s\n", label, std::is_same<T, bf16>::value ? "bf16" : "fp16",
           bits, zero ? "zp" : "sym", group, m, n, k, plan.splits, worst, same ? "" : " (runs differ)");
  }
}

static void run_checks() {
  const int ms[] = {1, 3, 16, 17, 33, 64};
  const int shapes[][3] = {{96, 320, 0}, {256, 1152, 0}, {160, 2048, 3}};  // N, K, forced splits (0: auto)
  for (int t = 0; t < 2; ++t)
    for (int bits : {4, 8})
      for (int zero = 0; zero < 2; ++zero)
        for (int group : {32, 64, 128, 0})
          for (auto const& sh : shapes)
            for (int m : ms) {
              if (sh[1] % (group ? group : 1)) continue;
              if (t == 0) check_case<__half>(bits, zero, group, m, sh[0], sh[1], sh[2]);
              else check_case<bf16>(bits, zero, group, m, sh[0], sh[1], sh[2]);
            }
  // the tuning variants (bf16, symmetric: what the timing rows run), so a faster one can become a default
  for (int bits : {4, 8})
    for (int m : {1, 16, 33, 64}) {
      auto vs = bits == 4 ? tuning_variants<4>(m) : tuning_variants<8>(m);
      for (auto const& v : vs)
        for (auto const& sh : shapes) {
          if (m > v.k.rows) continue;
          check_case<bf16>(bits, false, bits == 4 ? (sh[1] % 128 ? 64 : 128) : 0, m, sh[0], sh[1], sh[2], &v.k, v.name.c_str());
        }
    }
  printf("CHECKS: %d failed (of %d)\n", g_failed, g_checks);
}

// ------------------------------------------------------------------------------------ timing
__global__ void sleep_kernel(long long cycles) {
  const long long t0 = clock64();
  while (clock64() - t0 < cycles) {}
}

template <typename F> static double time_us(F&& f) {
  cudaEvent_t e0, e1; CK(cudaEventCreate(&e0)); CK(cudaEventCreate(&e1));
  for (int i = 0; i < 3; ++i) f();
  CK(cudaDeviceSynchronize());
  std::vector<double> v;
  for (int b = 0; b < 7; ++b) {
    sleep_kernel<<<1, 1>>>(2000000);
    CK(cudaEventRecord(e0));
    for (int i = 0; i < 20; ++i) f();
    CK(cudaEventRecord(e1)); CK(cudaEventSynchronize(e1));
    float ms; CK(cudaEventElapsedTime(&ms, e0, e1)); v.push_back(ms * 1e3 / 20);
  }
  CK(cudaGetLastError());
  std::sort(v.begin(), v.end());
  cudaEventDestroy(e0); cudaEventDestroy(e1);
  return v[3];
}

static double copy_gbps() {
  const size_t nb = size_t(1) << 30;
  void *a, *b; CK(cudaMalloc(&a, nb)); CK(cudaMalloc(&b, nb)); CK(cudaMemset(a, 1, nb));
  double us = time_us([&] { cudaMemcpyAsync(b, a, nb, cudaMemcpyDeviceToDevice); });
  cudaFree(a); cudaFree(b);
  return 2.0 * nb / us / 1e3;
}

#include "wb_variants.inc"

#ifndef WB_NO_MAIN
int main(int argc, char** argv) {
  const bool only_checks = argc > 1 && std::string(argv[1]) == "checks";
  const bool only_time = argc > 1 && std::string(argv[1]) == "time";
  cudaDeviceProp prop; CK(cudaGetDeviceProperties(&prop, 0));
  printf("device: %s, %d SMs\n", prop.name, prop.multiProcessorCount);
  if (!only_time) run_checks();
  if (!only_checks) run_timing();
  return 0;
}
#endif
