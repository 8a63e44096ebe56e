// Declarations shared by the extension's translation units (quant_ops.cu, fast_path.cpp, module.cpp).
#pragma once
#include <ATen/ATen.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <vector>

namespace cg {

// Row-wise quantization of a 2-D (rows, K) view with unit last stride. `mode` is a cg_quant::RowMode.
// Returns {q (rows, K), scale ((rows, 1), or 0-dim for per-tensor), azp ((rows, 1) int32 or undefined),
// residual_out ((rows, K) or undefined)}. With `pad_rows` > rows, q, a per-row scale and azp have pad_rows
// rows, those past x's zero (q 0, scale 0, azp 0) with `zero_pad`, else left as allocated: a GEMM then runs on
// whole M tiles (kernels/heuristics.py padded_rows says why); residual_out keeps x's rows.
std::vector<at::Tensor> quant_rows(at::Tensor const& x, int64_t mode, at::ScalarType qtype,
                                   c10::optional<at::Tensor> const& static_scale,
                                   c10::optional<at::Tensor> const& static_azp,
                                   c10::optional<at::Tensor> const& scale_ub,
                                   c10::optional<at::Tensor> const& residual,
                                   c10::optional<at::Tensor> const& norm_weight, double eps,
                                   int64_t pad_rows = 0, bool zero_pad = true);

// Where quant_rows_to writes: q (rows, K) with leading dimension K; one float scale per row (per-tensor modes: one);
// int32 zero points per row (the asymmetric mode; else null); the residual sum (rows, K) (kRmsNorm with a residual;
// else null); `partials`: per-tensor dynamic mode scratch of quant_partials_capacity() ints (else null).
struct RowTargets {
  void* q;
  float* scale;
  int32_t* azp;
  void* residual_out;
  unsigned* partials;
};
int64_t quant_partials_capacity();

// quant_rows without allocating: `rows` rows of x (row stride `ldx` elements, unit last stride; its dtype, device
// and K are x's, whatever its shape) into caller-owned memory on `stream`. quant_rows allocates and calls it; the
// W8A8 layer's eager call (w8a8_fast.cpp) hands it one buffer for all outputs.
void quant_rows_to(at::Tensor const& x, int64_t rows, int64_t ldx, int64_t mode, at::ScalarType qtype,
                   RowTargets const& out, c10::optional<at::Tensor> const& static_scale,
                   c10::optional<at::Tensor> const& static_azp, c10::optional<at::Tensor> const& scale_ub,
                   c10::optional<at::Tensor> const& residual, c10::optional<at::Tensor> const& norm_weight,
                   double eps, cudaStream_t stream);

// Per-group (along K) symmetric quantization: {q (rows, K), scale (rows, K / group)}; with
// `scale_col_major` the scale is the column-major view (strides (1, rows)) of a (K / group, rows) tensor.
// `pad_rows`: as quant_rows, rows past x's zero (the column-major scale's leading dimension is then pad_rows).
std::vector<at::Tensor> quant_groups(at::Tensor const& x, int64_t group, at::ScalarType qtype, bool scale_col_major,
                                     int64_t pad_rows = 0);
// quant_groups without allocating: `rows` rows of x (row stride `ldx` elements; 16-byte aligned rows, unit last stride,
// K columns whatever x's shape) into q (rows, K) and scale: row-major (rows, K / group), or with `scale_col_major`
// column-major with leading dimension `scale_ld` (>= rows). The per-block layers' eager call (bi8_ops.cu) hands it
// parts of one buffer.
void quant_groups_to(at::Tensor const& x, int64_t rows, int64_t ldx, int64_t group, at::ScalarType qtype, void* q,
                     float* scale, bool scale_col_major, int64_t scale_ld, cudaStream_t stream);

}  // namespace cg
