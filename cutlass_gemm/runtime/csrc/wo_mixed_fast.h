// Eager fast path of the weight-only layer on its SM90 mixed-input copy (wo_mixed_fast.cpp).
#pragma once
#include <torch/extension.h>

namespace cg {

// The mixed-input kernel (kernels/emit_mixed.py's C ABI) that serves one call shape, registered by the Python
// path (ops/weight_only.py launch_mixed) after it built, loaded and ran the kernel once for that shape.
void register_mixed_plan(int64_t device, int64_t bits, at::ScalarType dtype, int64_t m, int64_t n, int64_t k,
                         int64_t group_size, int64_t launch_address, int64_t workspace_address);
void clear_mixed_plans();

// out (..., n) = x (..., k) @ W^T (+ bias) for a symmetric weight in layout "cutlass_mixed_sm90_v1", or nothing
// when the call is not one this function checked for (the Python path then takes it: typed errors, zero points,
// act-order, first calls of a shape). A failed launch returns its code.
c10::optional<at::Tensor> mixed_linear_fast(at::Tensor const& x, at::Tensor const& qweight, at::Tensor const& scales,
                                            c10::optional<at::Tensor> const& bias, int64_t bits, int64_t group_size,
                                            int64_t n, int64_t* failed);

}  // namespace cg
