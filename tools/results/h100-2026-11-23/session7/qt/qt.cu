// Session 7 copy of quant_v2/qb.cu: adds checks and times of the per-tensor kernel's shared-memory part
// (tensors larger than the grid's registers). Standalone harness (experiment, not part of the library): the activation-quant kernels of commit
// 6f3f184 (old.cuh) vs the current ones (cutlass_gemm/runtime/csrc/quant_launch.cuh): every output
// byte compared, then device time (CUDA events around batches of 20 calls queued behind a GPU sleep, median of 7 batches, inputs and outputs
// rotated over copies larger than L2) vs a device-to-device copy moving the same bytes.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include <algorithm>
#include <random>
#include <string>
#include "../../quant_v2/old.cuh"  // the kernels of commit 6f3f184, as in quant_v2
#include "../../../../../cutlass_gemm/runtime/csrc/quant_launch.cuh"

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { printf("CUDA error %s at %s:%d\n", cudaGetErrorString(e_), __FILE__, __LINE__); exit(1); } } while (0)
using namespace cg_quant;
namespace O = cg_quant_old;

enum Impl { kOld, kNew, kNew16 };
struct Case {
  RowMode mode; InType in; OutType out; int64_t rows, cols, ldx; bool azp = false, ub = false, res = false; int group = 0;
};
static size_t esize(InType t) { return t == InType::kFloat ? 4 : 2; }
static const char* mname(RowMode m) {
  switch (m) { case RowMode::kDynamic: return "per_token"; case RowMode::kDynamicAsym: return "asym"; case RowMode::kStatic: return "static";
    case RowMode::kPerTensor: return "per_tensor"; case RowMode::kRmsNorm: return "rmsnorm"; case RowMode::kGroup: return "group"; }
  return "?";
}
static const char* iname(InType t) { return t == InType::kFloat ? "f32" : t == InType::kHalf ? "f16" : "bf16"; }

struct Bufs {
  void *x, *q, *res, *resout, *w; float *scale, *sscale, *ub; int32_t *azp, *sazp; unsigned* partials; int* amax;
};

#include <map>
#include <tuple>
static void fill_host_(std::vector<uint8_t>& h, InType t, int64_t rows, int64_t cols, int64_t ld, uint64_t seed, bool bad);
static void fill_host(std::vector<uint8_t>& h, InType t, int64_t rows, int64_t cols, int64_t ld, uint64_t seed, bool bad) {
  static std::map<std::tuple<int, int64_t, int64_t, int64_t, uint64_t, bool>, std::vector<uint8_t>> memo;
  auto key = std::make_tuple(int(t), rows, cols, ld, seed, bad);
  auto it = memo.find(key);
  if (it == memo.end()) { if (memo.size() > 8) memo.clear(); fill_host_(memo[key], t, rows, cols, ld, seed, bad); it = memo.find(key); }
  h = it->second;
}
static void fill_host_(std::vector<uint8_t>& h, InType t, int64_t rows, int64_t cols, int64_t ld, uint64_t seed, bool bad) {
  std::mt19937_64 g(seed); std::normal_distribution<float> n(0.f, 1.f);
  size_t es = esize(t); h.assign(((rows - 1) * ld + cols) * es, 0);
  for (int64_t r = 0; r < rows; ++r) {
    float rs = std::pow(10.f, -3.f + 6.f * (rows > 1 ? float(r) / (rows - 1) : 0.5f));
    for (int64_t c = 0; c < cols; ++c) {
      float v = n(g) * rs + (c == 0 ? 0.5f : 0.f);
      if (rows > 2 && r == 1) v = 0.f;
      if (bad && rows > 4 && r == 0 && c == std::min<int64_t>(3, cols - 1)) v = NAN;
      if (bad && rows > 4 && r == rows - 1 && c == std::min<int64_t>(3, cols - 1)) v = INFINITY;
      uint8_t* p = h.data() + (r * ld + c) * es;
      if (t == InType::kFloat) memcpy(p, &v, 4);
      else if (t == InType::kHalf) { __half hv = __float2half_rn(v); memcpy(p, &hv, 2); }
      else { __nv_bfloat16 bv = __float2bfloat16_rn(v); memcpy(p, &bv, 2); }
    }
  }
}

