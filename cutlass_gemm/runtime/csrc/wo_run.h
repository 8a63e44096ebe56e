// The weight-only launch shared by the GEMM's and the convolution's torch glue (wo_ops.cu, wo_conv_ops.cu); CUDA
// translation units only (it names the kernels' argument types).
#pragma once
#include <ATen/ATen.h>

#include "wo_kernel.h"

namespace cg {

// log2 of a power-of-two group size; cg_wo::kPerChannelShift for 0 (per channel).
int group_shift(int64_t group_size);

// The launch itself, on arguments already checked: m >= 1 rows of x (row stride ldx elements, unit last stride, K
// columns) that kern serves (wo_row_blocks), into out (m, n) contiguous; x stands for the device and the workspace's
// options only. Raw pointers, so that the layer call needs no view of x or of its output. `conv`: a kConv kernel's
// geometry (x is then the NHWC input and ldx its channel count), else null.
void run_wo(at::Tensor const& x, void const* xp, int64_t ldx, int64_t m, int64_t k, at::Tensor const& qweight,
            at::Tensor const& scales, c10::optional<at::Tensor> const& zeros, c10::optional<at::Tensor> const& bias,
            int64_t group_size, int64_t n, int64_t split, cg_wo::WoKernel const& kern, void* out,
            cg_wo::WoConv const* conv = nullptr);

}  // namespace cg
