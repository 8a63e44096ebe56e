// Eager fast path for cutlass_gemm ops: the common, valid call is checked, planned and launched in
// C++, so a decode-step GEMM costs one pybind call. Anything unusual (a plan not yet made, an
// unusual layout, an invalid argument) returns None and the Python path handles it: it raises the
// typed errors, builds and loads kernels, and registers the plans this file looks up.
#include <torch/extension.h>
#include <c10/cuda/CUDAStream.h>
#include <c10/cuda/CUDAGuard.h>

#include <cstdint>
#include <mutex>
#include <unordered_map>

#include "alloc.h"
#include "bi8_ops.h"
#include "conv_fast.h"
#include "gemm_plans.h"
#include "gemv_w8a8.h"
#include "pad_rows.h"
#include "quant_ops.h"
#include "w8a8_fast.h"
#include "wo_mixed_fast.h"
#include "wo_ops.h"

namespace {

using namespace cg;

bool has_bias(int v) { return v == kScaledBias || v == kScaledAzp || v == kScaledAzpPerToken; }
bool per_tensor_azp(int v) { return v == kScaledAzp || v == kScaledAzpNoBias; }
bool per_token_azp(int v) { return v == kScaledAzpPerToken || v == kScaledAzpPerTokenNoBias; }

struct PlanKeyHash {
  size_t operator()(PlanKey const& k) const {
    uint64_t h = static_cast<uint64_t>(k.m) * 0x9E3779B97F4A7C15ull ^ static_cast<uint64_t>(k.n) * 0xC2B2AE3D27D4EB4Full ^
                 static_cast<uint64_t>(k.k) * 0x165667B19E3779F9ull;
    h ^= (static_cast<uint64_t>(k.device) << 40) ^ (static_cast<uint64_t>(k.code) << 32) ^
         (static_cast<uint64_t>(k.a_dtype) << 24) ^ (static_cast<uint64_t>(k.out_dtype) << 16) ^
         (static_cast<uint64_t>(k.scale_a_vector) << 8) ^ static_cast<uint64_t>(k.scale_b_vector);
    return static_cast<size_t>(h);
  }
};

std::mutex g_mutex;
std::unordered_map<PlanKey, Plan, PlanKeyHash> g_plans;

void register_plan(int device, int code, at::ScalarType a_dtype, at::ScalarType out_dtype, bool scale_a_vector,
                   bool scale_b_vector, int64_t m, int64_t n, int64_t k, int64_t fn, bool expand_a, bool expand_b,
                   int64_t workspace_size_fn, int64_t scale_flags, int64_t pad_rows) {
  std::lock_guard<std::mutex> lock(g_mutex);
  if (g_plans.size() > (1u << 14)) g_plans.clear();
  g_plans[PlanKey{device, code, static_cast<int>(a_dtype), static_cast<int>(out_dtype), scale_a_vector,
                  scale_b_vector, m, n, k}] = Plan{reinterpret_cast<LaunchFn>(fn), expand_a, expand_b,
                                  static_cast<int>(scale_flags), reinterpret_cast<WorkspaceSizeFn>(workspace_size_fn),
                                  pad_rows > m ? pad_rows : 0};
}

void clear_plans() {
  std::lock_guard<std::mutex> lock(g_mutex);
  g_plans.clear();
}

}  // namespace