template <typename TIn, typename TQ, int kVec, O::RowMode kM>
static void old_rows(O::RowArgs const& a, cudaStream_t s) {
  const int64_t nvec = a.cols / kVec;
  if (kVec > 1 && nvec <= 4 * 128) O::row_quant_kernel<TIn, TQ, kVec, 4, 128, kM><<<a.rows, 128, 0, s>>>(a);
  else if (kVec > 1 && nvec <= 4 * 256) O::row_quant_kernel<TIn, TQ, kVec, 4, 256, kM><<<a.rows, 256, 0, s>>>(a);
  else if (kVec > 1 && nvec <= 8 * 512) O::row_quant_kernel<TIn, TQ, kVec, 8, 512, kM><<<a.rows, 512, 0, s>>>(a);
  else O::row_quant_kernel<TIn, TQ, kVec, 0, 512, kM><<<a.rows, 512, 0, s>>>(a);
}

template <typename TIn, typename TQ>
static void run_old_t(Case const& c, Bufs const& b, bool vec, cudaStream_t s) {
  constexpr int V = 16 / sizeof(TIn);
  O::RowArgs a{};
  a.x = b.x; a.ldx = c.ldx; a.q = b.q; a.ldq = c.cols; a.scale_out = b.scale; a.azp_out = b.azp; a.rows = c.rows; a.cols = c.cols;
  a.static_scale = b.sscale; a.static_azp = c.azp ? b.sazp : nullptr; a.scale_ub = c.ub ? b.ub : nullptr;
  a.residual = c.res ? b.res : nullptr; a.ldr = c.cols; a.residual_out = c.res ? b.resout : nullptr; a.norm_weight = b.w; a.eps = 1e-6f;
  a.tensor_amax = reinterpret_cast<const unsigned*>(b.amax);
  if (c.mode == RowMode::kGroup) {
    const int64_t total = c.rows * (c.cols / V); const unsigned blocks = (total + 511) / 512; const int lanes = c.group / V;
    auto* xp = static_cast<const TIn*>(b.x); auto* qp = static_cast<TQ*>(b.q);
    if (lanes == 8) O::group_quant_kernel<TIn, TQ, V, 8, 2><<<blocks, 256, 0, s>>>(xp, c.ldx, qp, b.scale, c.rows, c.cols);
    else if (lanes == 16) O::group_quant_kernel<TIn, TQ, V, 16, 2><<<blocks, 256, 0, s>>>(xp, c.ldx, qp, b.scale, c.rows, c.cols);
    else O::group_quant_kernel<TIn, TQ, V, 32, 2><<<blocks, 256, 0, s>>>(xp, c.ldx, qp, b.scale, c.rows, c.cols);
    return;
  }
  if (c.mode == RowMode::kPerTensor) {
    CK(cudaMemsetAsync(b.amax, 0, 4, s));
    int64_t work = c.rows * (c.cols / (vec ? V : 1));
    unsigned blocks = std::min<int64_t>((work + 255) / 256, 132 * 8);
    if (vec) O::amax_kernel<TIn, V><<<blocks, 256, 0, s>>>(static_cast<const TIn*>(b.x), c.ldx, c.rows, c.cols, reinterpret_cast<unsigned*>(b.amax));
    else O::amax_kernel<TIn, 1><<<blocks, 256, 0, s>>>(static_cast<const TIn*>(b.x), c.ldx, c.rows, c.cols, reinterpret_cast<unsigned*>(b.amax));
  }
  auto go = [&](auto m) {
    constexpr O::RowMode kM = decltype(m)::value;
    if (vec) old_rows<TIn, TQ, V, kM>(a, s); else old_rows<TIn, TQ, 1, kM>(a, s);
  };
  switch (c.mode) {
    case RowMode::kDynamic: go(std::integral_constant<O::RowMode, O::RowMode::kDynamic>{}); break;
    case RowMode::kDynamicAsym: if constexpr (std::is_same_v<TQ, int8_t>) go(std::integral_constant<O::RowMode, O::RowMode::kDynamicAsym>{}); break;
    case RowMode::kStatic: go(std::integral_constant<O::RowMode, O::RowMode::kStatic>{}); break;
    case RowMode::kPerTensor: go(std::integral_constant<O::RowMode, O::RowMode::kPerTensor>{}); break;
    case RowMode::kRmsNorm: go(std::integral_constant<O::RowMode, O::RowMode::kRmsNorm>{}); break;
    default: break;
  }
}

