// Eager fast path of the int8 implicit-GEMM convolution op (conv_fast.cpp).
#pragma once
#include <torch/extension.h>

#include <vector>

namespace cg {

// The conv kernel (kernels/emit_conv.py's C ABI, conv launcher ABI 3) that serves one call signature, registered
// by the Python path (ops/conv_igemm.py get_plan) once it checked that signature and loaded its kernel. `dims`:
// device, n, h, w, c, k, r, s, pad_h, pad_w, stride_h, stride_w, dil_h, dil_w, activation (0 none, 1 relu,
// 2 relu6), has_bias, has_guard, has_scale_out.
void register_conv_plan(std::vector<int64_t> const& dims, at::ScalarType out_dtype, int64_t p, int64_t q,
                        int64_t workspace_bytes, int64_t launch_address);
void clear_conv_plans();

// y (n, p, q, k) NHWC = the op `conv2d_int8_igemm` for a registered signature whose tensors pass every check the
// kernel relies on, or nothing (the Python path then takes the call: typed errors, first calls of a signature).
// A failed launch returns nothing and its code in *failed.
c10::optional<at::Tensor> conv_fast(at::Tensor const& x, at::Tensor const& w, at::Tensor const& scale_x,
                                    c10::optional<at::Tensor> const& scale_guard, at::Tensor const& w_scale,
                                    c10::optional<at::Tensor> const& bias, c10::optional<at::Tensor> const& scale_out,
                                    int64_t stride_h, int64_t stride_w, int64_t pad_h, int64_t pad_w, int64_t dil_h,
                                    int64_t dil_w, int64_t activation, at::ScalarType out_dtype, int64_t* failed);

}  // namespace cg
