// Declarations of the weight-only GEMM's torch glue (wo_ops.cu), bound in fast_path.cpp.
#pragma once
#include <ATen/ATen.h>
#include <cuda_runtime.h>

#include <string>
#include <tuple>
#include <vector>

namespace cg {

// Zeroed split-K arrival counters (at least `need` ints) for kernels that leave them zero at rest (the
// weight-only and per-block int8 GEMMs): one buffer per (device, stream), a separate one kept for good
// for each CUDA-graph capture. Defined in wo_ops.cu.
int* split_counters(at::Tensor const& like, cudaStream_t stream, int64_t need);

// out (M, N) = x (M, K) @ dequant(packed weight)^T (+ bias), M <= 64, on the current stream. x: CUDA
// fp16/bf16, unit last stride, 16-byte aligned rows; scales / zeros / bias in x's dtype (layout of
// cutlass_gemm/quant/prepack.py). group_size 0: per channel. split: 0 = automatic, > 0 forces it
// (tuning). variant: 0 = the default kernel for M, else an id of cg_wo::kWoVariants (wo_launch.cuh), which
// must serve M. Python validates everything first (cutlass_gemm/ops/weight_only.py); TORCH_CHECKs here are
// the last line only.
at::Tensor wo_gemm(at::Tensor const& x, at::Tensor const& qweight, at::Tensor const& scales,
                   c10::optional<at::Tensor> const& zeros, c10::optional<at::Tensor> const& bias, int64_t bits,
                   int64_t group_size, int64_t n, int64_t split, int64_t variant);

// wo_gemm for the eager layer call (nn.WeightOnlyLinear): x (..., K) -> (..., N), checking everything the
// kernel relies on (shapes, dtypes, devices, contiguity, alignment, M <= 64, the variant's capacity) and
// returning nothing, rather than raising, when one fails: the Python path then serves the call or raises
// the typed error. variant as for wo_gemm.
c10::optional<at::Tensor> wo_linear_fast(at::Tensor const& x, at::Tensor const& qweight, at::Tensor const& scales,
                                         c10::optional<at::Tensor> const& zeros, c10::optional<at::Tensor> const& bias,
                                         int64_t bits, int64_t group_size, int64_t n, int64_t variant);

// The dense (n, k) weight in scales' dtype that a packed weight stands for (wo_dequant.cuh), for the
// large-M fallback (dequantize, then a cuBLAS GEMM). group_size 0: per channel.
at::Tensor wo_dequant(at::Tensor const& qweight, at::Tensor const& scales, c10::optional<at::Tensor> const& zeros,
                      int64_t bits, int64_t group_size, int64_t n, int64_t k);
// The same into `out`, (n, k) contiguous elements of scales' dtype on qweight's device (the conv layer's weight buffer).
void wo_dequant_into(at::Tensor const& qweight, at::Tensor const& scales, c10::optional<at::Tensor> const& zeros,
                     int64_t bits, int64_t group_size, int64_t n, int64_t k, void* out);

// The launch plan the call above makes, for reports and tests: (M capacity, columns per CTA, splits, CTAs,
// dynamic shared memory bytes, threads per CTA).
std::vector<int64_t> wo_plan_info(int64_t m, int64_t n, int64_t k, int64_t bits, bool zero, bool bf16, int64_t variant);

// The weight-only convolution (wo_conv_ops.cu): out (N, P, Q, n) = conv2d(x, W) (+ bias) with x a contiguous NHWC
// (N, H, W, C) fp16/bf16 tensor (C % 8 == 0, 16-byte aligned) and W the packed (n, K) weight whose columns are the
// reduction in (Kh, Kw, C) order, zero-padded to K (a multiple of 64 and of the group). geometry = (kh, kw, stride_h,
// stride_w, pad_h, pad_w, dil_h, dil_w); variant: one of wo_conv_variants(); split as for wo_gemm. Python validates
// everything first (cutlass_gemm/ops/conv_wo.py).
at::Tensor wo_conv(at::Tensor const& x, at::Tensor const& qweight, at::Tensor const& scales,
                   c10::optional<at::Tensor> const& zeros, c10::optional<at::Tensor> const& bias, int64_t bits,
                   int64_t group_size, int64_t n, std::vector<int64_t> const& geometry, int64_t split, int64_t variant);
// wo_conv for nn.WeightOnlyConv2d's eager call: x an (N, C, H, W) tensor in channels_last memory, the output (N, n,
// P, Q) channels_last, no view or torch op on either (the layer's Python checks what the TORCH_CHECKs do not).
// variant kDequantConv (-1): the "dequant_cudnn" route instead (ops/conv_wo.py _dequant_conv): the weight dequantized
// to x's dtype by one kernel, then at::conv2d on it seen as a channels_last (n, C, kh, kw) weight (cuDNN; its bias add
// included), or for a 1x1 stride-1 unpadded conv at::addmm / at::mm over the pixel rows (cuBLAS).
at::Tensor wo_conv_layer(at::Tensor const& x, at::Tensor const& qweight, at::Tensor const& scales,
                         c10::optional<at::Tensor> const& zeros, c10::optional<at::Tensor> const& bias, int64_t bits,
                         int64_t group_size, int64_t n, std::vector<int64_t> const& geometry, int64_t variant);
// The variant ids compiled in the convolution form (wo_conv.cuh kWoConvVariants).
std::vector<int64_t> wo_conv_variants();

// The selectable kernel variants: (id, name, M capacity), as cg_wo::kWoVariants lists them.
std::vector<std::tuple<int64_t, std::string, int64_t>> wo_variants();

// Which weight-only kernels launch as programmatic dependents (measuring; wo_launch.cuh's wo_pdl_policy): 0 the direct
// and int4 kernels (sessions 20-21), 1 all, 2 all with their CTAs spread at most ceil(CTAs / SMs) per SM (the default);
// another value reads it. Returns the previous one.
int64_t wo_set_pdl_policy(int64_t policy);
// Split mma launches of at most `max_splits` splits (2..8; 0 or 1: none) add their partial sums in a thread block cluster
// (SM90), the others through the global workspace; another value reads the setting. Returns the previous one.
int64_t wo_set_cluster_reduce(int64_t max_splits);

}  // namespace cg
