"""Emit one SM80 int8 implicit-GEMM conv2d fprop kernel (kernels/conv2d.py, sm=80) as a self-contained .cu.

The kernel is kernels/cxx/conv80_visitor.hpp's `ConvFpropWithVisitor`: the mainloop of CUTLASS 2's
`DefaultConv2dFprop` (optimized NHWC / KRSC iterators, cp.async multistage, int8 mma.sync m16n8k32, int32
accumulators) with the visitor epilogue of CUTLASS 2's GEMMs (`EpilogueWithVisitorCallbacks` over
`DefaultGemmUniversal`'s epilogue of the same tile, warp and instruction shapes). The EVT has the SM90 conv's nodes
(emit_conv.py) in CUTLASS 2's spelling:

    D = act(scale_x * (scale_w[co] * acc) + bias[co])        (bf16 / fp16 out)
    D = saturate(rint(act(...) * inv_scale_out))             (int8 out, the chain's link: float32 bias)

scale_x is read as scale_x + 0 * scale_guard (a null guard reads 0), a null bias as zeros. The C ABI is the conv
family's (emit_conv.CONV_LAUNCHER_ABI_VERSION: cg_conv_launch / cg_conv_workspace_size with the same arguments), so
ops/conv_igemm.py and the C++ eager entry call either SM's kernels alike. These kernels are launched plainly (no
programmatic launch before SM90) and need no workspace.
"""
from __future__ import annotations

from pathlib import Path

from .conv2d import CONV_GENERATOR_VERSION, Conv2dConfig
from .emit import source_header, tidy_source
from .emit_conv import (_ACT_FUNCTORS, _OUT_TYPES, _SIZE_ARGS, _SIZE_PARAMS, CONV_LAUNCHER_ABI_VERSION,
                        EvtSpelling, conv_evt)
from .launcher_text import _COMMON_PRELUDE

_KERNEL_HPP = Path(__file__).with_name("cxx") / "conv80_visitor.hpp"

_INCLUDES = """\
#include <atomic>
#include <type_traits>
#include "cutlass/cutlass.h"
#include "cutlass/numeric_types.h"
#include "cutlass/arch/arch.h"
#include "cutlass/arch/mma.h"
#include "cutlass/layout/matrix.h"
#include "cutlass/layout/tensor.h"
#include "cutlass/conv/convolution.h"
#include "cutlass/conv/conv2d_problem_size.h"
#include "cutlass/conv/kernel/default_conv2d_fprop.h"
#include "cutlass/epilogue/thread/linear_combination.h"
#include "cutlass/gemm/threadblock/threadblock_swizzle.h"
#include "cutlass/gemm/kernel/default_gemm_universal.h"
#include "cutlass/epilogue/threadblock/fusion/visitors.hpp"
#include "cutlass/epilogue/threadblock/epilogue_with_visitor_callbacks.h"
"""


#: The visitor tree in CUTLASS 2's spelling (emit_conv.conv_evt: the SM90 conv EVT's nodes in its order): static
#: scalar strides (no programmatic launch before SM90), and a last node storing D (the visitor epilogue stores nothing
#: itself).
SM80_EVT = EvtSpelling(
    prelude="",
    acc_fetch="VisitorAccFetch",
    scalar_stride_decl="",
    scalar_stride="cute::Stride<cute::_0, cute::_0, cute::_0>",
    scalar_broadcast="VisitorScalarBroadcast",
    row_broadcast="VisitorRowBroadcast<OutputTileThreadMap, {}, cute::Stride<cute::_0, cute::_1, cute::_0>>",
    evt="Sm80EVT",
    compute="VisitorCompute",
    late_scalar="",
    root="EVTValue",
    store_node="VisitorAuxStore<OutputTileThreadMap, ElementOut, RN, cute::Stride<int64_t, cute::_1, cute::_0>>",
    store_args="{static_cast<ElementOut*>(out), stride_d}",
)