static RowArgs new_args(Case const& c, Bufs const& b, int vec) {
  RowArgs a{};
  a.x = b.x; a.ldx = c.ldx; a.q = b.q; a.ldq = c.cols; a.scale_out = b.scale; a.azp_out = b.azp; a.rows = c.rows; a.cols = c.cols;
  a.static_scale = b.sscale; a.static_azp = c.azp ? b.sazp : nullptr; a.scale_ub = c.ub ? b.ub : nullptr; a.partials = b.partials;
  a.residual = c.res ? b.res : nullptr; a.ldr = c.cols; a.residual_out = c.res ? b.resout : nullptr; a.norm_weight = b.w; a.eps = 1e-6f;
  a.group_lanes = c.group ? c.group / vec : 0;
  return a;
}

static bool vectorized(Case const& c) {
  int64_t v = 16 / esize(c.in);
  return c.cols % v == 0 && c.ldx % v == 0;
}

static void run(Impl impl, Case const& c, Bufs const& b, cudaStream_t s) {
  const bool vec = vectorized(c);
  if (impl == kOld) {
    if (c.in == InType::kFloat) { if (c.out == OutType::kInt8) run_old_t<float, int8_t>(c, b, vec, s); else run_old_t<float, __nv_fp8_e4m3>(c, b, vec, s); }
    else if (c.in == InType::kHalf) { if (c.out == OutType::kInt8) run_old_t<__half, int8_t>(c, b, vec, s); else run_old_t<__half, __nv_fp8_e4m3>(c, b, vec, s); }
    else { if (c.out == OutType::kInt8) run_old_t<__nv_bfloat16, int8_t>(c, b, vec, s); else run_old_t<__nv_bfloat16, __nv_fp8_e4m3>(c, b, vec, s); }
    CK(cudaGetLastError());
    return;
  }
  RowArgs a = new_args(c, b, 16 / esize(c.in));
  if (impl == kNew16) {  // few rows: 4x the threads, one vector each (bf16 in)
    auto one = [&](auto tq, auto m) {
      using TQ = decltype(tq);
      launch_rows<__nv_bfloat16, TQ, 8, decltype(m)::value, 1>(a, s);
    };
    if (c.mode == RowMode::kDynamic && c.out == OutType::kInt8) one(int8_t{}, std::integral_constant<RowMode, RowMode::kDynamic>{});
    else one(int8_t{}, std::integral_constant<RowMode, RowMode::kRmsNorm>{});
    CK(cudaGetLastError());
    return;
  }
  CK(launch_quant(a, c.mode, c.in, c.out, vec, s));
}

struct Sizes { size_t x, q, scale, res; };
static Sizes sizes(Case const& c) {
  size_t es = esize(c.in);
  size_t xs = ((c.rows - 1) * c.ldx + c.cols) * es;
  size_t ns = c.mode == RowMode::kGroup ? c.rows * (c.cols / c.group) : c.mode == RowMode::kPerTensor ? 1 : c.rows;
  return {xs, size_t(c.rows * c.cols), ns * 4, c.res ? size_t(c.rows * c.cols) * es : 0};
}

