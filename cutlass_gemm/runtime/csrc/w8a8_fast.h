// The W8A8 linear layer's eager call in one step (w8a8_fast.cpp): quantize the activation, then the GEMM through
// the fast path's plan registry (gemm_plans.h).
#pragma once
#include <torch/extension.h>

namespace cg {

// `x` (..., K) bf16/fp16, `weight` the (N, K) int8/fp8 weight. `act`: 0 dynamic per-token, 1 dynamic per-token
// asymmetric, 2 static per-tensor (3: with zero point), 4 dynamic per-tensor. `activation`: the epilogue activation
// code (gemm_plans.h kActivationShift). `rows`: the M the GEMM runs on (kernels/heuristics.py padded_rows: whole M
// tiles), at least x's rows. Returns the (..., N) output; None when anything is unusual (the Python path then
// validates and raises the typed error); the launcher's error code when a launch failed; or, when the GEMM has no
// plan yet (first call of this M), the tuple (q, scale, azp, azp_adj), padded to `rows`, for the Python path to
// finish (it makes the plan).
py::object w8a8_linear(at::Tensor const& x, at::Tensor const& weight, at::Tensor const& weight_scale,
                       c10::optional<at::Tensor> const& bias, int64_t act,
                       c10::optional<at::Tensor> const& input_scale, c10::optional<at::Tensor> const& input_zp,
                       c10::optional<at::Tensor> const& azp_adj, c10::optional<at::ScalarType> out_dtype,
                       int64_t activation, int64_t rows);

}  // namespace cg
