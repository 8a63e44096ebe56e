// Torch-facing launchers of the activation-quant kernels (quant_kernels.cuh). Python validates the
// arguments first (cutlass_gemm/ops/quantize.py) and passes 2-D views (rows, K) with a unit last
// stride; these functions allocate the outputs and launch on the current stream. No host sync.
#include <ATen/ATen.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>

#include <algorithm>
#include <tuple>

#include "quant_kernels.cuh"
#include "quant_ops.h"

namespace cg {
namespace {

using cg_quant::RowArgs;
using cg_quant::RowMode;

bool aligned16(void const* p) { return (reinterpret_cast<uintptr_t>(p) & 15u) == 0; }

// One CTA per row, each thread holding up to 4 vectors of it (8 for long rows). Measured on the H100
// (tools/results/h100-2026-11-23/run2/rows_cfg_run3.log and run3/qexp.log, bf16 -> int8): this layout
// beat a persistent grid prefetching the next row, 2 vectors per thread, 8 vectors per thread, several
// rows per CTA, a warp per row (10-50% slower at K = 8192), a register cap for more CTAs per SM
// (spills: 1.4-2x slower) and streaming load/store hints (gains not reproducible across runs, and the
// runtime switch cost 25%); run3/diag*.log.
template <typename TIn, typename TQ, int kVec, int kCache, int kThreads, RowMode kMode>
void launch_rows_with(RowArgs const& args, cudaStream_t stream) {
  cg_quant::row_quant_kernel<TIn, TQ, kVec, kCache, kThreads, kMode>
      <<<static_cast<unsigned>(args.rows), kThreads, 0, stream>>>(args);
}

template <typename TIn, typename TQ, int kVec, RowMode kMode>
void launch_rows(RowArgs const& args, cudaStream_t stream) {
  const int64_t nvec = args.cols / kVec;
  if (kVec > 1 && nvec <= 4 * 128) launch_rows_with<TIn, TQ, kVec, 4, 128, kMode>(args, stream);
  else if (kVec > 1 && nvec <= 4 * 256) launch_rows_with<TIn, TQ, kVec, 4, 256, kMode>(args, stream);
  else if (kVec > 1 && nvec <= 8 * 512) launch_rows_with<TIn, TQ, kVec, 8, 512, kMode>(args, stream);
  else launch_rows_with<TIn, TQ, kVec, 0, 512, kMode>(args, stream);
}

template <typename TIn, typename TQ, RowMode kMode>
void dispatch_vec(RowArgs const& args, bool vectorized, cudaStream_t stream) {
  if (vectorized) launch_rows<TIn, TQ, 16 / sizeof(TIn), kMode>(args, stream);
  else launch_rows<TIn, TQ, 1, kMode>(args, stream);
}

template <typename TIn, typename TQ>
void dispatch_mode(RowArgs const& args, int mode, bool vectorized, cudaStream_t stream) {
  switch (static_cast<RowMode>(mode)) {
    case RowMode::kDynamic: dispatch_vec<TIn, TQ, RowMode::kDynamic>(args, vectorized, stream); break;
    case RowMode::kDynamicAsym:
      if constexpr (std::is_same_v<TQ, int8_t>) dispatch_vec<TIn, TQ, RowMode::kDynamicAsym>(args, vectorized, stream);
      else TORCH_CHECK(false, "asymmetric quantization is int8 only");
      break;
    case RowMode::kStatic: dispatch_vec<TIn, TQ, RowMode::kStatic>(args, vectorized, stream); break;
    case RowMode::kPerTensor: dispatch_vec<TIn, TQ, RowMode::kPerTensor>(args, vectorized, stream); break;
    case RowMode::kRmsNorm: dispatch_vec<TIn, TQ, RowMode::kRmsNorm>(args, vectorized, stream); break;
  }
}

template <typename TIn>
void dispatch_out(RowArgs const& args, int mode, at::ScalarType qtype, bool vectorized, cudaStream_t stream) {
  if (qtype == at::kChar) dispatch_mode<TIn, int8_t>(args, mode, vectorized, stream);
  else dispatch_mode<TIn, __nv_fp8_e4m3>(args, mode, vectorized, stream);
}

template <typename F>
void by_input(at::ScalarType t, F&& f) {
  if (t == at::kFloat) f(float{});
  else if (t == at::kHalf) f(__half{});
  else if (t == at::kBFloat16) f(__nv_bfloat16{});
  else TORCH_CHECK(false, "cutlass_gemm quant: input dtype must be float32, float16 or bfloat16");
}

bool rows_aligned(at::Tensor const& t, int64_t vec) {
  return aligned16(t.data_ptr()) && t.size(1) % vec == 0 && (t.size(0) <= 1 || t.stride(0) % vec == 0);
}

}  // namespace

std::vector<at::Tensor> quant_rows(at::Tensor const& x, int64_t mode, at::ScalarType qtype,
                                   c10::optional<at::Tensor> const& static_scale,
                                   c10::optional<at::Tensor> const& static_azp,
                                   c10::optional<at::Tensor> const& scale_ub,
                                   c10::optional<at::Tensor> const& residual,
                                   c10::optional<at::Tensor> const& norm_weight, double eps) {
  TORCH_CHECK(x.is_cuda() && x.dim() == 2 && x.stride(1) == 1, "quant_rows: x must be a 2-D CUDA view with unit last stride");
  c10::cuda::CUDAGuard guard(x.device());
  cudaStream_t stream = c10::cuda::getCurrentCUDAStream(x.get_device()).stream();
  const int64_t rows = x.size(0), cols = x.size(1);
  auto opts = x.options();
  at::Tensor q = at::empty({rows, cols}, opts.dtype(qtype));
  const bool per_tensor = mode == static_cast<int>(RowMode::kPerTensor);
  at::Tensor scale = per_tensor ? at::empty({}, opts.dtype(at::kFloat)) : at::empty({rows, 1}, opts.dtype(at::kFloat));
  at::Tensor azp = mode == static_cast<int>(RowMode::kDynamicAsym) ? at::empty({rows, 1}, opts.dtype(at::kInt)) : at::Tensor();
  at::Tensor res_out = residual.has_value() ? at::empty({rows, cols}, opts) : at::Tensor();
  if (rows == 0) {
    if (per_tensor) scale.fill_(1.0);
    return {q, scale, azp, res_out};
  }
  const int64_t vec = 16 / x.element_size();
  bool vectorized = rows_aligned(x, vec);
  if (residual.has_value()) vectorized = vectorized && rows_aligned(*residual, vec);
  if (norm_weight.has_value()) vectorized = vectorized && aligned16(norm_weight->data_ptr()) && cols % vec == 0;

  RowArgs args{};
  args.x = x.data_ptr();
  args.ldx = rows > 1 ? x.stride(0) : cols;
  args.q = q.data_ptr();
  args.ldq = cols;
  args.scale_out = scale.data_ptr<float>();
  args.azp_out = azp.defined() ? azp.data_ptr<int32_t>() : nullptr;
  args.rows = rows;
  args.cols = cols;
  args.static_scale = static_scale.has_value() ? static_scale->data_ptr<float>() : nullptr;
  args.static_azp = static_azp.has_value() ? static_azp->data_ptr<int32_t>() : nullptr;
  args.scale_ub = scale_ub.has_value() ? scale_ub->data_ptr<float>() : nullptr;
  args.residual = residual.has_value() ? residual->data_ptr() : nullptr;
  args.ldr = residual.has_value() && rows > 1 ? residual->stride(0) : cols;
  args.residual_out = res_out.defined() ? res_out.data_ptr() : nullptr;
  args.norm_weight = norm_weight.has_value() ? norm_weight->data_ptr() : nullptr;
  args.eps = static_cast<float>(eps);

  at::Tensor amax;
  if (per_tensor) {
    amax = at::zeros({1}, opts.dtype(at::kInt));  // a memset on the stream, no host round trip
    args.tensor_amax = reinterpret_cast<unsigned const*>(amax.data_ptr<int32_t>());
    int64_t work = rows * (cols / (vectorized ? vec : 1));
    unsigned blocks = static_cast<unsigned>(std::min<int64_t>((work + 255) / 256, 132 * 8));
    by_input(x.scalar_type(), [&](auto tag) {
      using T = decltype(tag);
      auto* bits = reinterpret_cast<unsigned*>(amax.data_ptr<int32_t>());
      if (vectorized)
        cg_quant::amax_kernel<T, 16 / sizeof(T)><<<blocks, 256, 0, stream>>>(static_cast<T const*>(args.x), args.ldx, rows, cols, bits);
      else
        cg_quant::amax_kernel<T, 1><<<blocks, 256, 0, stream>>>(static_cast<T const*>(args.x), args.ldx, rows, cols, bits);
    });
  }
  by_input(x.scalar_type(), [&](auto tag) {
    using T = decltype(tag);
    dispatch_out<T>(args, static_cast<int>(mode), qtype, vectorized, stream);
  });
  C10_CUDA_KERNEL_LAUNCH_CHECK();
  return {q, scale, azp, res_out};
}

std::vector<at::Tensor> quant_groups(at::Tensor const& x_in, int64_t group, at::ScalarType qtype) {
  TORCH_CHECK(x_in.is_cuda() && x_in.dim() == 2 && x_in.stride(1) == 1, "quant_groups: x must be a 2-D CUDA view with unit last stride");
  c10::cuda::CUDAGuard guard(x_in.device());
  cudaStream_t stream = c10::cuda::getCurrentCUDAStream(x_in.get_device()).stream();
  const int64_t rows = x_in.size(0), cols = x_in.size(1);
  const int64_t vec = 16 / x_in.element_size();
  TORCH_CHECK(cols % group == 0 && group % vec == 0 && (group / vec == 8 || group / vec == 16 || group / vec == 32),
              "quant_groups: unsupported group size for this dtype");
  // The group kernel reads 16-byte vectors; a misaligned view is copied once (correct, slower).
  at::Tensor x = rows_aligned(x_in, vec) ? x_in : x_in.contiguous().clone();
  at::Tensor q = at::empty({rows, cols}, x.options().dtype(qtype));
  at::Tensor scale = at::empty({rows, cols / group}, x.options().dtype(at::kFloat));
  if (rows == 0) return {q, scale};
  const int64_t ldx = rows > 1 ? x.stride(0) : cols;
  const int64_t total = rows * (cols / vec);
  constexpr int kPer = 2;
  const unsigned blocks = static_cast<unsigned>((total + 256 * kPer - 1) / (256 * kPer));
  const int lanes = static_cast<int>(group / vec);
  by_input(x.scalar_type(), [&](auto tag) {
    using T = decltype(tag);
    constexpr int V = 16 / sizeof(T);
    auto run = [&](auto qtag) {
      using TQ = decltype(qtag);
      auto* qp = static_cast<TQ*>(q.data_ptr());
      auto* xp = static_cast<T const*>(x.data_ptr());
      float* sp = scale.data_ptr<float>();
      if (lanes == 8) cg_quant::group_quant_kernel<T, TQ, V, 8, kPer><<<blocks, 256, 0, stream>>>(xp, ldx, qp, sp, rows, cols);
      else if (lanes == 16) cg_quant::group_quant_kernel<T, TQ, V, 16, kPer><<<blocks, 256, 0, stream>>>(xp, ldx, qp, sp, rows, cols);
      else cg_quant::group_quant_kernel<T, TQ, V, 32, kPer><<<blocks, 256, 0, stream>>>(xp, ldx, qp, sp, rows, cols);
    };
    if (qtype == at::kChar) run(int8_t{});
    else run(__nv_fp8_e4m3{});
  });
  C10_CUDA_KERNEL_LAUNCH_CHECK();
  return {q, scale};
}

}  // namespace cg