namespace cg {

bool find_plan(PlanKey const& key, Plan* plan) {
  std::lock_guard<std::mutex> lock(g_mutex);
  auto it = g_plans.find(key);
  if (it == g_plans.end()) return false;
  *plan = it->second;
  return true;
}

int launch_plan(Plan const& plan, GemmArgs const& g, int device, cudaStream_t stream) {
  const int64_t rows = g.m_padded > g.m ? g.m_padded : g.m;  // the rows the kernel computes (its workspace's)
  size_t ws_bytes = plan.workspace_size ? plan.workspace_size(rows, g.n, g.k) : 0;
  at::Tensor ws;  // the launcher zeroes what CUTLASS needs zeroed with a cudaMemsetAsync on `stream`
  if (ws_bytes > 0) ws = empty_dev({static_cast<int64_t>(ws_bytes)}, at::kByte, device);
  return plan.fn(g.a, g.b, g.d, g.m, g.n, g.k, g.lda, g.ldb, g.ldd, g.scale_a, g.scale_b, g.azp, g.azp_adj_per_token,
                 g.azp_adj_per_tensor, g.bias, ws_bytes ? ws.data_ptr() : nullptr, ws_bytes, stream, plan.scale_flags,
                 g.m_padded);
}

bool aligned16(void const* p) { return (reinterpret_cast<uintptr_t>(p) & 15u) == 0; }

int scale_kind(at::Tensor const& s, int64_t len, bool column, int device) {
  if (!s.is_cuda() || s.get_device() != device || s.scalar_type() != at::kFloat || s.dim() > 2) return 0;
  if (s.numel() == 1) return 1;
  if (!s.is_contiguous() || s.numel() != len) return 0;
  if (s.dim() == 1) return 2;
  return (column ? (s.size(0) == len && s.size(1) == 1) : (s.size(0) == 1 && s.size(1) == len)) ? 2 : 0;
}

bool row_vector(c10::optional<at::Tensor> const& t, int64_t len, at::ScalarType dtype, int device) {
  if (!t.has_value()) return true;
  at::Tensor const& v = *t;
  return v.is_cuda() && v.get_device() == device && v.scalar_type() == dtype && v.is_contiguous() &&
         v.numel() == len && (v.dim() == 1 || (v.dim() == 2 && v.size(0) == 1));
}

constexpr int64_t kSizeLimit = int64_t{1} << 31;
bool fits32(int64_t v) { return v >= 0 && v < kSizeLimit; }

}  // namespace cg

namespace {

using namespace cg;

bool col_vector(c10::optional<at::Tensor> const& t, int64_t len, at::ScalarType dtype, int device) {
  if (!t.has_value()) return true;
  at::Tensor const& v = *t;
  return v.is_cuda() && v.get_device() == device && v.scalar_type() == dtype && v.is_contiguous() &&
         v.numel() == len && (v.dim() == 1 || (v.dim() == 2 && v.size(1) == 1));
}

// Whether the bytes `out` may write intersect the bytes `t` may read (both real CUDA tensors).
bool overlaps(at::Tensor const& out, c10::optional<at::Tensor> const& t) {
  if (!t.has_value() || !t->defined() || t->numel() == 0 || out.numel() == 0) return false;
  auto span = [](at::Tensor const& x) {
    int64_t extent = 1;
    for (int64_t d = 0; d < x.dim(); ++d) extent += (x.size(d) - 1) * x.stride(d);
    auto begin = reinterpret_cast<uintptr_t>(x.data_ptr());
    return std::make_pair(begin, begin + static_cast<uintptr_t>(extent * x.element_size()));
  };
  auto o = span(out);
  auto s = span(*t);
  return s.first < o.second && o.first < s.second;
}

}  // namespace