static Bufs alloc(Case const& c) {
  Bufs b{};
  Sizes z = sizes(c);
  CK(cudaMalloc(&b.x, z.x)); CK(cudaMalloc(&b.q, z.q)); CK(cudaMalloc(&b.scale, z.scale + 4)); CK(cudaMalloc(&b.azp, c.rows * 4 + 4));
  CK(cudaMalloc(&b.res, z.res + 16)); CK(cudaMalloc(&b.resout, z.res + 16)); CK(cudaMalloc(&b.w, c.cols * esize(c.in) + 16));
  CK(cudaMalloc(&b.sscale, 4)); CK(cudaMalloc(&b.sazp, 4)); CK(cudaMalloc(&b.ub, 4)); CK(cudaMalloc(&b.partials, 4096 * 4)); CK(cudaMalloc(&b.amax, 4));
  float ss = 0.037f, ub = 0.5f; int32_t za = -7;
  CK(cudaMemcpy(b.sscale, &ss, 4, cudaMemcpyHostToDevice)); CK(cudaMemcpy(b.ub, &ub, 4, cudaMemcpyHostToDevice)); CK(cudaMemcpy(b.sazp, &za, 4, cudaMemcpyHostToDevice));
  return b;
}
static void release(Bufs& b) {
  for (void* p : {b.x, b.q, (void*)b.scale, (void*)b.azp, b.res, b.resout, b.w, (void*)b.sscale, (void*)b.sazp, (void*)b.ub, (void*)b.partials, (void*)b.amax}) cudaFree(p);
}

static int check(Case const& c) {
  Bufs b = alloc(c);
  Sizes z = sizes(c);
  std::vector<uint8_t> hx, hr, hw;
  fill_host(hx, c.in, c.rows, c.cols, c.ldx, 7, true);
  CK(cudaMemcpy(b.x, hx.data(), z.x, cudaMemcpyHostToDevice));
  if (c.res) { fill_host(hr, c.in, c.rows, c.cols, c.cols, 9, false); CK(cudaMemcpy(b.res, hr.data(), z.res, cudaMemcpyHostToDevice)); }
  fill_host(hw, c.in, 1, c.cols, c.cols, 11, false);
  CK(cudaMemcpy(b.w, hw.data(), c.cols * esize(c.in), cudaMemcpyHostToDevice));
  std::vector<uint8_t> out[2][4];
  for (int i = 0; i < 2; ++i) {
    CK(cudaMemset(b.q, 0x5a, z.q)); CK(cudaMemset(b.scale, 0x5a, z.scale)); CK(cudaMemset(b.azp, 0x5a, c.rows * 4)); CK(cudaMemset(b.resout, 0x5a, z.res + 16));
    run(i == 0 ? kOld : kNew, c, b, 0);
    CK(cudaDeviceSynchronize());
    out[i][0].resize(z.q); CK(cudaMemcpy(out[i][0].data(), b.q, z.q, cudaMemcpyDeviceToHost));
    out[i][1].resize(z.scale); CK(cudaMemcpy(out[i][1].data(), b.scale, z.scale, cudaMemcpyDeviceToHost));
    out[i][2].resize(c.mode == RowMode::kDynamicAsym ? c.rows * 4 : 0); if (!out[i][2].empty()) CK(cudaMemcpy(out[i][2].data(), b.azp, c.rows * 4, cudaMemcpyDeviceToHost));
    out[i][3].resize(z.res); if (z.res) CK(cudaMemcpy(out[i][3].data(), b.resout, z.res, cudaMemcpyDeviceToHost));
  }
  int bad = 0;
  const char* names[4] = {"q", "scale", "azp", "residual_out"};
  for (int k = 0; k < 4; ++k) {
    size_t diff = 0, first = SIZE_MAX;
    for (size_t i = 0; i < out[0][k].size(); ++i) if (out[0][k][i] != out[1][k][i]) { ++diff; if (first == SIZE_MAX) first = i; }
    if (diff) { ++bad; printf("  MISMATCH %s: %zu bytes differ, first at %zu (old %02x new %02x)\n", names[k], diff, first, out[0][k][first], out[1][k][first]); }
  }
  printf("check %-10s %-4s->%-4s %6lldx%-6lld ld %-6lld azp%d ub%d res%d g%-3d vec%d: %s\n", mname(c.mode), iname(c.in), c.out == OutType::kInt8 ? "int8" : "fp8",
         (long long)c.rows, (long long)c.cols, (long long)c.ldx, c.azp, c.ub, c.res, c.group, vectorized(c), bad ? "FAIL" : "same");
  release(b);
  return bad;
}

