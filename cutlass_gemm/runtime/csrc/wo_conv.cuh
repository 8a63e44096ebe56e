// Weight-only implicit-GEMM convolution (session 54): the mma kernels of wo_gemm.cuh compiled with kConv (their x copies
// read the NHWC input at each output pixel's taps; WoConv in wo_common.cuh), planned and launched as the GEMM's
// (wo_launch.cuh wo_plan / launch_wo_gemm: row blocks along grid z, split-K, programmatic launches). The variant ids are
// the GEMM's (kWoVariants); only the row-block shapes the GEMM's row-block rules pick are compiled in this form
// (cutlass_gemm/ops/wo_heuristics.py CONV_VARIANTS mirrors the list; a CPU test checks it). It includes the kernel and
// its descriptor only, not the launcher (wo_kernel.h says why).
#pragma once
#include "wo_gemm.cuh"
#include "wo_kernel.h"

namespace cg_wo {

template <typename T, int kBits, bool kZero, int kMTiles, int kWarpsN, int kWarpsK, int kStages>
WoKernel wo_conv_kernel() {
  using S = WoShape<kBits, kZero, kMTiles, kWarpsN, kWarpsK, kStages>;
  return {wo_gemm_kernel<T, kBits, kZero, kMTiles, kWarpsN, kWarpsK, kStages, 1, true>, S::kSmem, S::kBN, kWarpsK,
          S::kRows, S::kThreads, kBits, S::kRows, 0, 0, true};
}

inline constexpr int kWoConvVariants[] = {1, 2, 3, 28};

template <typename T, int kBits, bool kZero>
WoKernel wo_conv_variant_kernel(int variant) {
  switch (variant) {  // the template arguments of wo_variant_kernel's cases
    case 1: return wo_conv_kernel<T, kBits, kZero, 1, 1, 4, 4>();
    case 2: return wo_conv_kernel<T, kBits, kZero, 2, 4, 1, 4>();
    case 3: return wo_conv_kernel<T, kBits, kZero, 4, 4, 1, 3>();
    case 28: return wo_conv_kernel<T, kBits, kZero, 2, 2, 4, 3>();
    default: return {};  // not compiled in the conv form: fn == nullptr
  }
}

inline WoKernel wo_conv_select(ActType t, int bits, bool zero, int variant) {
  if (t == ActType::kHalf) {
    if (bits == 4) return zero ? wo_conv_variant_kernel<__half, 4, true>(variant) : wo_conv_variant_kernel<__half, 4, false>(variant);
    return zero ? wo_conv_variant_kernel<__half, 8, true>(variant) : wo_conv_variant_kernel<__half, 8, false>(variant);
  }
  if (bits == 4)
    return zero ? wo_conv_variant_kernel<__nv_bfloat16, 4, true>(variant) : wo_conv_variant_kernel<__nv_bfloat16, 4, false>(variant);
  return zero ? wo_conv_variant_kernel<__nv_bfloat16, 8, true>(variant) : wo_conv_variant_kernel<__nv_bfloat16, 8, false>(variant);
}

// The output size of one spatial dimension (F.conv2d's rule); < 1 where the filter does not fit.
inline int64_t wo_conv_out(int64_t in, int64_t k, int64_t stride, int64_t pad, int64_t dil) {
  return (in + 2 * pad - dil * (k - 1) - 1) / stride + 1;
}

}  // namespace cg_wo
