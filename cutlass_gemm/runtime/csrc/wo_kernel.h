// The descriptor of one compiled weight-only kernel (its entry and CTA shape), shared by the launcher (wo_launch.cuh)
// and the convolution's kernel list (wo_conv.cuh), which must not include the launcher: its variant switches would
// instantiate every GEMM kernel again in the convolution's translation unit.
#pragma once
#include "wo_common.cuh"

namespace cg_wo {

// One compiled kernel and the shape of its CTA tile.
struct WoKernel {
  void (*fn)(WoArgs) = nullptr;
  int smem = 0;     // dynamic shared memory, bytes
  int bn = 0;       // columns per CTA
  int warps_k = 0;  // 64-feature warp tiles per stage
  int rows = 0;     // M capacity (16 * m tiles)
  int threads = 0;  // 32 * warps
  int bits = 0;
  int ws_rows = 0;  // accumulator rows per column in the split-K workspace (>= rows)
  int x_tile = 0;   // direct kernels: bytes of x staged per 64-wide K tile (0: other kinds, fixed smem)
  int red = 0;      // direct kernels: shared memory of the warps' reduction
  bool row_blocks = false;  // serves M > rows as ceil(M / rows) row blocks (grid z): the mma kernels (wo_gemm.cuh)
};

}  // namespace cg_wo
