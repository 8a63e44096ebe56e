// Torch-facing launcher of the weight-only small-M GEMM (wo_launch.cuh). Python validates the arguments
// first (cutlass_gemm/ops/weight_only.py); this allocates the output and the split-K workspace and
// launches on the current stream. No host synchronisation.
#include <ATen/ATen.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#include <c10/cuda/CUDAGraphsC10Utils.h>

#include <algorithm>
#include <map>
#include <mutex>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "alloc.h"
#include "ext_msg.h"
#include "wo_dequant.cuh"
#include "wo_launch.cuh"
#include "wo_ops.h"
#include "wo_run.h"

namespace cg {
// Split-K arrival counters: zero at rest (each launch's last CTA per tile resets its counter), so one
// zeroed buffer per (device, stream) serves every call on that stream with no memset per call. A buffer
// first needed while the stream is being captured into a CUDA graph is made for that capture (its
// zeroing is recorded in the graph) and kept alive for good; eager calls never share it.
int* split_counters(at::Tensor const& like, cudaStream_t stream, int64_t need) {
  static std::mutex mu;
  static std::map<std::pair<int, cudaStream_t>, at::Tensor> eager;
  static std::vector<at::Tensor> keep;  // never freed: a captured graph may hold their addresses
  std::lock_guard<std::mutex> lock(mu);
  const int64_t size = std::max<int64_t>(need, 1024);
  auto opts = like.options().dtype(at::kInt);
  at::Tensor& t = eager[std::make_pair(like.get_device(), stream)];
  if (t.defined() && t.numel() >= need) return t.data_ptr<int>();
  if (c10::cuda::currentStreamCaptureStatusMayInitCtx() != c10::cuda::CaptureStatus::None) {
    keep.push_back(at::zeros({size}, opts));  // zeroed by the graph itself, before its first kernel
    return keep.back().data_ptr<int>();
  }
  if (t.defined()) keep.push_back(t);
  t = at::zeros({size}, opts);
  return t.data_ptr<int>();
}

int group_shift(int64_t group_size) {
  if (group_size == 0) return cg_wo::kPerChannelShift;
  int s = 0;
  while ((int64_t{1} << s) < group_size) ++s;
  TORCH_CHECK((int64_t{1} << s) == group_size, "wo_gemm: group_size must be a power of two or 0");
  return s;
}

void run_wo(at::Tensor const& x, void const* xp, int64_t ldx, int64_t m, int64_t k, at::Tensor const& qweight,
            at::Tensor const& scales, c10::optional<at::Tensor> const& zeros, c10::optional<at::Tensor> const& bias,
            int64_t group_size, int64_t n, int64_t split, cg_wo::WoKernel const& kern, void* out,
            cg_wo::WoConv const* conv) {
  const int device = x.get_device();
  c10::cuda::OptionalCUDAGuard guard;
  if (c10::cuda::current_device() != device) guard.set_index(static_cast<c10::DeviceIndex>(device));
  cudaStream_t stream = c10::cuda::getCurrentCUDAStream(static_cast<c10::DeviceIndex>(device)).stream();
  const cg_wo::WoPlan plan = cg_wo::wo_plan(kern, static_cast<int>(n), static_cast<int>(k), static_cast<int>(split),
                                            static_cast<int>(m));
  TORCH_CHECK(plan.err == cudaSuccess, msg("wo_gemm: planning failed: ", cudaGetErrorString(plan.err)).c_str());
  at::Tensor ws;
  cg_wo::WoArgs a{};
  if (plan.splits > 1 && !plan.cluster) {
    ws = empty_dev({plan.ws_floats}, at::kFloat, device);
    a.workspace = ws.data_ptr<float>();
    a.counters = split_counters(x, stream, plan.counters());
  }
  a.x = xp;
  a.ldx = m > 1 ? ldx : k;
  a.w = reinterpret_cast<const uint32_t*>(qweight.data_ptr<int32_t>());
  a.scales = scales.data_ptr();
  a.zeros = zeros.has_value() ? zeros->data_ptr() : nullptr;
  a.bias = bias.has_value() ? bias->data_ptr() : nullptr;
  a.out = out;
  a.ldo = n;
  a.m = static_cast<int>(m);
  a.n = static_cast<int>(n);
  a.k = static_cast<int>(k);
  a.group_shift = group_shift(group_size);
  if (conv != nullptr) a.conv = *conv;
  cudaError_t err = cg_wo::launch_wo_gemm(a, plan, stream);
  TORCH_CHECK(err == cudaSuccess, msg("cutlass_gemm weight-only kernel launch failed: ", cudaGetErrorString(err)).c_str());
}

namespace {

cg_wo::WoKernel select_kernel(at::Tensor const& x, int64_t bits, bool zero, int64_t m, int64_t variant) {
  const cg_wo::ActType t = x.scalar_type() == at::kHalf ? cg_wo::ActType::kHalf : cg_wo::ActType::kBFloat16;
  return cg_wo::wo_select(t, static_cast<int>(bits), zero, static_cast<int>(std::max<int64_t>(m, 1)),
                          static_cast<int>(variant), static_cast<int>(x.size(-1)));
}

bool aligned(at::Tensor const& t, int64_t bytes) { return reinterpret_cast<uintptr_t>(t.data_ptr()) % bytes == 0; }

}  // namespace

at::Tensor wo_gemm(at::Tensor const& x, at::Tensor const& qweight, at::Tensor const& scales,
                   c10::optional<at::Tensor> const& zeros, c10::optional<at::Tensor> const& bias, int64_t bits,
                   int64_t group_size, int64_t n, int64_t split, int64_t variant) {
  TORCH_CHECK(x.is_cuda() && x.dim() == 2 && x.stride(1) == 1, "wo_gemm: x must be a 2-D CUDA view with unit last stride");
  TORCH_CHECK(x.scalar_type() == at::kHalf || x.scalar_type() == at::kBFloat16, "wo_gemm: x must be float16 or bfloat16");
  TORCH_CHECK(scales.scalar_type() == x.scalar_type(), "wo_gemm: scales must have x's dtype");
  TORCH_CHECK(qweight.is_cuda() && qweight.scalar_type() == at::kInt && qweight.is_contiguous(), "wo_gemm: bad qweight");
  TORCH_CHECK(bits == 4 || bits == 8, "wo_gemm: bits must be 4 or 8");
  const int64_t m = x.size(0);
  TORCH_CHECK(m <= cg_wo::kMaxRowBlockM, msg("wo_gemm: at most ", cg_wo::kMaxRowBlockM, " rows").c_str());
  const cg_wo::WoKernel kern = select_kernel(x, bits, zeros.has_value(), std::min<int64_t>(m, cg_wo::kMaxM), variant);
  TORCH_CHECK(kern.fn != nullptr && cg_wo::wo_row_blocks(kern, static_cast<int>(std::max<int64_t>(m, 1))) > 0,
              msg("wo_gemm: variant ", variant, " does not serve M = ", m).c_str());
  at::Tensor out = empty_dev({m, n}, x.scalar_type(), x.get_device());
  if (m > 0) run_wo(x, x.data_ptr(), x.stride(0), m, x.size(1), qweight, scales, zeros, bias, group_size, n, split, kern,
                    out.data_ptr());
  return out;
}

c10::optional<at::Tensor> wo_linear_fast(at::Tensor const& x, at::Tensor const& qweight, at::Tensor const& scales,
                                         c10::optional<at::Tensor> const& zeros, c10::optional<at::Tensor> const& bias,
                                         int64_t bits, int64_t group_size, int64_t n, int64_t variant) {
  // Every condition the kernel relies on; any miss returns nothing and the Python path takes the call.
  if (!x.is_cuda() || (x.scalar_type() != at::kHalf && x.scalar_type() != at::kBFloat16) || x.dim() < 1) return {};
  const int64_t k = x.size(-1);
  if (k <= 0 || k % cg_wo::kTileK || n <= 0 || n % cg_wo::kTileN || (bits != 4 && bits != 8)) return {};
  if (!(x.is_contiguous() || (x.dim() == 2 && x.stride(1) == 1 && x.stride(0) % 8 == 0)) || !aligned(x, 16)) return {};
  const int64_t m = x.numel() / k;
  if (m < 1 || m > cg_wo::kMaxRowBlockM) return {};
  if (group_size != 0 && (group_size < 32 || (group_size & (group_size - 1)) || k % group_size)) return {};
  const auto dev = x.device();
  const int64_t groups = group_size ? k / group_size : 1;
  if (!qweight.is_cuda() || qweight.device() != dev || qweight.scalar_type() != at::kInt || !qweight.is_contiguous() ||
      qweight.dim() != 2 || qweight.size(0) != n / 32 || qweight.size(1) != k * bits || !aligned(qweight, 16))
    return {};
  auto plane_ok = [&](at::Tensor const& t) {
    return t.device() == dev && t.scalar_type() == x.scalar_type() && t.is_contiguous() && t.dim() == 2 &&
           t.size(0) == groups && t.size(1) == n && aligned(t, 16);
  };
  if (!plane_ok(scales) || (zeros.has_value() && !plane_ok(*zeros))) return {};
  if (bias.has_value() && (bias->device() != dev || bias->scalar_type() != x.scalar_type() || !bias->is_contiguous() ||
                           bias->dim() != 1 || bias->size(0) != n || !aligned(*bias, 4)))
    return {};
  const cg_wo::WoKernel kern = select_kernel(x, bits, zeros.has_value(), std::min<int64_t>(m, cg_wo::kMaxM), variant);
  if (kern.fn == nullptr || cg_wo::wo_row_blocks(kern, static_cast<int>(m)) == 0) return {};
  // the output in its final (..., N) shape, x's rows read through their pointer: no view of either
  std::vector<int64_t> shape(x.sizes().begin(), x.sizes().end());
  shape.back() = n;
  at::Tensor out = empty_dev(shape, x.scalar_type(), x.get_device());
  run_wo(x, x.data_ptr(), x.is_contiguous() ? k : x.stride(0), m, k, qweight, scales, zeros, bias, group_size, n, 0,
         kern, out.data_ptr());
  return out;
}

void wo_dequant_into(at::Tensor const& qweight, at::Tensor const& scales, c10::optional<at::Tensor> const& zeros,
                     int64_t bits, int64_t group_size, int64_t n, int64_t k, void* out) {
  TORCH_CHECK(qweight.is_cuda() && qweight.scalar_type() == at::kInt && qweight.is_contiguous(), "wo_dequant: bad qweight");
  TORCH_CHECK(scales.scalar_type() == at::kHalf || scales.scalar_type() == at::kBFloat16, "wo_dequant: bad scales");
  TORCH_CHECK(bits == 4 || bits == 8, "wo_dequant: bits must be 4 or 8");
  TORCH_CHECK(n % 32 == 0 && k % 64 == 0 && qweight.numel() == n / 32 * k * bits, "wo_dequant: bad shape");
  c10::cuda::CUDAGuard guard(qweight.device());
  cudaStream_t stream = c10::cuda::getCurrentCUDAStream(qweight.get_device()).stream();
  cg_wo::DequantArgs a{};
  a.w = reinterpret_cast<const uint32_t*>(qweight.data_ptr<int32_t>());
  a.scales = scales.data_ptr();
  a.zeros = zeros.has_value() ? zeros->data_ptr() : nullptr;
  a.out = out;
  a.n = static_cast<int>(n);
  a.k = static_cast<int>(k);
  a.group_shift = group_shift(group_size);
  cudaError_t err = scales.scalar_type() == at::kHalf ? cg_wo::launch_wo_dequant<__half>(a, static_cast<int>(bits), stream)
                                                      : cg_wo::launch_wo_dequant<__nv_bfloat16>(a, static_cast<int>(bits), stream);
  TORCH_CHECK(err == cudaSuccess, msg("cutlass_gemm weight-only dequantization launch failed: ", cudaGetErrorString(err)).c_str());
}

at::Tensor wo_dequant(at::Tensor const& qweight, at::Tensor const& scales, c10::optional<at::Tensor> const& zeros,
                      int64_t bits, int64_t group_size, int64_t n, int64_t k) {
  at::Tensor out = empty_dev({n, k}, scales.scalar_type(), qweight.get_device());
  wo_dequant_into(qweight, scales, zeros, bits, group_size, n, k, out.data_ptr());
  return out;
}

std::vector<int64_t> wo_plan_info(int64_t m, int64_t n, int64_t k, int64_t bits, bool zero, bool bf16, int64_t variant) {
  const cg_wo::WoKernel kern = cg_wo::wo_select(bf16 ? cg_wo::ActType::kBFloat16 : cg_wo::ActType::kHalf,
                                                static_cast<int>(bits), zero, static_cast<int>(std::min<int64_t>(m, cg_wo::kMaxM)),
                                                static_cast<int>(variant), static_cast<int>(k));
  TORCH_CHECK(kern.fn != nullptr, msg("wo_plan_info: unknown variant ", variant).c_str());
  const cg_wo::WoPlan p = cg_wo::wo_plan(kern, static_cast<int>(n), static_cast<int>(k), 0, static_cast<int>(m));
  TORCH_CHECK(p.err == cudaSuccess, msg("wo_plan_info: planning failed: ", cudaGetErrorString(p.err)).c_str());
  return {kern.rows, kern.bn, p.splits, static_cast<int64_t>(p.ntiles) * p.splits * p.mblocks, kern.smem, kern.threads,
          p.cluster ? 1 : 0};
}

int64_t wo_set_cluster_reduce(int64_t max_splits) {
  if (max_splits < 0 || max_splits > cg_wo::kMaxClusterSplits) return cg_wo::wo_cluster_policy().load();
  return cg_wo::wo_cluster_policy().exchange(static_cast<int>(max_splits));
}

int64_t wo_set_pdl_policy(int64_t policy) {
  if (policy < 0 || policy > 2) return cg_wo::wo_pdl_policy().load();
  return cg_wo::wo_pdl_policy().exchange(static_cast<int>(policy));
}

std::vector<std::tuple<int64_t, std::string, int64_t>> wo_variants() {
  std::vector<std::tuple<int64_t, std::string, int64_t>> out;
  for (auto const& v : cg_wo::kWoVariants) out.emplace_back(v.id, v.name, v.rows);
  return out;
}

}  // namespace cg