static float median(std::vector<float> v) { std::sort(v.begin(), v.end()); return v[v.size() / 2]; }
__global__ void spin(long long cycles) { long long t0 = clock64(); while (clock64() - t0 < cycles) {} }
// tools/bench_common.gpu_time_us: batches of `batch` back-to-back calls queued behind a GPU sleep,
// per-call time of each batch, median over batches.
template <typename F>
static float batched(F&& f, int batch = 20, int batches = 7) {
  for (int i = 0; i < 3; ++i) f(i);
  CK(cudaDeviceSynchronize());
  std::vector<float> t;
  cudaEvent_t a, b; CK(cudaEventCreate(&a)); CK(cudaEventCreate(&b));
  int k = 0;
  for (int r = 0; r < batches; ++r) {
    spin<<<1, 1>>>(3000000);
    CK(cudaEventRecord(a, 0));
    for (int i = 0; i < batch; ++i) f(k++);
    CK(cudaEventRecord(b, 0));
    CK(cudaEventSynchronize(b));
    float ms; CK(cudaEventElapsedTime(&ms, a, b)); t.push_back(ms * 1000.f / batch);
  }
  cudaEventDestroy(a); cudaEventDestroy(b);
  return median(t);
}

// Times impl over rotated copies; returns median microseconds.
static float time_case(Impl impl, Case const& c, int reps = 100) {
  Sizes z = sizes(c);
  const size_t per = z.x + z.q + 2 * z.res;
  const int nbuf = int(std::min<size_t>(64, std::max<size_t>(2, (400u << 20) / per + 1)));
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
  float med = batched([&](int i) { run(impl, c, bs[i % nbuf], 0); });
  for (auto& b : bs) release(b);
  return med;
}

static float time_copy(size_t bytes, int reps = 100) {
  const int nbuf = int(std::min<size_t>(64, std::max<size_t>(2, (400u << 20) / (2 * bytes) + 1)));
  std::vector<void*> src(nbuf), dst(nbuf);
  for (int i = 0; i < nbuf; ++i) { CK(cudaMalloc(&src[i], bytes)); CK(cudaMalloc(&dst[i], bytes)); CK(cudaMemset(src[i], 1, bytes)); }
  float med = batched([&](int i) { CK(cudaMemcpyAsync(dst[i % nbuf], src[i % nbuf], bytes, cudaMemcpyDeviceToDevice, 0)); }, reps > 50 ? 20 : 3);
  for (int i = 0; i < nbuf; ++i) { cudaFree(src[i]); cudaFree(dst[i]); }
  return med;
}

// The per-tensor kernel (a cooperative launch) captured in a CUDA graph and replayed: same bytes as eager.
static int graph_check(int64_t rows, int64_t cols) {
  Case c{RowMode::kPerTensor, InType::kBFloat16, OutType::kFp8, rows, cols, cols};
  Bufs b = alloc(c);
  Sizes z = sizes(c);
  std::vector<uint8_t> hx; fill_host(hx, c.in, c.rows, c.cols, c.ldx, 5, false);
  CK(cudaMemcpy(b.x, hx.data(), z.x, cudaMemcpyHostToDevice));
  run(kNew, c, b, 0); CK(cudaDeviceSynchronize());
  std::vector<uint8_t> q0(z.q), q1(z.q); float s0, s1;
  CK(cudaMemcpy(q0.data(), b.q, z.q, cudaMemcpyDeviceToHost)); CK(cudaMemcpy(&s0, b.scale, 4, cudaMemcpyDeviceToHost));
  CK(cudaMemset(b.q, 0x5a, z.q)); CK(cudaMemset(b.scale, 0x5a, 4));
  cudaStream_t s; CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  cudaGraph_t g; cudaGraphExec_t ge;
  CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
  RowArgs a = new_args(c, b, 8);
  cudaError_t le = launch_quant(a, c.mode, c.in, c.out, true, s);
  cudaError_t ce = cudaStreamEndCapture(s, &g);
  printf("graph capture: launch %s, end capture %s\n", cudaGetErrorString(le), cudaGetErrorString(ce));
  if (le != cudaSuccess || ce != cudaSuccess) return 1;
  CK(cudaGraphInstantiate(&ge, g, 0)); CK(cudaGraphLaunch(ge, s)); CK(cudaGraphLaunch(ge, s)); CK(cudaStreamSynchronize(s));
  CK(cudaMemcpy(q1.data(), b.q, z.q, cudaMemcpyDeviceToHost)); CK(cudaMemcpy(&s1, b.scale, 4, cudaMemcpyDeviceToHost));
  bool same = q0 == q1 && memcmp(&s0, &s1, 4) == 0;
  printf("graph replay of the per-tensor kernel %lldx%lld: %s (scale %g)\n", (long long)rows, (long long)cols, same ? "same as eager" : "DIFFERENT", s0);
  release(b);
  return same ? 0 : 1;
}

