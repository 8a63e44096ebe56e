// Torch-facing launchers of the activation-quant kernels (quant_launch.cuh). Python validates the
// arguments first (cutlass_gemm/ops/quantize.py) and passes 2-D views (rows, K) with a unit last
// stride; these functions allocate the outputs and launch on the current stream. No host sync.
#include <ATen/ATen.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>

#include <algorithm>
#include <tuple>

#include "alloc.h"
#include "ext_msg.h"
#define CG_QUANT_SPLIT_INSTANCES  // the kernels are compiled in quant_inst_*.cu
#include "quant_launch.cuh"
#include "quant_ops.h"

namespace cg {
namespace {

using cg_quant::RowArgs;
using cg_quant::RowMode;

bool aligned16(void const* p) { return (reinterpret_cast<uintptr_t>(p) & 15u) == 0; }

cg_quant::InType in_type(at::ScalarType t) {
  if (t == at::kFloat) return cg_quant::InType::kFloat;
  if (t == at::kHalf) return cg_quant::InType::kHalf;
  TORCH_CHECK(t == at::kBFloat16, "cutlass_gemm quant: input dtype must be float32, float16 or bfloat16");
  return cg_quant::InType::kBFloat16;
}

cg_quant::OutType out_type(at::ScalarType t) {
  TORCH_CHECK(t == at::kChar || t == at::kFloat8_e4m3fn, "cutlass_gemm quant: output dtype must be int8 or float8_e4m3fn");
  return t == at::kChar ? cg_quant::OutType::kInt8 : cg_quant::OutType::kFp8;
}

bool rows_aligned(at::Tensor const& t, int64_t vec) {
  return aligned16(t.data_ptr()) && t.size(1) % vec == 0 && (t.size(0) <= 1 || t.stride(0) % vec == 0);
}

void launch(RowArgs const& args, RowMode mode, at::Tensor const& x, at::ScalarType qtype, bool vectorized, cudaStream_t stream) {
  cudaError_t err = cg_quant::launch_quant(args, mode, in_type(x.scalar_type()), out_type(qtype), vectorized, stream);
  TORCH_CHECK(err == cudaSuccess, msg("cutlass_gemm quant kernel launch failed: ", cudaGetErrorString(err)).c_str());
}

}  // namespace

std::vector<at::Tensor> quant_rows(at::Tensor const& x, int64_t mode, at::ScalarType qtype,
                                   c10::optional<at::Tensor> const& static_scale,
                                   c10::optional<at::Tensor> const& static_azp,
                                   c10::optional<at::Tensor> const& scale_ub,
                                   c10::optional<at::Tensor> const& residual,
                                   c10::optional<at::Tensor> const& norm_weight, double eps, int64_t pad_rows,
                                   bool zero_pad) {
  TORCH_CHECK(x.is_cuda() && x.dim() == 2 && x.stride(1) == 1, "quant_rows: x must be a 2-D CUDA view with unit last stride");
  c10::cuda::CUDAGuard guard(x.device());
  cudaStream_t stream = c10::cuda::getCurrentCUDAStream(x.get_device()).stream();
  const int64_t rows = x.size(0), cols = x.size(1);
  const int64_t out_rows = std::max(rows, pad_rows);
  auto empty = [&](c10::IntArrayRef size, at::ScalarType dtype) { return empty_dev(size, dtype, x.get_device()); };
  at::Tensor q = empty({out_rows, cols}, qtype);
  const bool per_tensor = mode == static_cast<int>(RowMode::kPerTensor);
  at::Tensor scale = per_tensor ? empty({}, at::kFloat) : empty({out_rows, 1}, at::kFloat);
  at::Tensor azp = mode == static_cast<int>(RowMode::kDynamicAsym) ? empty({out_rows, 1}, at::kInt) : at::Tensor();
  at::Tensor res_out = residual.has_value() ? empty({rows, cols}, x.scalar_type()) : at::Tensor();
  if (out_rows > rows && zero_pad) {
    // The padding rows of the op's outputs are zero, so that they are well defined (tests and
    // torch.library.opcheck compare them). Memsets on the stream: capturable, no host sync. The W8A8 layer call
    // (w8a8_fast.cpp) skips them: its GEMM's rows past the caller's are computed and never read back.
    auto zero_tail = [&](at::Tensor const& t, int64_t row_bytes) {
      char* p = static_cast<char*>(t.data_ptr()) + rows * row_bytes;
      cudaError_t err = cudaMemsetAsync(p, 0, static_cast<size_t>((out_rows - rows) * row_bytes), stream);
      TORCH_CHECK(err == cudaSuccess, msg("cutlass_gemm quant: memset failed: ", cudaGetErrorString(err)).c_str());
    };
    zero_tail(q, cols * q.element_size());
    if (!per_tensor) zero_tail(scale, sizeof(float));
    if (azp.defined()) zero_tail(azp, sizeof(int32_t));
  }
  if (rows == 0) {
    if (per_tensor) scale.fill_(1.0);
    return {q, scale, azp, res_out};
  }
  at::Tensor partials;
  if (per_tensor) partials = empty({cg_quant::tensor_partials_capacity()}, at::kInt);
  RowTargets out{q.data_ptr(), scale.data_ptr<float>(), azp.defined() ? azp.data_ptr<int32_t>() : nullptr,
                 res_out.defined() ? res_out.data_ptr() : nullptr,
                 per_tensor ? reinterpret_cast<unsigned*>(partials.data_ptr<int32_t>()) : nullptr};
  quant_rows_to(x, rows, rows > 1 ? x.stride(0) : cols, mode, qtype, out, static_scale, static_azp, scale_ub, residual,
                norm_weight, eps, stream);
  return {q, scale, azp, res_out};
}

int64_t quant_partials_capacity() { return cg_quant::tensor_partials_capacity(); }

void quant_rows_to(at::Tensor const& x, int64_t rows, int64_t ldx, int64_t mode, at::ScalarType qtype,
                   RowTargets const& out, c10::optional<at::Tensor> const& static_scale,
                   c10::optional<at::Tensor> const& static_azp, c10::optional<at::Tensor> const& scale_ub,
                   c10::optional<at::Tensor> const& residual, c10::optional<at::Tensor> const& norm_weight,
                   double eps, cudaStream_t stream) {
  const int64_t cols = x.size(-1);
  const int64_t vec = 16 / x.element_size();
  bool vectorized = aligned16(x.data_ptr()) && cols % vec == 0 && (rows <= 1 || ldx % vec == 0);
  if (residual.has_value()) vectorized = vectorized && rows_aligned(*residual, vec);
  if (norm_weight.has_value()) vectorized = vectorized && aligned16(norm_weight->data_ptr()) && cols % vec == 0;

  RowArgs args{};
  args.x = x.data_ptr();
  args.ldx = ldx;
  args.q = out.q;
  args.ldq = cols;
  args.scale_out = out.scale;
  args.azp_out = out.azp;
  args.rows = rows;
  args.cols = cols;
  args.static_scale = static_scale.has_value() ? static_scale->data_ptr<float>() : nullptr;
  args.static_azp = static_azp.has_value() ? static_azp->data_ptr<int32_t>() : nullptr;
  args.scale_ub = scale_ub.has_value() ? scale_ub->data_ptr<float>() : nullptr;
  args.residual = residual.has_value() ? residual->data_ptr() : nullptr;
  args.ldr = residual.has_value() && rows > 1 ? residual->stride(0) : cols;
  args.residual_out = out.residual_out;
  args.norm_weight = norm_weight.has_value() ? norm_weight->data_ptr() : nullptr;
  args.eps = static_cast<float>(eps);
  args.partials = out.partials;  // kPerTensor: one absmax per CTA of the cooperative kernel or of pass 1; no zeroing
  launch(args, static_cast<RowMode>(mode), x, qtype, vectorized, stream);
}

std::vector<at::Tensor> quant_groups(at::Tensor const& x_in, int64_t group, at::ScalarType qtype, bool scale_col_major,
                                     int64_t pad_rows) {
  TORCH_CHECK(x_in.is_cuda() && x_in.dim() == 2 && x_in.stride(1) == 1, "quant_groups: x must be a 2-D CUDA view with unit last stride");
  c10::cuda::CUDAGuard guard(x_in.device());
  cudaStream_t stream = c10::cuda::getCurrentCUDAStream(x_in.get_device()).stream();
  const int64_t rows = x_in.size(0), cols = x_in.size(1);
  const int64_t vec = 16 / x_in.element_size();
  TORCH_CHECK(cols % group == 0 && group % vec == 0 && (group / vec == 8 || group / vec == 16 || group / vec == 32),
              "quant_groups: unsupported group size for this dtype");
  // The group kernel reads 16-byte vectors; a misaligned view is copied once (correct, slower).
  at::Tensor x = rows_aligned(x_in, vec) ? x_in : x_in.contiguous().clone();
  const int64_t out_rows = std::max(rows, pad_rows), groups = cols / group;
  at::Tensor q = empty_dev({out_rows, cols}, qtype, x.get_device());
  at::Tensor scale = scale_col_major ? empty_dev({groups, out_rows}, at::kFloat, x.get_device()).t()
                                     : empty_dev({out_rows, groups}, at::kFloat, x.get_device());
  if (out_rows > rows) {  // as quant_rows: the op's padding rows are zero (the layer call writes through quant_groups_to)
    const size_t pad = static_cast<size_t>(out_rows - rows);
    cudaError_t err = cudaMemsetAsync(static_cast<char*>(q.data_ptr()) + rows * cols * q.element_size(), 0,
                                      pad * cols * q.element_size(), stream);
    if (err == cudaSuccess)
      err = scale_col_major  // the padding columns of each group's row of the (groups, out_rows) tensor
                ? cudaMemset2DAsync(scale.data_ptr<float>() + rows, out_rows * sizeof(float), 0, pad * sizeof(float),
                                    groups, stream)
                : cudaMemsetAsync(scale.data_ptr<float>() + rows * groups, 0, pad * groups * sizeof(float), stream);
    TORCH_CHECK(err == cudaSuccess, msg("cutlass_gemm quant: memset failed: ", cudaGetErrorString(err)).c_str());
  }
  if (rows == 0) return {q, scale};
  quant_groups_to(x, rows, rows > 1 ? x.stride(0) : cols, group, qtype, q.data_ptr(), scale.data_ptr<float>(),
                  scale_col_major, out_rows, stream);
  return {q, scale};
}

void quant_groups_to(at::Tensor const& x, int64_t rows, int64_t ldx, int64_t group, at::ScalarType qtype, void* q,
                     float* scale, bool scale_col_major, int64_t scale_ld, cudaStream_t stream) {
  const int64_t cols = x.size(-1);
  RowArgs args{};
  args.x = x.data_ptr();
  args.ldx = rows > 1 ? ldx : cols;
  args.q = q;
  args.ldq = cols;
  args.scale_out = scale;
  args.rows = rows;
  args.cols = cols;
  args.group_lanes = static_cast<int>(group / (16 / x.element_size()));
  args.scale_col_major = scale_col_major;
  args.scale_ld = scale_ld;
  launch(args, RowMode::kGroup, x, qtype, true, stream);
}

}  // namespace cg