def _kernel_types(cfg: Conv2dConfig) -> str:
    tm, tn, tk = cfg.tile
    wm, wn, wk = cfg.warp_shape
    return f"""{_ACT_FUNCTORS}
{_KERNEL_HPP.read_text()}
namespace cg_conv80 {{
using namespace cutlass::epilogue::threadblock;
constexpr auto RN = cutlass::FloatRoundStyle::round_to_nearest;
using ElementOut = {_OUT_TYPES[cfg.out_dtype]};
using ElementBias = {"float" if cfg.out_dtype == "s8" else "ElementOut"};
using TileShape = cutlass::gemm::GemmShape<{tm}, {tn}, {tk}>;
using WarpShape = cutlass::gemm::GemmShape<{wm}, {wn}, {wk}>;
using InstructionShape = cutlass::gemm::GemmShape<16, 8, 32>;
using Swizzle = cutlass::gemm::threadblock::GemmIdentityThreadblockSwizzle<1>;
constexpr int kStages = {cfg.stages};
constexpr int kAlignIn = 16;                                   // 16-byte cp.async of int8: C % 16 == 0
// 8 output elements per store (16 bytes of bf16/fp16, 8 of int8: 16 int8 leave a 64-wide tile's epilogue thread
// map no rows): K % 8 == 0
constexpr int kAlignOut = 8;
using OutputTileThreadMap = OutputTileThreadLayout<TileShape, WarpShape, ElementOut, kAlignOut, 1>;
{conv_evt(cfg, SM80_EVT)[0]}
// Only the base kernels' Mma and Epilogue types are used; their thread-level functor is never instantiated on device.
using BaseOp = cutlass::epilogue::thread::LinearCombination<ElementOut, kAlignOut, int32_t, float>;
using GemmBase = typename cutlass::gemm::kernel::DefaultGemmUniversal<
    int8_t, cutlass::layout::RowMajor, cutlass::ComplexTransform::kNone, kAlignIn,
    int8_t, cutlass::layout::ColumnMajor, cutlass::ComplexTransform::kNone, kAlignIn,
    ElementOut, cutlass::layout::RowMajor, int32_t, cutlass::arch::OpClassTensorOp, cutlass::arch::Sm80,
    TileShape, WarpShape, InstructionShape, BaseOp, Swizzle, kStages, cutlass::arch::OpMultiplyAddSaturate>::GemmKernel;
using ConvBase = typename cutlass::conv::kernel::DefaultConv2dFprop<
    int8_t, cutlass::layout::TensorNHWC, int8_t, cutlass::layout::TensorNHWC, ElementOut, cutlass::layout::TensorNHWC,
    int32_t, cutlass::arch::OpClassTensorOp, cutlass::arch::Sm80, TileShape, WarpShape, InstructionShape, BaseOp,
    Swizzle, kStages, cutlass::arch::OpMultiplyAddSaturate, cutlass::conv::IteratorAlgorithm::kOptimized,
    cutlass::conv::StrideSupport::kStrided, kAlignIn, kAlignIn>::Kernel;
// The GEMM epilogue reads the conv mainloop's accumulators: both must come from one warp-level MMA.
static_assert(std::is_same<typename GemmBase::Mma::Operator, typename ConvBase::Mma::Operator>::value,
              "the conv and GEMM mainloops differ in their warp-level MMA");
using Epilogue = EpilogueWithVisitorCallbacks<typename GemmBase::Epilogue, EVTD, 1>;
using Kernel = ConvFpropWithVisitor<typename ConvBase::Mma, Epilogue, Swizzle>;
}}  // namespace cg_conv80
"""


