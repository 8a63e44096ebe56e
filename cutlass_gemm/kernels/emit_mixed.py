"""Emit one SM90 mixed-input (weight-only) GEMM as a self-contained .cu with a C-ABI launcher.

The kernel types are written from a template (cutlass_cppgen has no mixed-input front end): CUTLASS's
CollectiveBuilder with `tuple<narrow type, scale type[, zero type]>` as the A operand (the weight),
laid out by the reorder atom of quant/prepack_mixed.py (the same permutation, written here as a CuTe
layout: tests compile both against CUTLASS's own `compute_memory_reordering_atom`), x as the K-major B
operand, and a TMA epilogue writing D^T column-major with a per-row bias (LinCombPerRowBias; a null bias
pointer reads as zeros, so one kernel serves calls with and without a bias).

C ABI (LAUNCHER_ABI_VERSION of launcher_text.py; the entry points have their own names so that a library of one
family can never be called with the other's signature):

    int    cg_mixed_launch(w, x, out, scales, zeros, bias, m, n, k, ldx, ldo, group_size,
                           workspace, workspace_bytes, stream)
    size_t cg_mixed_workspace_size(m, n, k, group_size)

w: the prepacked weight; x (m, k) with row stride ldx; out (m, n) with row stride ldo; scales / zeros
(k / group_size, n) contiguous (zeros: the additive term, -zero_point * scale; null without zero
points); bias (n,) or null; all in the activation dtype.
"""
from __future__ import annotations

from .emit import source_header, tidy_source
from .emit_streamk import STREAMK_TAG, sm90_streamk_workspace, streamk_text
from .launcher_text import (LAUNCHER_ABI_VERSION, PROGRAMMATIC_DEFINE, _COMMON_PRELUDE, _SM90_DEVICE_LOOKUP,
                            _SM90_DRIVER_SHIM, sm90_device_setup, sm90_run_args, sm90_split_source)
from .mixed_input import MIXED_GENERATOR_VERSION, MixedInputConfig

_ACT_TYPES = {"bf16": "cutlass::bfloat16_t", "f16": "cutlass::half_t"}
_WEIGHT_TYPES = {(4, False): "cutlass::int4b_t", (4, True): "cutlass::uint4b_t",
                 (8, False): "cutlass::int8_t", (8, True): "cutlass::uint8_t"}

#: The reorder atom per weight width: a 16 (n) x 16 (k) block of the weight, (n, k) -> storage offset,
#: as ((n0:8, n1:2), (k0:2, k1:4, k2:2)) modes with n = n0 + 8 n1, k = k0 + 2 k1 + 8 k2. It places the
#: 8 values one thread of a warp holds in the wgmma A fragment (rows n0 + 8 n1, columns 2 k1 + k0 + 8 k2)
#: next to each other (thread n0 * 4 + k1 owns offsets [8 t, 8 t + 8)), and orders them as CUTLASS's fast
#: converters expect: int4 [0 2 4 6 1 3 5 7], int8 [0 2 1 3] per 4 (prepack_mixed.py has the same map).
_ATOMS = {
    4: "Layout<Shape<Shape<_8, _2>, Shape<_2, _4, _2>>, Stride<Stride<_32, _1>, Stride<_4, _8, _2>>>",
    8: "Layout<Shape<Shape<_8, _2>, Shape<_2, _4, _2>>, Stride<Stride<_32, _1>, Stride<_2, _8, _4>>>",
}
_SCHEDULES = {"cooperative": ("cutlass::gemm::KernelTmaWarpSpecializedCooperative",
                              "cutlass::epilogue::TmaWarpSpecializedCooperative"),
              "pingpong": ("cutlass::gemm::KernelTmaWarpSpecializedPingpong",
                           "cutlass::epilogue::TmaWarpSpecialized")}

_INCLUDES = """\
#include "cutlass/cutlass.h"
#include "cute/tensor.hpp"
#include "cutlass/numeric_types.h"
#include "cutlass/gemm/dispatch_policy.hpp"
#include "cutlass/gemm/collective/collective_builder.hpp"
#include "cutlass/epilogue/collective/collective_builder.hpp"
#include "cutlass/epilogue/fusion/operations.hpp"
#include "cutlass/gemm/kernel/gemm_universal.hpp"
"""

_WORKSPACE = """\
CG_EXPORT size_t cg_mixed_workspace_size(int64_t m, int64_t n, int64_t k, int64_t group_size) {
  auto args = make_args(nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, m, n, k, k, n, group_size);
  return Gemm::get_workspace_size(args);
}
"""

#: The stream-K scheduler sizes its workspace by the SM count and cluster occupancy (emit_streamk's entry).
_WORKSPACE_STREAMK = sm90_streamk_workspace(
    "CG_EXPORT size_t cg_mixed_workspace_size(int64_t m, int64_t n, int64_t k, int64_t group_size)",
    "make_args(nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, m, n, k, k, n, group_size)")