namespace cg {

// A call whose plan runs on whole M tiles (plan.pad_rows rows): A, a per-token scale_a and per-token zero points are
// copied into one zero-padded byte buffer in one launch, and the kernel computes pad_rows rows from it and writes the
// output's M rows only (GemmArgs::m_padded), straight into the caller's `out` when given. The plan was made for this
// (the kernel chosen for pad_rows rows); the SM90 kernels never expand a scale (plan.expand_a / expand_b are false).
py::object run_padded(Plan const& plan, int variant, at::Tensor const& a, at::Tensor const& b, at::Tensor const& scale_a,
                      at::Tensor const& scale_b, at::ScalarType out_dtype, c10::optional<at::Tensor> const& bias,
                      c10::optional<at::Tensor> const& azp_adj, c10::optional<at::Tensor> const& azp,
                      c10::optional<at::Tensor> const& out, int64_t m, int64_t n, int64_t k, int64_t lda, int64_t ldb,
                      bool scale_a_rows, int device) {
  if (plan.expand_a || plan.expand_b) return py::none();
  const int64_t rows = plan.pad_rows;
  const bool azp_rows = per_token_azp(variant);
  const int64_t a_bytes = round256(rows * k), s_bytes = scale_a_rows ? round256(rows * 4) : 0;
  at::Tensor buf = empty_dev({a_bytes + s_bytes + (azp_rows ? round256(rows * 4) : 0)}, at::kByte, device);
  char* base = static_cast<char*>(buf.data_ptr());
  PadJob jobs[3];
  int count = 0;
  jobs[count++] = PadJob{a.data_ptr(), base, m, k, lda, rows, k, k};  // int8 / e4m3: one byte per element
  if (scale_a_rows) jobs[count++] = PadJob{scale_a.data_ptr(), base + a_bytes, 1, m * 4, m * 4, 1, rows * 4, rows * 4};
  if (azp_rows) jobs[count++] = PadJob{azp->data_ptr(), base + a_bytes + s_bytes, 1, m * 4, m * 4, 1, rows * 4, rows * 4};
  cudaStream_t stream = c10::cuda::getCurrentCUDAStream(device).stream();
  if (pad_launch(jobs, count, device, stream) != cudaSuccess) return py::none();  // Python repeats it and raises
  at::Tensor result = out.has_value() ? *out : empty_dev({m, n}, out_dtype, device);
  void const* adj = azp_adj.has_value() ? azp_adj->data_ptr() : nullptr;
  GemmArgs g{base, b.data_ptr(), result.data_ptr(), m, n, k, k, ldb, m > 1 ? result.stride(0) : n,
             scale_a_rows ? static_cast<void const*>(base + a_bytes) : scale_a.data_ptr(), scale_b.data_ptr(),
             azp_rows ? static_cast<void const*>(base + a_bytes + s_bytes) : nullptr,
             azp_rows ? adj : nullptr, per_tensor_azp(variant) ? adj : nullptr,
             bias.has_value() ? bias->data_ptr() : nullptr, rows};
  int rc = launch_plan(plan, g, device, stream);
  if (rc != 0) return py::int_(rc);
  return py::cast(result);
}

// Returns the output tensor, None when the Python path must take the call, or an int error code
// from the kernel's launcher (Python turns it into KernelLaunchError with the launcher's message).
py::object run(int code, at::Tensor const& a, at::Tensor const& b, at::Tensor const& scale_a,
               at::Tensor const& scale_b, at::ScalarType out_dtype, c10::optional<at::Tensor> const& bias,
               c10::optional<at::Tensor> const& azp_adj, c10::optional<at::Tensor> const& azp,
               c10::optional<at::Tensor> const& out) {
  int variant = code & ((1 << kActivationShift) - 1);
  if (code < 0 || variant >= kNumVariants || (code >> kActivationShift) >= kNumActivations) return py::none();
  // The variant must match the arguments (a bias exactly when the kernel reads one): never a kernel
  // that would ignore a given tensor or read a missing one.
  if (has_bias(variant) != bias.has_value()) return py::none();
  // Every tensor argument must be a CUDA tensor (a CPU or meta one goes to Python, which names it).
  if (!a.is_cuda() || !b.is_cuda() || !scale_a.is_cuda() || !scale_b.is_cuda()) return py::none();
  for (auto const* t : {&bias, &azp_adj, &azp, &out})
    if (t->has_value() && !(*t)->is_cuda()) return py::none();
  if (a.dim() != 2 || b.dim() != 2) return py::none();
  at::ScalarType dt = a.scalar_type();
  if ((dt != at::kChar && dt != at::kFloat8_e4m3fn) || b.scalar_type() != dt) return py::none();
  if (out_dtype != at::kBFloat16 && out_dtype != at::kHalf) return py::none();
  int device = a.get_device();
  if (!b.is_cuda() || b.get_device() != device) return py::none();
  int64_t m = a.size(0), k = a.size(1), n = b.size(1);
  if (b.size(0) != k || m == 0 || n == 0 || k == 0 || k % 16 || n % 8) return py::none();
  if (a.stride(1) != 1 || b.stride(0) != 1) return py::none();
  int64_t lda = m > 1 ? a.stride(0) : k, ldb = b.stride(1);
  if (lda < k || lda % 16 || ldb < k || ldb % 16) return py::none();
  if (!fits32(m) || !fits32(n) || !fits32(k) || !fits32(lda) || !fits32(ldb)) return py::none();
  if (!aligned16(a.data_ptr()) || !aligned16(b.data_ptr())) return py::none();
  int sa = scale_kind(scale_a, m, true, device), sb = scale_kind(scale_b, n, false, device);
  if (sa == 0 || sb == 0) return py::none();
  if (m == 1 && sa == 1 && sb == 2) sa = 2;  // one row: the scalar is its per-token scale (as ops/gemm.py _plan)
  if (!row_vector(bias, n, out_dtype, device)) return py::none();
  bool with_azp = per_tensor_azp(variant) || per_token_azp(variant);
  if (with_azp != azp_adj.has_value() || per_token_azp(variant) != azp.has_value()) return py::none();
  if (with_azp && (dt != at::kChar || !row_vector(azp_adj, n, at::kInt, device) || !col_vector(azp, m, at::kInt, device)))
    return py::none();
  if (out.has_value()) {
    at::Tensor const& o = *out;
    if (!o.is_cuda() || o.get_device() != device || o.scalar_type() != out_dtype || o.dim() != 2 ||
        o.size(0) != m || o.size(1) != n || o.stride(1) != 1 || (m > 1 && (o.stride(0) < n || o.stride(0) % 8)) ||
        !aligned16(o.data_ptr()) || !fits32(m > 1 ? o.stride(0) : n))
      return py::none();
    // an output that overlaps an input: Python raises InvalidArgumentError("out", ...)
    if (overlaps(o, a) || overlaps(o, b) || overlaps(o, scale_a) || overlaps(o, scale_b) || overlaps(o, bias) ||
        overlaps(o, azp_adj) || overlaps(o, azp))
      return py::none();
  }
  Plan plan;
  if (!find_plan(PlanKey{device, code, static_cast<int>(dt), static_cast<int>(out_dtype), sa == 2, sb == 2, m, n, k},
                 &plan))
    return py::none();
  c10::cuda::OptionalCUDAGuard guard;
  if (c10::cuda::current_device() != device) guard.set_index(device);
  if (plan.pad_rows > m) return run_padded(plan, variant, a, b, scale_a, scale_b, out_dtype, bias, azp_adj, azp, out,
                                           m, n, k, lda, ldb, sa == 2, device);
  at::Tensor sa_t = plan.expand_a ? scale_a.reshape({1, 1}).expand({m, 1}).contiguous() : scale_a;
  at::Tensor sb_t = plan.expand_b ? scale_b.reshape({1, 1}).expand({1, n}).contiguous() : scale_b;
  at::Tensor result = out.has_value() ? *out : empty_dev({m, n}, out_dtype, a.get_device());  // alloc.h: no dispatcher
  void const* adj = azp_adj.has_value() ? azp_adj->data_ptr() : nullptr;
  GemmArgs g{a.data_ptr(), b.data_ptr(), result.data_ptr(), m, n, k, lda, ldb, m > 1 ? result.stride(0) : n,
             sa_t.data_ptr(), sb_t.data_ptr(), azp.has_value() ? azp->data_ptr() : nullptr,
             per_token_azp(variant) ? adj : nullptr, per_tensor_azp(variant) ? adj : nullptr,
             bias.has_value() ? bias->data_ptr() : nullptr};
  int rc = launch_plan(plan, g, device, c10::cuda::getCurrentCUDAStream(device).stream());
  if (rc != 0) return py::int_(rc);
  return py::cast(result);
}

}  // namespace cg