def _launcher(cfg: Conv2dConfig) -> str:
    return f"""
// ---- C-ABI launcher (cutlass_gemm, conv2d family, SM80) -------------------------------------
CG_EXPORT int cg_abi_version() {{ return {CONV_LAUNCHER_ABI_VERSION}; }}
CG_EXPORT char const* cg_kernel_name() {{ return "{cfg.name}"; }}
CG_EXPORT char const* cg_last_error() {{ return cg_error_text; }}

namespace {{
using cg_conv80::ElementOut;
using cg_conv80::ElementBias;
using cg_conv80::Kernel;

cutlass::conv::Conv2dProblemSize make_problem({_SIZE_PARAMS}) {{
  // CUTLASS's output extent; PyTorch's conv2d is a cross-correlation (the filter is not flipped).
  int p = int((h + 2 * pad_h - dil_h * (r - 1) - 1) / stride_h + 1);
  int q = int((w + 2 * pad_w - dil_w * (s - 1) - 1) / stride_w + 1);
  return cutlass::conv::Conv2dProblemSize(int(n), int(h), int(w), int(c), int(k), int(r), int(s), p, q, int(pad_h),
                                          int(pad_w), int(stride_h), int(stride_w), int(dil_h), int(dil_w),
                                          cutlass::conv::Mode::kCrossCorrelation, 1, 1);
}}

typename Kernel::FusionCallbacks::Arguments make_epilogue(void* out, void const* scale_x, void const* scale_guard,
                                                          void const* scale_w, void const* bias,
                                                          void const* scale_out, int64_t k) {{
  (void)scale_out;  // read by int8-output kernels only
  cute::Stride<int64_t, cute::_1, cute::_0> stride_d{{}};
  cute::get<0>(stride_d) = k;  // NHWC output: the (N*P*Q, K) matrix's rows are K apart
  return {conv_evt(cfg, SM80_EVT)[1]};
}}

// Shared memory above 48 KB needs the attribute once per device.
std::atomic<bool> g_smem_set[64];
}}  // namespace

CG_EXPORT size_t cg_conv_workspace_size({_SIZE_PARAMS}) {{
  (void)n; (void)h; (void)w; (void)c; (void)k; (void)r; (void)s; (void)pad_h; (void)pad_w;
  (void)stride_h; (void)stride_w; (void)dil_h; (void)dil_w;
  return 0;
}}

CG_EXPORT int cg_conv_launch(void const* x, void const* wt, void* out, void const* scale_x, void const* scale_guard,
                             void const* scale_w, void const* bias, void const* scale_out, {_SIZE_PARAMS},
                             int64_t p, int64_t q,
                             void* workspace, size_t workspace_bytes, void* stream_handle) {{
  (void)workspace; (void)workspace_bytes;
  cutlass::conv::Conv2dProblemSize problem = make_problem({_SIZE_ARGS});
  if (problem.P != p || problem.Q != q)
    return cg_fail(6, "output size", "p, q differ from CUTLASS's output extent");
  if (c % cg_conv80::kAlignIn || k % cg_conv80::kAlignOut)
    return cg_fail(1, "can_implement", "C must be a multiple of 16 and K of 8");
  cutlass::Status status = Kernel::Mma::IteratorA::can_implement(problem);
  if (status == cutlass::Status::kSuccess) status = Kernel::Mma::IteratorB::can_implement(problem);
  if (status != cutlass::Status::kSuccess)
    return cg_fail(1, "can_implement", cutlass::cutlassGetStatusString(status));
  auto params = Kernel::make_params(problem, x, wt,
                                    make_epilogue(out, scale_x, scale_guard, scale_w, bias, scale_out, k));
  int smem = int(sizeof(typename Kernel::SharedStorage));
  int device = 0;
  cudaError_t err = cudaGetDevice(&device);
  if (err != cudaSuccess) return cg_fail(4, "cudaGetDevice", cudaGetErrorString(err));
  if (smem >= (48 << 10) && (device >= 64 || !g_smem_set[device].load(std::memory_order_acquire))) {{
    err = cudaFuncSetAttribute(cg_conv80::conv_fprop_visitor_kernel<Kernel>,
                               cudaFuncAttributeMaxDynamicSharedMemorySize, smem);
    if (err != cudaSuccess) return cg_fail(3, "cudaFuncSetAttribute", cudaGetErrorString(err));
    if (device < 64) g_smem_set[device].store(true, std::memory_order_release);
  }}
  cg_conv80::conv_fprop_visitor_kernel<Kernel><<<Kernel::grid(params), Kernel::kThreadCount, smem,
                                                 static_cast<cudaStream_t>(stream_handle)>>>(params);
  err = cudaGetLastError();
  if (err != cudaSuccess) return cg_fail(4, "launch", cudaGetErrorString(err));
  return 0;
}}
"""


def emit_conv80_source(cfg: Conv2dConfig) -> str:
    """The complete .cu text of one SM80 conv2d kernel (deterministic: no timestamps, no paths)."""
    header = source_header(cfg, "conv2d generator", CONV_GENERATOR_VERSION)
    text = header + _COMMON_PRELUDE + _INCLUDES + _kernel_types(cfg) + _launcher(cfg)
    return tidy_source(text)
