// Eager fast path of the weight-only layer on its SM90 mixed-input copy: the checks the kernel relies on, the
// plan (kernel entry points) registered by the Python path for this exact shape, output and workspace, launch.
// About the host cost of the small-M layer entry instead of the Python path's (session 14: 50-88 us eager wall
// at 32-64 rows through Python against 27-30 us of kernel).
#include "wo_mixed_fast.h"

#include "alloc.h"

#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>

#include <cstdint>
#include <mutex>
#include <unordered_map>

namespace cg {
namespace {

// kernels/emit_mixed.py: cg_mixed_launch(w, x, out, scales, zeros, bias, m, n, k, ldx, ldo, group_size,
// workspace, workspace_bytes, stream) and cg_mixed_workspace_size(m, n, k, group_size)
using MixedLaunchFn = int (*)(void const*, void const*, void*, void const*, void const*, void const*, int64_t,
                              int64_t, int64_t, int64_t, int64_t, int64_t, void*, size_t, void*);
using MixedWorkspaceFn = size_t (*)(int64_t, int64_t, int64_t, int64_t);

struct Key {
  int64_t device, bits, dtype, m, n, k, group;
  bool operator==(Key const& o) const {
    return device == o.device && bits == o.bits && dtype == o.dtype && m == o.m && n == o.n && k == o.k &&
           group == o.group;
  }
};
struct KeyHash {
  size_t operator()(Key const& key) const {
    uint64_t h = static_cast<uint64_t>(key.m) * 0x9E3779B97F4A7C15ull ^ static_cast<uint64_t>(key.n) * 0xC2B2AE3D27D4EB4Full;
    h ^= static_cast<uint64_t>(key.k) * 0x165667B19E3779F9ull ^ static_cast<uint64_t>(key.group) << 7;
    h ^= (static_cast<uint64_t>(key.device) << 48) ^ (static_cast<uint64_t>(key.bits) << 40) ^
         (static_cast<uint64_t>(key.dtype) << 32);
    return static_cast<size_t>(h);
  }
};
struct Plan {
  MixedLaunchFn launch;
  MixedWorkspaceFn workspace;
};

std::mutex g_mutex;
std::unordered_map<Key, Plan, KeyHash> g_plans;

bool aligned16(at::Tensor const& t) { return (reinterpret_cast<uintptr_t>(t.data_ptr()) & 15u) == 0; }

}  // namespace

void register_mixed_plan(int64_t device, int64_t bits, at::ScalarType dtype, int64_t m, int64_t n, int64_t k,
                         int64_t group_size, int64_t launch_address, int64_t workspace_address) {
  std::lock_guard<std::mutex> lock(g_mutex);
  if (g_plans.size() > (1u << 14)) g_plans.clear();  // bounded: prefill sees many M
  g_plans[Key{device, bits, static_cast<int64_t>(dtype), m, n, k, group_size}] =
      Plan{reinterpret_cast<MixedLaunchFn>(launch_address), reinterpret_cast<MixedWorkspaceFn>(workspace_address)};
}

void clear_mixed_plans() {
  std::lock_guard<std::mutex> lock(g_mutex);
  g_plans.clear();
}

c10::optional<at::Tensor> mixed_linear_fast(at::Tensor const& x, at::Tensor const& qweight, at::Tensor const& scales,
                                            c10::optional<at::Tensor> const& bias, int64_t bits, int64_t group_size,
                                            int64_t n, int64_t* failed) {
  *failed = 0;
  // Every condition the kernel relies on (ops/weight_only.py checks and aligns the same on its path).
  if (!x.is_cuda() || (x.scalar_type() != at::kHalf && x.scalar_type() != at::kBFloat16) || x.dim() < 1) return {};
  const int64_t k = x.size(-1);
  if (k <= 0 || k % 64 || n <= 0 || n % 32 || (bits != 4 && bits != 8)) return {};
  if (!x.is_contiguous() || !aligned16(x)) return {};  // TMA: 16-byte aligned rows, row stride k
  const int64_t m = x.numel() / k;
  if (m < 1 || m >= (int64_t{1} << 31) || n >= (int64_t{1} << 31) || k >= (int64_t{1} << 31)) return {};
  if (group_size != 0 && (group_size < 64 || k % group_size)) return {};
  const auto dev = x.device();
  if (!qweight.is_cuda() || qweight.device() != dev || qweight.scalar_type() != at::kInt || !qweight.is_contiguous() ||
      qweight.dim() != 2 || qweight.size(0) != k / 16 || qweight.size(1) != n * bits / 2 || !aligned16(qweight))
    return {};
  const int64_t groups = group_size ? k / group_size : 1;
  if (scales.device() != dev || scales.scalar_type() != x.scalar_type() || !scales.is_contiguous() ||
      scales.dim() != 2 || scales.size(0) != groups || scales.size(1) != n || !aligned16(scales))
    return {};
  if (bias.has_value() && (bias->device() != dev || bias->scalar_type() != x.scalar_type() || !bias->is_contiguous() ||
                           bias->dim() != 1 || bias->size(0) != n || !aligned16(*bias)))
    return {};
  const int64_t device = dev.index();
  Plan plan;
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    auto it = g_plans.find(Key{device, bits, static_cast<int64_t>(x.scalar_type()), m, n, k, group_size});
    if (it == g_plans.end()) return {};
    plan = it->second;
  }
  c10::cuda::OptionalCUDAGuard guard;
  if (c10::cuda::current_device() != device) guard.set_index(static_cast<c10::DeviceIndex>(device));
  std::vector<int64_t> shape(x.sizes().begin(), x.sizes().end());
  shape.back() = n;
  at::Tensor out = empty_dev(shape, x.scalar_type(), device);
  const int64_t group = group_size ? group_size : k;
  const size_t ws_bytes = plan.workspace(m, n, k, group);
  at::Tensor ws;
  if (ws_bytes > 0) ws = empty_dev({static_cast<int64_t>(ws_bytes)}, at::kByte, device);
  cudaStream_t stream = c10::cuda::getCurrentCUDAStream(static_cast<c10::DeviceIndex>(device)).stream();
  const int rc = plan.launch(qweight.data_ptr(), x.data_ptr(), out.data_ptr(), scales.data_ptr(), nullptr,
                             bias.has_value() ? bias->data_ptr() : nullptr, m, n, k, k, n, group,
                             ws_bytes ? ws.data_ptr() : nullptr, ws_bytes, stream);
  if (rc != 0) {
    *failed = rc;
    return {};
  }
  return out;
}

}  // namespace cg
