// Eager fast path of the int8 implicit-GEMM convolution op: the checks the kernel relies on, the plan (kernel entry
// point, output size, workspace) the Python path registered for this exact signature, the output and workspace, the
// launch. One pybind call instead of the Python path's plan key, allocation and 26-argument ctypes call (about
// 25 us of host time per conv on the CPU machine; an eager ResNet-50 runs 53 of them).
#include "conv_fast.h"

#include "alloc.h"

#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>

#include <array>
#include <cstdint>
#include <mutex>
#include <unordered_map>

namespace cg {
namespace {

// kernels/emit_conv.py: cg_conv_launch(x, w, out, scale_x, scale_guard, scale_w, bias, scale_out, n, h, w, c, k, r,
// s, pad_h, pad_w, stride_h, stride_w, dil_h, dil_w, p, q, workspace, workspace_bytes, stream)
using ConvLaunchFn = int (*)(void const*, void const*, void*, void const*, void const*, void const*, void const*,
                             void const*, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t,
                             int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, void*, size_t, void*);

constexpr size_t kDims = 18;
struct Key {
  std::array<int64_t, kDims + 1> v;  // the registered dims, then the output ScalarType
  bool operator==(Key const& o) const { return v == o.v; }
};
struct KeyHash {
  size_t operator()(Key const& key) const {
    uint64_t h = 0xCBF29CE484222325ull;
    for (int64_t e : key.v) h = (h ^ static_cast<uint64_t>(e)) * 0x100000001B3ull;
    return static_cast<size_t>(h);
  }
};
struct Plan {
  ConvLaunchFn launch;
  int64_t p, q, workspace_bytes;
};

std::mutex g_mutex;
std::unordered_map<Key, Plan, KeyHash> g_plans;

bool aligned16(at::Tensor const& t) { return (reinterpret_cast<uintptr_t>(t.data_ptr()) & 15u) == 0; }

// A one-element float32 tensor on `dev` (the kernel reads its first element through the pointer).
bool scalar_on(at::Tensor const& t, c10::Device dev) {
  return t.device() == dev && t.scalar_type() == at::kFloat && t.numel() == 1;
}

}  // namespace

void register_conv_plan(std::vector<int64_t> const& dims, at::ScalarType out_dtype, int64_t p, int64_t q,
                        int64_t workspace_bytes, int64_t launch_address) {
  TORCH_CHECK(dims.size() == kDims, "register_conv_plan: ", kDims, " dims expected");
  Key key;
  std::copy(dims.begin(), dims.end(), key.v.begin());
  key.v[kDims] = static_cast<int64_t>(out_dtype);
  std::lock_guard<std::mutex> lock(g_mutex);
  if (g_plans.size() > (1u << 12)) g_plans.clear();  // bounded, as the Python plan cache
  g_plans[key] = Plan{reinterpret_cast<ConvLaunchFn>(launch_address), p, q, workspace_bytes};
}

void clear_conv_plans() {
  std::lock_guard<std::mutex> lock(g_mutex);
  g_plans.clear();
}

c10::optional<at::Tensor> conv_fast(at::Tensor const& x, at::Tensor const& w, at::Tensor const& scale_x,
                                    c10::optional<at::Tensor> const& scale_guard, at::Tensor const& w_scale,
                                    c10::optional<at::Tensor> const& bias, c10::optional<at::Tensor> const& scale_out,
                                    int64_t stride_h, int64_t stride_w, int64_t pad_h, int64_t pad_w, int64_t dil_h,
                                    int64_t dil_w, int64_t activation, at::ScalarType out_dtype, int64_t* failed) {
  *failed = 0;
  // What ops/conv_igemm.py check_igemm checks per call; the shape rules are the registered signature's (checked
  // when its plan was made), so a call whose shapes match a key passes them too.
  if (!x.is_cuda() || x.scalar_type() != at::kChar || x.dim() != 4 || !x.is_contiguous() || !aligned16(x)) return {};
  const auto dev = x.device();
  if (w.device() != dev || w.scalar_type() != at::kChar || w.dim() != 4 || !w.is_contiguous() || !aligned16(w))
    return {};
  const int64_t k = w.size(0);
  if (!scalar_on(scale_x, dev)) return {};
  if (scale_guard.has_value() && !scalar_on(*scale_guard, dev)) return {};
  const bool quant_out = out_dtype == at::kChar;
  if (quant_out != scale_out.has_value() || (quant_out && !scalar_on(*scale_out, dev))) return {};
  if (w_scale.device() != dev || w_scale.scalar_type() != at::kFloat || w_scale.numel() != k || w_scale.dim() > 2 ||
      !w_scale.is_contiguous() || !aligned16(w_scale))
    return {};
  if (bias.has_value()) {
    const auto bias_dtype = quant_out ? at::kFloat : out_dtype;
    if (bias->device() != dev || bias->scalar_type() != bias_dtype || bias->dim() != 1 || bias->size(0) != k ||
        !bias->is_contiguous() || (bias->numel() && !aligned16(*bias)))
      return {};
  }
  Key key{{dev.index(), x.size(0), x.size(1), x.size(2), x.size(3), k, w.size(1), w.size(2), pad_h, pad_w, stride_h,
           stride_w, dil_h, dil_w, activation, bias.has_value(), scale_guard.has_value(), scale_out.has_value(),
           static_cast<int64_t>(out_dtype)}};
  if (w.size(3) != x.size(3)) return {};
  Plan plan;
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    auto it = g_plans.find(key);
    if (it == g_plans.end()) return {};
    plan = it->second;
  }
  const int64_t device = dev.index();
  c10::cuda::OptionalCUDAGuard guard;
  if (c10::cuda::current_device() != device) guard.set_index(static_cast<c10::DeviceIndex>(device));
  at::Tensor out = empty_dev({x.size(0), plan.p, plan.q, k}, out_dtype, device);
  at::Tensor ws;
  if (plan.workspace_bytes > 0) ws = empty_dev({plan.workspace_bytes}, at::kByte, device);
  cudaStream_t stream = c10::cuda::getCurrentCUDAStream(static_cast<c10::DeviceIndex>(device)).stream();
  auto ptr = [](c10::optional<at::Tensor> const& t) -> void const* { return t.has_value() ? t->data_ptr() : nullptr; };
  const int rc = plan.launch(x.data_ptr(), w.data_ptr(), out.data_ptr(), scale_x.data_ptr(), ptr(scale_guard),
                             w_scale.data_ptr(), bias.has_value() && bias->numel() ? bias->data_ptr() : nullptr,
                             ptr(scale_out), x.size(0), x.size(1), x.size(2), x.size(3), k, w.size(1), w.size(2),
                             pad_h, pad_w, stride_h, stride_w, dil_h, dil_w, plan.p, plan.q,
                             plan.workspace_bytes ? ws.data_ptr() : nullptr, static_cast<size_t>(plan.workspace_bytes),
                             stream);
  if (rc != 0) {
    *failed = rc;
    return {};
  }
  return out;
}

}  // namespace cg
