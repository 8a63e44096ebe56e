// Declaration of the per-block int8 GEMM's torch glue (bi8_ops.cu), bound in fast_path.cpp.
#pragma once
#include <ATen/ATen.h>

#include <vector>

namespace cg {

// out (M, N) in out_dtype = act(sum_kb sa[m, kb] * sb[n, kb] * (a_kb @ w_kb^T) + bias) on the current
// stream, no host synchronisation (bi8_gemm.cuh). a (M, K) / w (N, K) int8 CUDA with unit last stride
// and 16-byte aligned rows; scale_a (M, K/B) / scale_b (N, K/B) float32, any non-negative strides;
// bias (N,) in out_dtype or none; block 64 / 128; act 0..4 (none, relu, relu6, gelu_tanh, silu);
// split 0 = automatic, > 0 forces it (tests, tuning). Python validates everything first
// (cutlass_gemm/ops/blockwise_int8.py); the TORCH_CHECKs here are the last line only.
at::Tensor bi8_gemm(at::Tensor const& a, at::Tensor const& w, at::Tensor const& scale_a, at::Tensor const& scale_b,
                    c10::optional<at::Tensor> const& bias, at::ScalarType out_dtype, int64_t block, int64_t act,
                    int64_t split);

// The block-scaled decode GEMV (gemv_w8a8.cuh, M <= 16) with torch tensors: a (M, K) / w (N, K) int8 or
// float8_e4m3fn (the same), scale_a (M, K/B), scale_b (N, K/B) with sb_shift 0 or (ceil(N/128), K/B) with
// sb_shift 7 (fp8 blockwise, B = 128), float32 any non-negative strides; bias (N,) or none; act 0..4. On the
// current stream, no host synchronisation; Python validates first (ops/blockwise_int8.py, ops/blockwise.py).
at::Tensor block_gemv(at::Tensor const& a, at::Tensor const& w, at::Tensor const& scale_a, at::Tensor const& scale_b,
                      c10::optional<at::Tensor> const& bias, at::ScalarType out_dtype, int64_t block, int64_t sb_shift,
                      int64_t act);

// The launch plan bi8_gemm makes, for reports and tests: (tile rows, tile columns, splits, CTAs).
std::vector<int64_t> bi8_plan_info(int64_t m, int64_t n, int64_t k, int64_t block, bool bf16, int64_t split);

// The eager call of a per-block int8 / blockwise fp8 layer (Int8BlockLinear, Fp8BlockLinear) from one C++ call: x
// (..., K) bf16/fp16/fp32 quantized per group of `block` along K (quant_groups), then the GEMM the layer's Python path
// runs: M <= max_m block_gemv (row-major scales); above, int8 bi8_gemm, fp8 the CUTLASS blockwise kernel whose C-ABI
// launcher `gemm_fn` (cg_blockwise_launch) the caller looked up for this M (0: none), with `gemm_ws_bytes` of
// workspace and column-major activation scales when `scale_col_major` (kernels/blockwise.py layer_sfa_major). On the
// current stream, no host synchronisation; the output (..., N) in out_dtype. nullopt (the Python path takes the call,
// validates and raises typed errors) unless every tensor is what the kernels rely on (devices, dtypes, contiguity,
// 16-byte aligned weight rows and bias, scale shapes) and, for fp8 above max_m, the launcher accepted the call.
// `pad_rows` (the CUTLASS kernel only; 0: M): the M it runs on, whole M tiles (kernels/blockwise.py padded_rows); the
// quantizer's rows past M are left as allocated and the output is the first M rows of the (pad_rows, N) result.
c10::optional<at::Tensor> block_linear_fast(at::Tensor const& x, at::Tensor const& weight, at::Tensor const& weight_scale,
                                            c10::optional<at::Tensor> const& bias, int64_t block, int64_t sb_shift,
                                            at::ScalarType out_dtype, int64_t act, int64_t max_m, int64_t gemm_fn,
                                            int64_t gemm_ws_bytes, bool scale_col_major, int64_t pad_rows = 0);

}  // namespace cg
