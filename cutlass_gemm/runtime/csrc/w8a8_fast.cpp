// The W8A8 linear layer's eager call (w8a8_fast.h). The common call (a plan registered for its shape, a contiguous
// x) is served with three allocations and two launches and no other torch op: one byte buffer holds the quantized
// rows, their scales and zero points; the output is allocated in its final shape. Every other call takes the
// general route through quant_rows and the GEMM ops' `run`, which return tensors the Python path can finish with.
#include "w8a8_fast.h"

#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>

#include <vector>

#include "alloc.h"
#include "gemm_plans.h"
#include "quant_ops.h"

namespace cg {
namespace {

constexpr int kModes[] = {0, 1, 2, 2, 3};  // act -> cg_quant::RowMode

bool one_element(c10::optional<at::Tensor> const& t, at::ScalarType dtype, int device) {
  return t.has_value() && t->is_cuda() && t->get_device() == device && t->scalar_type() == dtype && t->numel() == 1;
}

// The common call: nothing allocated but one buffer for the quantizer's outputs (and the output), nothing launched
// but the quantizer and the GEMM. Returns None when the call is not one (the general route then takes it).
py::object direct(at::Tensor const& x, at::Tensor const& weight, at::Tensor const& weight_scale,
                  c10::optional<at::Tensor> const& bias, int64_t act, c10::optional<at::Tensor> const& input_scale,
                  c10::optional<at::Tensor> const& azp_adj, at::ScalarType od, int64_t activation, int64_t m,
                  int64_t rows) {
  int device = x.get_device();
  int64_t n = weight.size(0), k = weight.size(1);
  if (act == 3 || m == 0 || !x.is_contiguous()) return py::none();
  if ((od != at::kBFloat16 && od != at::kHalf) || n % 8 || k % 16) return py::none();
  if (!fits32(rows) || !fits32(n) || !fits32(k) || !aligned16(weight.data_ptr())) return py::none();
  int sb = scale_kind(weight_scale, n, false, device);
  if (sb == 0 || !row_vector(bias, n, od, device)) return py::none();
  if (act == 1 && !row_vector(azp_adj, n, at::kInt, device)) return py::none();
  const bool per_row = act != 4;  // the static mode writes its scale to every row too (quant_rows: NaN rows)
  int sa = per_row && rows > 1 ? 2 : 1;
  if (rows == 1 && sa == 1 && sb == 2) sa = 2;  // one row: the scalar is its per-token scale (as the ops' run)
  int variant = act == 1 ? (bias.has_value() ? kScaledAzpPerToken : kScaledAzpPerTokenNoBias)
                         : (bias.has_value() ? kScaledBias : kScaled);
  int code = variant | static_cast<int>(activation << kActivationShift);
  at::ScalarType wt = weight.scalar_type();
  Plan plan;
  if (!find_plan(PlanKey{device, code, static_cast<int>(wt), static_cast<int>(od), sa == 2, sb == 2, rows, n, k}, &plan) ||
      plan.expand_a || plan.expand_b || plan.pad_rows != 0)  // (a plan that pads: the ops' run, never this call's)
    return py::none();

  c10::cuda::OptionalCUDAGuard guard;
  if (c10::cuda::current_device() != device) guard.set_index(device);
  cudaStream_t stream = c10::cuda::getCurrentCUDAStream(device).stream();
  // One buffer: q (rows, K), then the scales (one per row; one for the dynamic per-tensor mode), the zero points (asymmetric), the per-tensor
  // quantizer's scratch; each part on a 256-byte boundary. The quantizer leaves the rows past m as allocated: the
  // GEMM computes output rows from them but never stores them (each output row depends on its own activation row and
  // scale).
  const int64_t q_bytes = round256(rows * k), s_bytes = round256(per_row ? rows * 4 : 4);
  const int64_t z_bytes = act == 1 ? round256(rows * 4) : 0;
  const int64_t p_bytes = act == 4 ? round256(quant_partials_capacity() * 4) : 0;
  at::Tensor buf = empty_dev({q_bytes + s_bytes + z_bytes + p_bytes}, at::kByte, device);
  char* base = static_cast<char*>(buf.data_ptr());
  RowTargets t{base, reinterpret_cast<float*>(base + q_bytes),
               act == 1 ? reinterpret_cast<int32_t*>(base + q_bytes + s_bytes) : nullptr, nullptr,
               act == 4 ? reinterpret_cast<unsigned*>(base + q_bytes + s_bytes + z_bytes) : nullptr};
  quant_rows_to(x, m, k, kModes[act], wt, t, input_scale, c10::nullopt, c10::nullopt, c10::nullopt, c10::nullopt,
                0.0, stream);

  std::vector<int64_t> shape(x.sizes().begin(), x.sizes().end());
  shape.back() = n;
  // The kernel computes the quantizer's `rows` rows (whole M tiles) and writes the output's m only (m_padded).
  at::Tensor y = empty_dev(c10::IntArrayRef(shape), od, device);
  GemmArgs g{t.q, weight.data_ptr(), y.data_ptr(), m, n, k, k, k, n, t.scale, weight_scale.data_ptr(), t.azp,
             act == 1 ? azp_adj->data_ptr() : nullptr, nullptr, bias.has_value() ? bias->data_ptr() : nullptr, rows};
  int rc = launch_plan(plan, g, device, stream);
  if (rc != 0) return py::int_(rc);
  return py::cast(y);
}

}  // namespace

py::object w8a8_linear(at::Tensor const& x, at::Tensor const& weight, at::Tensor const& weight_scale,
                       c10::optional<at::Tensor> const& bias, int64_t act,
                       c10::optional<at::Tensor> const& input_scale, c10::optional<at::Tensor> const& input_zp,
                       c10::optional<at::Tensor> const& azp_adj, c10::optional<at::ScalarType> out_dtype,
                       int64_t activation, int64_t rows) {
  if (!x.is_cuda() || x.dim() < 1 || weight.dim() != 2 || !weight.is_cuda()) return py::none();
  at::ScalarType xt = x.scalar_type(), wt = weight.scalar_type();
  if ((xt != at::kBFloat16 && xt != at::kHalf) || (wt != at::kChar && wt != at::kFloat8_e4m3fn)) return py::none();
  int device = x.get_device();
  int64_t n = weight.size(0), k = weight.size(1);
  if (weight.get_device() != device || !weight.is_contiguous() || x.size(-1) != k || (k > 1 && x.stride(-1) != 1))
    return py::none();
  if (n == 0 || k == 0 || act < 0 || act > 4 || activation < 0 || activation >= kNumActivations) return py::none();
  bool zp = act == 1 || act == 3;
  if (zp && (wt != at::kChar || !azp_adj.has_value())) return py::none();
  if ((act == 2 || act == 3) != input_scale.has_value() || (act == 3) != input_zp.has_value()) return py::none();
  if (input_scale.has_value() && !one_element(input_scale, at::kFloat, device)) return py::none();
  if (act == 3 && !one_element(input_zp, at::kInt, device)) return py::none();
  if (azp_adj.has_value() && (!azp_adj->is_cuda() || azp_adj->get_device() != device || azp_adj->scalar_type() != at::kInt))
    return py::none();
  at::ScalarType od = out_dtype.value_or(xt);
  const int64_t m = x.numel() / k;
  if (rows < m) return py::none();
  py::object res = direct(x, weight, weight_scale, bias, act, input_scale, azp_adj, od, activation, m, rows);
  if (!res.is_none()) return res;

  // The general route: tensors for each step, so that a call without a plan returns what the Python path needs.
  at::Tensor x2 = x.reshape({-1, k});
  auto r = quant_rows(x2, kModes[act], wt, input_scale, act == 3 ? input_zp : c10::nullopt, c10::nullopt,
                      c10::nullopt, c10::nullopt, 0.0, rows, /*zero_pad=*/false);
  at::Tensor const& q = r[0];
  at::Tensor const& scale = r[1];
  c10::optional<at::Tensor> azp, adj;
  int variant = bias.has_value() ? kScaledBias : kScaled;
  if (act == 1) {
    variant = bias.has_value() ? kScaledAzpPerToken : kScaledAzpPerTokenNoBias;
    azp = r[2];
    adj = azp_adj;
  } else if (act == 3) {
    variant = bias.has_value() ? kScaledAzp : kScaledAzpNoBias;
    adj = (*azp_adj * *input_zp).to(at::kInt);  // azp * column sums, as the per-tensor azp kernel takes
  }
  res = run(variant | static_cast<int>(activation << kActivationShift), q, weight.t(), scale, weight_scale, od, bias,
            adj, azp, c10::nullopt);
  // run() gives None (no plan, or an unusual argument), an int (launch error) or the output tensor
  if (!res.is_none() && !py::isinstance<py::int_>(res)) {
    std::vector<int64_t> shape(x.sizes().begin(), x.sizes().end());
    shape.back() = n;
    at::Tensor y = py::cast<at::Tensor>(res);
    if (rows > m) y = y.narrow(0, 0, m);  // whole rows of a contiguous (rows, N) result: still contiguous
    return py::cast(y.view(shape));
  }
  return py::make_tuple(q, scale, r[2].defined() ? py::cast(r[2]) : py::none(), adj.has_value() ? py::cast(*adj) : py::none());
}

}  // namespace cg