int main(int argc, char** argv) {
  cudaDeviceProp p; CK(cudaGetDeviceProperties(&p, 0));
  printf("device %s, %d SMs, L2 %d MB\n", p.name, p.multiProcessorCount, p.l2CacheSize >> 20);
  int fails = 0;
  std::vector<std::pair<int64_t, int64_t>> shapes = {{1, 64}, {5, 100}, {37, 1024}, {300, 4096}, {64, 8192}, {7, 20000}, {3, 40000}, {2048, 4096}, {1000, 4104}, {3000, 4096}};
  for (InType in : {InType::kFloat, InType::kHalf, InType::kBFloat16})
    for (OutType out : {OutType::kInt8, OutType::kFp8})
      for (auto [r, k] : shapes) {
        for (int64_t ld : {k, k + 8, k + 1}) {
          if (ld != k && (r < 2 || r > 400)) continue;
          fails += check({RowMode::kDynamic, in, out, r, k, ld});
          fails += check({RowMode::kStatic, in, out, r, k, ld});
          fails += check({RowMode::kPerTensor, in, out, r, k, ld});
          if (out == OutType::kInt8) { fails += check({RowMode::kDynamicAsym, in, out, r, k, ld}); fails += check({RowMode::kStatic, in, out, r, k, ld, true}); }
          else fails += check({RowMode::kDynamic, in, out, r, k, ld, false, true});
          if (ld % 8 == 0 && k % 8 == 0) { fails += check({RowMode::kRmsNorm, in, out, r, k, ld}); fails += check({RowMode::kRmsNorm, in, out, r, k, ld, false, false, true}); }
          for (int gs : {64, 128}) if (k % gs == 0 && ld % 8 == 0) fails += check({RowMode::kGroup, in, out, r, k, ld, false, false, false, gs});
        }
      }
  // Per-tensor tensors beyond the grid's registers (~17 MB): registers + shared memory (bf16 2048x8192,
  // 32 MB), and beyond that too (f32 4096x8192, 128 MB: the rest re-read backwards), strided rows included.
  for (OutType out : {OutType::kInt8, OutType::kFp8}) {
    fails += check({RowMode::kPerTensor, InType::kBFloat16, out, 2048, 8192, 8192});
    fails += check({RowMode::kPerTensor, InType::kHalf, out, 2500, 8200, 8208});
    fails += check({RowMode::kPerTensor, InType::kFloat, out, 4096, 8192, 8192});
    fails += check({RowMode::kPerTensor, InType::kBFloat16, out, 3001, 7777, 7777});
  }
  fails += graph_check(2048, 8192);  // grid barrier + shared memory
  fails += graph_check(300, 4096);  // grid barrier (cooperative launch)
  fails += graph_check(16, 8192);   // one cluster of 4 CTAs
  fails += graph_check(2, 4096);    // one CTA
  printf("CHECKS: %d failed\n", fails);
  if (argc > 1 && std::string(argv[1]) == "check") return fails ? 1 : 0;

  const float bw = 2.0f * (1u << 30) / (time_copy(1u << 30, 3) * 1e-6f) / 1e9f;
  printf("\ncopy bandwidth (1 GiB device-to-device, read + written): %.0f GB/s\n", bw);
  printf("bf16 in; us = median device time; %% = bytes moved / copy bandwidth / time (the benchmark's floor); same-size %% = a copy of the same bytes / time\n");
  printf("%6s %6s %-28s %9s %9s %7s %7s %9s\n", "M", "K", "kernel", "old us", "new us", "old %", "new %", "same-size");
  for (int64_t k : {4096, 8192})
    for (int64_t m : {1, 16, 128, 2048, 8192}) {
      struct R { const char* name; Case c; };
      std::vector<R> rs = {
        {"per_token int8", {RowMode::kDynamic, InType::kBFloat16, OutType::kInt8, m, k, k}},
        {"per_token fp8", {RowMode::kDynamic, InType::kBFloat16, OutType::kFp8, m, k, k}},
        {"per_token_asym int8", {RowMode::kDynamicAsym, InType::kBFloat16, OutType::kInt8, m, k, k}},
        {"static int8", {RowMode::kStatic, InType::kBFloat16, OutType::kInt8, m, k, k}},
        {"per_tensor fp8", {RowMode::kPerTensor, InType::kBFloat16, OutType::kFp8, m, k, k}},
        {"per_group int8 g128", {RowMode::kGroup, InType::kBFloat16, OutType::kInt8, m, k, k, false, false, false, 128}},
        {"rms_norm int8 +residual", {RowMode::kRmsNorm, InType::kBFloat16, OutType::kInt8, m, k, k, false, false, true}},
      };
      for (auto& r : rs) {
        Sizes z = sizes(r.c);
        size_t moved = z.x + z.q + 2 * z.res + (r.c.mode == RowMode::kRmsNorm ? k * 2 : 0);
        float tc = time_copy(moved / 2);
        float to = time_case(kOld, r.c), tn = time_case(kNew, r.c);
        const float floor_us = moved / (bw * 1e3f);
        printf("%6lld %6lld %-28s %9.2f %9.2f %6.1f%% %6.1f%% %8.1f%%\n", (long long)m, (long long)k, r.name, to, tn, 100.f * floor_us / to, 100.f * floor_us / tn, 100.f * tc / tn);
        if (((r.c.mode == RowMode::kDynamic && r.c.out == OutType::kInt8) || r.c.mode == RowMode::kRmsNorm) && m <= 256) {
          float t16 = time_case(kNew16, r.c);
          printf("%6lld %6lld %-28s %9s %9.2f %7s %6.1f%%\n", (long long)m, (long long)k, "  new, 1 vector per thread", "", t16, "", 100.f * moved / (bw * 1e3f) / t16);
        }
      }
      printf("%6lld %6lld %-28s %9.2f (copy of x+q bytes)\n", (long long)m, (long long)k, "memcpy D2D", time_copy((m * k * 3) / 2));
    }
  // The per-tensor kernel with and without its shared-memory part (tensor_smem_vecs_override 0).
  printf("\nper-tensor fp8 / int8, bf16 in: shared memory on (default) vs off; us and %% of the copy floor\n");
  for (auto [m, k] : std::vector<std::pair<int64_t, int64_t>>{{2048, 4096}, {2048, 8192}, {3000, 8192}, {4096, 8192}, {8192, 8192}})
    for (OutType out : {OutType::kFp8, OutType::kInt8}) {
      Case c{RowMode::kPerTensor, InType::kBFloat16, out, m, k, k};
      Sizes z = sizes(c);
      const float floor_us = (z.x + z.q) / (bw * 1e3f);
      tensor_smem_vecs_override() = -1;
      float on = time_case(kNew, c);
      tensor_smem_vecs_override() = 0;
      float off = time_case(kNew, c);
      tensor_smem_vecs_override() = -1;
      float old = time_case(kOld, c);
      printf("%6lld %6lld per_tensor %-4s  smem on %7.2f us %5.1f%%   off %7.2f us %5.1f%%   old %7.2f us %5.1f%%   two-pass floor %5.1f%%\n",
             (long long)m, (long long)k, out == OutType::kFp8 ? "fp8" : "int8", on, 100.f * floor_us / on, off,
             100.f * floor_us / off, old, 100.f * floor_us / old, 100.f * (z.x + z.q) / (2 * z.x + z.q));
    }
  return fails ? 1 : 0;
}