_ENTRY = """\
CG_EXPORT int cg_mixed_launch(void const* w, void const* x, void* out, void const* scales, void const* zeros,
                              void const* bias, int64_t m, int64_t n, int64_t k, int64_t ldx, int64_t ldo,
                              int64_t group_size, void* workspace, size_t workspace_bytes, void* stream_handle) {
"""


def _kernel_types(cfg: MixedInputConfig) -> str:
    act = _ACT_TYPES[cfg.act_dtype]
    weight = _WEIGHT_TYPES[(cfg.bits, cfg.zero_point)]
    operand = "cute::tuple<ElementW, ElementScale, ElementZero>" if cfg.zero_point else \
        "cute::tuple<ElementW, ElementScale>"
    kernel_schedule, epilogue_schedule = _SCHEDULES[cfg.schedule]
    tile = ", ".join(f"_{v}" for v in cfg.tile)
    scheduler = f", {STREAMK_TAG}" if cfg.scheduler == "streamk" else ""
    cluster = ", ".join(f"_{v}" for v in cfg.cluster)
    stages = (f"cutlass::gemm::collective::StageCount<{cfg.stages}>" if cfg.stages else
              "cutlass::gemm::collective::StageCountAutoCarveout<\n"
              "    static_cast<int>(sizeof(typename CollectiveEpilogue::SharedStorage))>")
    return f"""
namespace {{
using namespace cute;
using ElementW = {weight};
using ElementAct = {act};
using ElementScale = ElementAct;  // the collective scales in the MMA type
using ElementZero = ElementAct;   // additive term: w = q * scale + zero
using ElementOut = ElementAct;
using LayoutAtomW = {_ATOMS[cfg.bits]};
// The weight's whole layout: atoms tiled over (N, K, L), N fastest (what prepack_mixed.py writes).
using LayoutW = decltype(cute::tile_to_shape(LayoutAtomW{{}}, cute::make_shape(int{{}}, int{{}}, int{{}})));
using LayoutX = cutlass::layout::ColumnMajor;  // B = x^T: x (M, K) row-major is a K-major B
using LayoutD = cutlass::layout::ColumnMajor;  // D^T (N, M) column-major = out (M, N) row-major
constexpr int kAlignW = 128 / cutlass::sizeof_bits<ElementW>::value;
constexpr int kAlignAct = 128 / cutlass::sizeof_bits<ElementAct>::value;
using TileShape = Shape<{tile}>;
using ClusterShape = Shape<{cluster}>;

// out = acc + bias[n] (per row of D^T), in float, converted once to the activation dtype; no C operand.
using FusionOp = cutlass::epilogue::fusion::LinCombPerRowBias<ElementOut, float, ElementAct, ElementOut, float>;
using CollectiveEpilogue = typename cutlass::epilogue::collective::CollectiveBuilder<
    cutlass::arch::Sm90, cutlass::arch::OpClassTensorOp, TileShape, ClusterShape,
    cutlass::epilogue::collective::EpilogueTileAuto, float, float,
    void, LayoutD, kAlignAct, ElementOut, LayoutD, kAlignAct,
    {epilogue_schedule}, FusionOp>::CollectiveOp;
using CollectiveMainloop = typename cutlass::gemm::collective::CollectiveBuilder<
    cutlass::arch::Sm90, cutlass::arch::OpClassTensorOp,
    {operand}, LayoutW, kAlignW,
    ElementAct, LayoutX, kAlignAct,
    float, TileShape, ClusterShape,
    {stages},
    {kernel_schedule}>::CollectiveOp;
using GemmKernel = cutlass::gemm::kernel::GemmUniversal<Shape<int, int, int, int>, CollectiveMainloop,
                                                        CollectiveEpilogue{scheduler}>;
using Gemm = cutlass::gemm::device::GemmUniversalAdapter<GemmKernel>;
}}  // namespace
"""