namespace {

py::tuple quant_rows_py(at::Tensor const& x, int64_t mode, at::ScalarType qtype,
                        c10::optional<at::Tensor> const& static_scale, c10::optional<at::Tensor> const& static_azp,
                        c10::optional<at::Tensor> const& scale_ub, c10::optional<at::Tensor> const& residual,
                        c10::optional<at::Tensor> const& norm_weight, double eps, int64_t pad_rows) {
  auto r = cg::quant_rows(x, mode, qtype, static_scale, static_azp, scale_ub, residual, norm_weight, eps, pad_rows);
  auto opt = [](at::Tensor const& t) { return t.defined() ? py::cast(t) : py::none(); };
  return py::make_tuple(r[0], r[1], opt(r[2]), opt(r[3]));
}

}  // namespace

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
  m.def("w8a8_linear", &cg::w8a8_linear, "quantize + GEMM of a W8A8 linear layer (eager)");
  m.def("quant_rows", &quant_rows_py, "row-wise activation quantization (see quant_common.cuh); outputs padded "
        "with zero rows to pad_rows", py::arg("x"), py::arg("mode"), py::arg("qtype"), py::arg("static_scale"),
        py::arg("static_azp"), py::arg("scale_ub"), py::arg("residual"), py::arg("norm_weight"), py::arg("eps"),
        py::arg("pad_rows") = 0);
  m.def("quant_groups", [](at::Tensor const& x, int64_t group, at::ScalarType qtype, bool scale_col_major,
                           int64_t pad_rows) {
    auto r = cg::quant_groups(x, group, qtype, scale_col_major, pad_rows);
    return py::make_tuple(r[0], r[1]);
  }, "per-group activation quantization along K; outputs padded with zero rows to pad_rows", py::arg("x"),
        py::arg("group"), py::arg("qtype"), py::arg("scale_col_major"), py::arg("pad_rows") = 0);
  m.def("wo_gemm", &cg::wo_gemm, "weight-only small-M GEMM (see wo_gemm.cuh)");
  m.def("wo_conv", &cg::wo_conv, "weight-only implicit-GEMM convolution, NHWC in and out (see wo_conv.cuh)");
  m.def("wo_conv_layer", &cg::wo_conv_layer, "the weight-only conv layer's eager call: channels_last (N, C, H, W) in "
        "and out");
  m.def("wo_conv_variants", &cg::wo_conv_variants, "variant ids compiled in the convolution form");
  m.def("wo_linear_fast", &cg::wo_linear_fast, "eager weight-only layer call; None when the Python path must take it");
  m.def("wo_dequant", &cg::wo_dequant, "dense weight of a packed weight-only weight (large-M fallback)");
  m.def("wo_plan_info", &cg::wo_plan_info, "launch plan of wo_gemm: (rows, columns per CTA, splits, CTAs, smem, threads, cluster)",
        py::arg("m"), py::arg("n"), py::arg("k"), py::arg("bits"), py::arg("zero"), py::arg("bf16"), py::arg("variant") = 0);
  m.def("wo_variants", &cg::wo_variants, "weight-only kernel variants: (id, name, M capacity)");
  m.def("wo_set_pdl_policy", &cg::wo_set_pdl_policy, "weight-only kernels launched as programmatic dependents "
        "(measuring): 0 the direct and int4 kernels (sessions 20-21), 1 all, 2 all with their CTAs spread per SM (the "
        "default); -1 reads it; returns the previous policy");
  m.def("wo_set_cluster_reduce", &cg::wo_set_cluster_reduce, "split weight-only mma launches of at most this many splits "
        "(2..8; 0: none; default 2) add their partial sums in a thread block cluster (SM90), the others through the "
        "global workspace; -1 reads it; returns the previous setting");
  m.def("bi8_gemm", &cg::bi8_gemm, "per-block int8 W8A8 GEMM (see bi8_gemm.cuh)");
  m.def("bi8_plan_info", &cg::bi8_plan_info, "launch plan of bi8_gemm: (tile rows, tile columns, splits, CTAs)");
  m.def("gemv_w8a8_address", &cg::gemv_w8a8_address, "launcher address of the W8A8 decode GEMV (cg_launch ABI)",
        py::arg("fp8"), py::arg("bf16"), py::arg("sa_vec"), py::arg("sb_vec"));
  m.def("gemv_w8a8_last_error", &cg::gemv_w8a8_last_error, "message of this thread's last failed GEMV launch");
  m.def("gemv_w8a8_plan", &cg::gemv_w8a8_plan, "GEMV launch of an (m, n, k) call: (warps per CTA, CTAs, threads, unroll)",
        py::arg("m"), py::arg("n"), py::arg("k"), py::arg("block") = 0);
  m.def("gemv_set_step", &cg::gemv_set_step, "GEMV chunks per step, forced (2 or 4; 0 = the rule; the plain M <= 8 kernel: 2 means its 3)");
  m.def("pdl_set_prefetch_bytes", &cg::pdl_set_prefetch_bytes, "weight bytes a programmatic dependent's first wave "
        "prefetches to L2 before its wait (GEMV, weight-only direct kernels); -1 reads it; returns the previous value");
  m.def("pdl_set", &cg::pdl_set, "programmatic dependent launches of the extension's kernels: 0 off, 1 on, other: "
        "unchanged; returns the previous state");
  m.def("block_gemv", &cg::block_gemv, "block-scaled W8A8 decode GEMV, M <= 16 (per-block int8, blockwise fp8)");
  m.def("block_linear_fast",
        [](at::Tensor const& x, at::Tensor const& weight, at::Tensor const& weight_scale, c10::optional<at::Tensor> const& bias,
           int64_t block, int64_t sb_shift, at::ScalarType out_dtype, int64_t act, int64_t max_m, int64_t gemm_fn,
           int64_t gemm_ws_bytes, bool scale_col_major, int64_t pad_rows) -> py::object {
          auto out = cg::block_linear_fast(x, weight, weight_scale, bias, block, sb_shift, out_dtype, act, max_m, gemm_fn,
                                           gemm_ws_bytes, scale_col_major, pad_rows);
          return out.has_value() ? py::cast(*out) : py::none();
        },
        "eager per-block / blockwise layer call (per-group quantization + block GEMV at M <= max_m, else the tiled "
        "int8 kernel / the CUTLASS blockwise kernel at gemm_fn); None when the Python path must take it");
  m.def("gemv_w8a8_set_warps_k", &cg::gemv_w8a8_set_warps_k, "force the GEMV's warps per CTA (4/8/16; 0 = automatic)");
  m.def("run", &cg::run, "fast eager path; None when the Python path must handle the call");
  m.def("register_plan", &register_plan);
  m.def("pad2d", &cg::pad2d, "copy each source into the leading corner of its destination and zero the rest, one launch "
        "(pad_rows.h: operands padded to whole M tiles)");
  m.def("mixed_linear_fast",
        [](at::Tensor const& x, at::Tensor const& qweight, at::Tensor const& scales,
           c10::optional<at::Tensor> const& bias, int64_t bits, int64_t group_size, int64_t n) -> py::object {
          int64_t failed = 0;
          auto out = cg::mixed_linear_fast(x, qweight, scales, bias, bits, group_size, n, &failed);
          if (out.has_value()) return py::cast(*out);
          return failed ? py::object(py::int_(failed)) : py::object(py::none());
        },
        "eager weight-only layer call on the SM90 mixed-input copy: the output, None (the Python path takes the "
        "call) or a failed launch's code");
  m.def("conv_fast",
        [](at::Tensor const& x, at::Tensor const& w, at::Tensor const& scale_x, c10::optional<at::Tensor> const& scale_guard,
           at::Tensor const& w_scale, c10::optional<at::Tensor> const& bias, c10::optional<at::Tensor> const& scale_out,
           int64_t stride_h, int64_t stride_w, int64_t pad_h, int64_t pad_w, int64_t dil_h, int64_t dil_w,
           int64_t activation, at::ScalarType out_dtype) -> py::object {
          int64_t failed = 0;
          auto out = cg::conv_fast(x, w, scale_x, scale_guard, w_scale, bias, scale_out, stride_h, stride_w, pad_h,
                                   pad_w, dil_h, dil_w, activation, out_dtype, &failed);
          if (out.has_value()) return py::cast(*out);
          return failed ? py::object(py::int_(failed)) : py::object(py::none());
        },
        "eager int8 implicit-GEMM conv (the op conv2d_int8_igemm) for a registered signature: the NHWC output, None "
        "(the Python path takes the call) or a failed launch's code");
  m.def("register_conv_plan", &cg::register_conv_plan);
  m.def("clear_conv_plans", &cg::clear_conv_plans);
  m.def("register_mixed_plan", &cg::register_mixed_plan);
  m.def("clear_mixed_plans", &cg::clear_mixed_plans);
  m.def("clear_plans", &clear_plans);
}