def _make_args(cfg: MixedInputConfig) -> str:
    zero = "static_cast<ElementZero const*>(zeros)" if cfg.zero_point else "nullptr"
    # StreamK, not CUTLASS's Heuristic mode (which turns data-parallel whenever the last wave is half full);
    # partial tiles are summed in a fixed order, so a result does not depend on which CTA finishes first.
    streamk = "" if cfg.scheduler == "persistent" else """\
  using TileScheduler = typename Gemm::GemmKernel::TileScheduler;
  args.scheduler.decomposition_mode = TileScheduler::DecompositionMode::StreamK;
  args.scheduler.reduction_mode = TileScheduler::ReductionMode::Deterministic;
"""
    return f"""
namespace {{
// The transposed problem: CUTLASS's (M, N, K) = (n, m, k); A = the weight, B = x, D = out^T.
typename Gemm::Arguments make_args(void const* w, void const* x, void* out, void const* scales,
                                   void const* zeros, void const* bias, int64_t m, int64_t n, int64_t k,
                                   int64_t ldx, int64_t ldo, int64_t group_size) {{
  using StrideX = typename GemmKernel::StrideB;
  using StrideD = typename GemmKernel::StrideD;
  using StrideScale = typename CollectiveMainloop::StrideScale;
  (void)zeros;
  LayoutW layout_w = cute::tile_to_shape(LayoutAtomW{{}}, cute::make_shape(int(n), int(k), 1));
  StrideX stride_x{{}}; cute::get<0>(stride_x) = ldx;   // (m, k): k contiguous, row stride ldx
  StrideD stride_d{{}}; cute::get<1>(stride_d) = ldo;   // (n, m): n contiguous, out row stride ldo
  int64_t groups = group_size > 0 ? (k + group_size - 1) / group_size : 1;
  StrideScale stride_s{{}}; cute::get<1>(stride_s) = n; cute::get<2>(stride_s) = n * groups;
  typename Gemm::Arguments args{{
      cutlass::gemm::GemmUniversalMode::kGemm,
      {{static_cast<int>(n), static_cast<int>(m), static_cast<int>(k), 1}},
      {{static_cast<ElementW const*>(w), layout_w, static_cast<ElementAct const*>(x), stride_x,
       static_cast<ElementScale const*>(scales), stride_s, static_cast<int>(group_size), {zero}}},
      {{{{}}, nullptr, stride_d, static_cast<ElementOut*>(out), stride_d}}}};
  args.epilogue.thread.alpha = 1.0f;
  args.epilogue.thread.beta = 0.0f;
  args.epilogue.thread.bias_ptr = static_cast<ElementAct const*>(bias);  // null: a zero bias
{streamk}  return args;
}}
}}  // namespace
"""


def programmatic_launch(cfg: MixedInputConfig) -> bool:
    """Whether `cfg`'s kernel is launched as a programmatic dependent (PDL; launcher_text.sm90_device_setup): all
    of them. In CUTLASS's warp-specialized kernels the producer warps wait (griddepcontrol.wait) before
    their first load of the weight, its scales / zeros and x; the consumers read the bias only in the epilogue,
    after the mainloop those loads feed; the epilogue's alpha / beta are values, not pointers (no read at kernel
    start). Stream-K since generator 5: its workspace is cleared by a kernel that is itself a programmatic
    dependent (emit_streamk), no longer by a memset ahead of the kernel."""
    return True


def _launcher(cfg: MixedInputConfig) -> str:
    streamk = cfg.scheduler == "streamk"
    sk = streamk_text(streamk)
    return f"""
// ---- C-ABI launcher (cutlass_gemm, mixed-input family) --------------------------------------
CG_EXPORT int cg_abi_version() {{ return {LAUNCHER_ABI_VERSION}; }}
CG_EXPORT char const* cg_kernel_name() {{ return "{cfg.name}"; }}
CG_EXPORT char const* cg_last_error() {{ return cg_error_text; }}
{_make_args(cfg)}
{sm90_device_setup(programmatic_launch(cfg))}{sk.filler}\
{_WORKSPACE_STREAMK if streamk else _WORKSPACE}
{_ENTRY}{_SM90_DEVICE_LOOKUP}\
  auto args = make_args(w, x, out, scales, zeros, bias, m, n, k, ldx, ldo, group_size);
{sm90_run_args(sk.adapter)}"""


def emit_mixed_source(cfg: MixedInputConfig) -> str:
    """The complete, self-contained .cu text of one mixed-input kernel (deterministic: no timestamps,
    no paths; trailing spaces stripped)."""
    if not isinstance(cfg, MixedInputConfig):
        raise TypeError(f"emit_mixed_source takes a MixedInputConfig, got {type(cfg).__name__}")
    if cfg.sm == 80:
        from .emit_mixed80 import emit_mixed80_source  # CUTLASS 2's upcast GEMM through cutlass_cppgen
        return emit_mixed80_source(cfg)
    header = source_header(cfg, "mixed-input generator", MIXED_GENERATOR_VERSION)
    sk = streamk_text(cfg.scheduler == "streamk")
    define = (PROGRAMMATIC_DEFINE if programmatic_launch(cfg) else "") + sk.define
    text = sm90_split_source(header, define + _SM90_DRIVER_SHIM + _COMMON_PRELUDE + _INCLUDES + sk.scheduler
                             + _kernel_types(cfg), _launcher(cfg), sk.host_kernels)
    return tidy_source(text)
