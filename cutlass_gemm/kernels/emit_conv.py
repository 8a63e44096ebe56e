"""Emit one SM90 int8 implicit-GEMM conv2d fprop kernel as a self-contained .cu with a C-ABI launcher.

The kernel types come from CUTLASS's own builders: the conv CollectiveBuilder (`cutlass::conv::collective`,
TMA im2col loads of the NHWC activation, tiled TMA loads of the KRSC filter, int8 wgmma, int32 accumulators)
and the epilogue CollectiveBuilder with a hand-written EVT (cutlass_cppgen has no conv front end with EVT;
see kernels/conv2d.py):

    D = act(scale_x * (scale_w[co] * acc) + bias[co])     (float32 until the one conversion to D)

the same node order as the GEMM family's `scaled_bias` epilogue (epilogues.py), so the two round alike. scale_x
is read as scale_x + 0 * scale_guard (CUTLASS's two-scalar broadcast with that reduction; a null guard reads 0):
exactly scale_x for a finite guard, NaN for a NaN or infinite one. An int8 chain (nn/chain.py) passes its first
layer's activation scale as the guard, so a non-finite chain input reaches every later layer with no op between.
D is the NHWC output: the epilogue sees M as the (Q, P, N) output pixels, N as Co. An int8-output kernel
(out_dtype "s8") ends with one more node, D = saturate(rint(that float32 value * inv_scale_out)) (a scalar read
through a pointer; CUTLASS's float -> int8 round-to-nearest converter is `cvt.rni.sat.s8.f32`), and reads a
float32 bias.

The kernels with 128-row tiles are launched as programmatic dependents (PDL, since conv generator 5;
`programmatic_launch`; `cg_set_programmatic_launch` and CUTLASS_GEMM_PDL switch them like the GEMMs'): the scalar
broadcasts take a dynamic batch stride so that they read after the mainloop, and CUTLASS's producer waits before its
first load.

C ABI (CONV_LAUNCHER_ABI_VERSION below; the entry points have their own names so that a library of another family
can never be called with this signature):

    int    cg_conv_launch(x, w, out, scale_x, scale_guard, scale_w, bias, scale_out, n, h, w, c, k, r, s, pad_h,
                          pad_w, stride_h, stride_w, dil_h, dil_w, p, q, workspace, workspace_bytes, stream)
    size_t cg_conv_workspace_size(n, h, w, c, k, r, s, pad_h, pad_w, stride_h, stride_w, dil_h, dil_w)

x: int8 NHWC packed; w: int8 KRSC packed; out: (n, p, q, k) packed in the output dtype; scale_x float32
(one element), scale_guard float32 (one element) or null, scale_w float32 (k,), bias (k,) in the output dtype
(float32 for s8) or null, scale_out float32 (one element: the reciprocal of the output's scale; s8 kernels only,
ignored by the others). p, q are the caller's output
sizes: the launcher refuses (code 6) a call whose p, q differ from CUTLASS's own computation.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Tuple

from .conv2d import CONV_GENERATOR_VERSION, Conv2dConfig
from .emit import source_header, tidy_source
from .launcher_text import (LATE_SCALAR_STRIDE, LATE_SCALAR_VALUE, PROGRAMMATIC_DEFINE, _COMMON_PRELUDE,
                            _SM90_DEVICE_LOOKUP, _SM90_DRIVER_SHIM, sm90_device_setup, sm90_launch_tail,
                            sm90_split_source)

#: The conv family's own launcher ABI (the others' is launcher_text.LAUNCHER_ABI_VERSION = 2): cg_conv_launch took
#: the scale_guard pointer in version 3, so a cached library of version 2 is refused, never called with the new list.
CONV_LAUNCHER_ABI_VERSION = 3

#: The shared prelude without its GEMM adapter include: that header brings CUTLASS 2's GemmUniversal, whose
#: partial specialization also matches a ConvProblemShape (not a cute tuple) and makes ConvUniversal ambiguous.
_CONV_PRELUDE = _COMMON_PRELUDE.replace('#include "cutlass/gemm/device/gemm_universal_adapter.h"\n', "")
assert _CONV_PRELUDE != _COMMON_PRELUDE, "emit.py's prelude changed: revisit the conv prelude"

_OUT_TYPES = {"bf16": "cutlass::bfloat16_t", "f16": "cutlass::half_t", "s8": "int8_t"}

_INCLUDES = """\
#include "cutlass/cutlass.h"
#include "cute/tensor.hpp"
#include "cutlass/numeric_types.h"
#include "cutlass/kernel_hardware_info.hpp"
#include "cutlass/conv/convolution.h"
#include "cutlass/conv/convnd_problem_shape.hpp"
#include "cutlass/conv/dispatch_policy.hpp"
#include "cutlass/conv/collective/collective_builder.hpp"
#include "cutlass/conv/kernel/conv_universal.hpp"
#include "cutlass/conv/device/conv_universal_adapter.hpp"
#include "cutlass/epilogue/collective/collective_builder.hpp"
#include "cutlass/epilogue/fusion/sm90_callbacks_tma_warpspecialized.hpp"
"""

# The activations as element-wise functors with the Array specialization Sm90Compute calls. Written here
# (not cutlass::epilogue::thread::ReLu / Clamp) so that NaN propagates as in torch.relu / torch.clamp: a
# comparison with NaN is false, so `x < 0` keeps a NaN x.
_ACT_FUNCTORS = """
namespace cg_act {
// The activation scale's guard: Sm90ScalarBroadcast reduces its two scalars (scale_x, scale_guard) with this.
// s + 0 * g is s exactly for a finite g and NaN for a NaN or infinite g (IEEE; the build has no fast-math).
template <class T> struct GuardScale {
  CUTLASS_HOST_DEVICE T operator()(T const& s, T const& g) const { return s + T(0) * g; }
};
template <class T> struct ReLU {
  CUTLASS_HOST_DEVICE T operator()(T const& x) const { return x < T(0) ? T(0) : x; }
};
template <class T> struct ReLU6 {
  CUTLASS_HOST_DEVICE T operator()(T const& x) const { return x < T(0) ? T(0) : (x > T(6) ? T(6) : x); }
};
template <class T, int N> struct ReLU<cutlass::Array<T, N>> {
  CUTLASS_HOST_DEVICE cutlass::Array<T, N> operator()(cutlass::Array<T, N> const& v) const {
    cutlass::Array<T, N> r;
    CUTLASS_PRAGMA_UNROLL
    for (int i = 0; i < N; ++i) r[i] = ReLU<T>{}(v[i]);
    return r;
  }
};
template <class T, int N> struct ReLU6<cutlass::Array<T, N>> {
  CUTLASS_HOST_DEVICE cutlass::Array<T, N> operator()(cutlass::Array<T, N> const& v) const {
    cutlass::Array<T, N> r;
    CUTLASS_PRAGMA_UNROLL
    for (int i = 0; i < N; ++i) r[i] = ReLU6<T>{}(v[i]);
    return r;
  }
};
}  // namespace cg_act
"""


@dataclass(frozen=True)
class EvtSpelling:
    """One SM's C++ names for the conv epilogue's visitor tree (`conv_evt`): the nodes and their order are the same
    on SM90 (CUTLASS 3's Sm90EVT) and SM80 (CUTLASS 2's Sm80EVT visitors, emit_conv80.py); only these differ."""

    prelude: str             # text before the tree's first node
    acc_fetch: str           # the accumulator node
    scalar_stride_decl: str  # text between the accumulator and the scalar nodes
    scalar_stride: str       # the scalar broadcasts' stride type
    scalar_broadcast: str    # template: Sm90ScalarBroadcast / VisitorScalarBroadcast
    row_broadcast: str       # the per-channel broadcast type, {} for its element type
    evt: str                 # tree node template: Sm90EVT / Sm80EVT
    compute: str             # compute node template: Sm90Compute / VisitorCompute
    late_scalar: str         # each scalar's batch-stride argument ("": the type's static stride)
    root: str                # the name of the tree's value (the epilogue's EVT type when store_node is "")
    node_notes: bool = False  # trailing comments on ScaleX and Bias (the SM80 text has never had them)
    store_node: str = ""     # the node storing D over the value ("": the epilogue stores it itself)
    store_args: str = ""     # its arguments


def conv_evt(cfg: Conv2dConfig, sp: EvtSpelling) -> Tuple[str, str]:
    """(the EVT types, the brace initializer of their arguments) in `sp`'s spelling: ScaleW * Acc, * ScaleX,
    + Bias, then the activation (if any) converting to D; an int8 output keeps float32 through the activation and
    ends with * ScaleOut converting to int8. An argument tuple lists its children's arguments first, then the
    node's own."""
    quant = cfg.out_dtype == "s8"
    add_out = "float" if cfg.activation != "none" or quant else "ElementOut"
    act_out = "float" if quant else "ElementOut"
    row = sp.row_broadcast

    def node(op: str, out: str, *children: str) -> str:
        return f"{sp.evt}<{sp.compute}<{op}, {out}, float, RN>, {', '.join(children)}>"

    notes = ("  // scale_x + 0 * guard", "  // null: zeros") if sp.node_notes else ("", "")
    types = f"""
{sp.prelude}using Accum = {sp.acc_fetch};
{sp.scalar_stride_decl}using ScaleX = {sp.scalar_broadcast}<float, {sp.scalar_stride}, 2, cg_act::GuardScale>;{notes[0]}
using ScaleW = {row.format("float")};
using Bias = {row.format("ElementBias")};{notes[1]}
using EVTScaleW = {node("cutlass::multiplies", "float", "ScaleW", "Accum")};
using EVTScaleX = {node("cutlass::multiplies", "float", "ScaleX", "EVTScaleW")};
using EVTBias = {node("cutlass::plus", add_out, "EVTScaleX", "Bias")};
"""
    late_x = ", ".join([sp.late_scalar] * 2) if sp.late_scalar else ""
    scale_w = "{static_cast<float const*>(scale_w)}"
    scale_x = f"{{{{}}, {{static_cast<float const*>(scale_x), static_cast<float const*>(scale_guard)}}, {{{late_x}}}}}"
    bias = "{static_cast<ElementBias const*>(bias)}"
    mul_w = f"{{{scale_w}, {{}}, {{}}}}"
    mul_x = f"{{{scale_x}, {mul_w}, {{}}}}"
    add = f"{{{mul_x}, {bias}, {{}}}}"
    if cfg.activation == "none":
        types += "using EVTAct = EVTBias;\n"
        value = add
    else:
        fn = {"relu": "cg_act::ReLU", "relu6": "cg_act::ReLU6"}[cfg.activation]
        types += f"using EVTAct = {node(fn, act_out, 'EVTBias')};\n"
        value = f"{{{add}, {{}}}}"
    if quant:
        types += (f"using ScaleOut = {sp.scalar_broadcast}<float, {sp.scalar_stride}, 1, cutlass::multiplies>;\n"
                  f"using {sp.root} = {node('cutlass::multiplies', 'ElementOut', 'ScaleOut', 'EVTAct')};\n")
        scale_out = f"{{{{}}, {{static_cast<float const*>(scale_out)}}, {{{sp.late_scalar}}}}}"
        value = f"{{{scale_out}, {value}, {{}}}}"
    else:
        types += f"using {sp.root} = EVTAct;\n"
    if sp.store_node:
        types += f"using StoreD = {sp.store_node};\nusing EVTD = {sp.evt}<StoreD, {sp.root}>;\n"
        value = f"{{{value}, {sp.store_args}}}"
    return types, value


#: The SM90 spelling: CUTLASS 3's fusion nodes; the epilogue's collective stores D.
SM90_EVT = EvtSpelling(
    prelude="using namespace cutlass::epilogue::fusion;\n"
            "constexpr auto RN = cutlass::FloatRoundStyle::round_to_nearest;\n",
    acc_fetch="Sm90AccFetch",
    scalar_stride_decl=f"""\
// The scalars take a dynamic batch stride (1; the conv's one batch index is 0, so the element read is the same):
// with it CUTLASS's scalar broadcast reads its pointer in the consumer's store callbacks, after the mainloop, not
// in its constructor at kernel start. That is what lets the kernel start as a programmatic dependent: every global
// read then comes after CUTLASS's griddepcontrol.wait (the producer's, before its first load).
using ScalarStride = {LATE_SCALAR_STRIDE};
""",
    scalar_stride="ScalarStride",
    scalar_broadcast="Sm90ScalarBroadcast",
    row_broadcast="Sm90RowBroadcast<0, TileShape, {}, float, Stride<_0, _1, _0>>",
    evt="Sm90EVT",
    compute="Sm90Compute",
    late_scalar="kLateScalar",
    root="EVT",
    node_notes=True,
)


def programmatic_launch(cfg: Conv2dConfig) -> bool:
    """Whether `cfg`'s kernel is launched as a programmatic dependent (PDL; launcher_text.sm90_device_setup): the
    kernels with 128-row tiles. Every conv kernel could be (its scalars are read after the mainloop, SM90_EVT), but the
    64-row tiles measured slower so on the H200 (session44/call2: ResNet-50's two 3x3 convs at 7x7 outputs, batch
    32, the only rows on such a tile, 3-7% slower in alternation with plain launches; 128-row tiles 3-7% faster at
    56x56..14x14)."""
    return cfg.tile[0] >= 128


def _kernel_types(cfg: Conv2dConfig) -> str:
    tm, tn, tk = cfg.tile
    # K as a rank-1 tuple, as CUTLASS's own conv kernels spell it: the filter's K mode is (C, S, R), and the
    # TMA tiler needs the tile's K mode congruent with it.
    tile = f"_{tm}, _{tn}, Shape<_{tk}>"
    cluster = ", ".join(f"_{v}" for v in cfg.cluster)
    stages = (f"cutlass::conv::collective::StageCount<{cfg.stages}>" if cfg.stages else
              "cutlass::conv::collective::StageCountAutoCarveout<\n"
              "    static_cast<int>(sizeof(typename CollectiveEpilogue::SharedStorage))>")
    # A named namespace, not an unnamed one: `using namespace cute` inside the file's unnamed namespace makes
    # the host stub's reference to that namespace ambiguous with cute's own unnamed namespace (nvcc error).
    return f"""{_ACT_FUNCTORS}
namespace cg_conv {{
using namespace cute;
using ElementOut = {_OUT_TYPES[cfg.out_dtype]};
using ElementBias = {"float" if cfg.out_dtype == "s8" else "ElementOut"};
using TileShape = Shape<{tile}>;
using ClusterShape = Shape<{cluster}>;
using LayoutAct = cutlass::layout::TensorNHWC;   // x (N, H, W, C)
using LayoutFlt = cutlass::layout::TensorNHWC;   // w (K, R, S, C): the same rank-4, C-innermost tag
// The epilogue sees M as (Q, P, N) (CUTLASS's conv problem shape): D's stride is ((K, Q*K, P*Q*K), 1, 0), NHWC.
// The builder takes the layout tag (not the stride): a conv tag selects the im2col TMA store over that M.
using LayoutOut = cutlass::layout::TensorNHWC;
using StrideD = cutlass::detail::TagToStrideC_t<LayoutOut>;
constexpr int kAlignIn = 16;   // 16 bytes of int8 per TMA row: C % 16 == 0
constexpr int kAlignOut = 16 / int(sizeof(ElementOut));   // 16 bytes: K % 8 == 0 (bf16/fp16), K % 16 (int8)
{conv_evt(cfg, SM90_EVT)[0]}
using CollectiveEpilogue = typename cutlass::epilogue::collective::CollectiveBuilder<
    cutlass::arch::Sm90, cutlass::arch::OpClassTensorOp, TileShape, ClusterShape,
    cutlass::epilogue::collective::EpilogueTileAuto, int32_t, float,
    void, LayoutOut, kAlignOut, ElementOut, LayoutOut, kAlignOut,
    cutlass::epilogue::TmaWarpSpecialized, EVT>::CollectiveOp;
// The only SM90 conv schedule CUTLASS has (the persistent ones are refused by its dispatch policy).
using CollectiveMainloop = typename cutlass::conv::collective::CollectiveBuilder<
    cutlass::arch::Sm90, cutlass::arch::OpClassTensorOp, cutlass::conv::Operator::kFprop,
    int8_t, LayoutAct, kAlignIn, int8_t, LayoutFlt, kAlignIn, int32_t,
    TileShape, ClusterShape,
    {stages},
    cutlass::conv::KernelImplicitTmaWarpSpecializedSm90>::CollectiveOp;
using ProblemShape = cutlass::conv::ConvProblemShape<cutlass::conv::Operator::kFprop,
                                                     CollectiveMainloop::DispatchPolicy::NumSpatialDimensions>;
using ConvKernel = cutlass::conv::kernel::ConvUniversal<ProblemShape, CollectiveMainloop, CollectiveEpilogue>;
using Adapter = cutlass::conv::device::ConvUniversalAdapter<ConvKernel>;
// What the shared SM90 launcher text (emit.py) expects of `Gemm`.
struct Gemm {{
  using GemmKernel = ConvKernel;
  using Arguments = typename ConvKernel::Arguments;
  using Params = typename ConvKernel::Params;
  static size_t get_workspace_size(Arguments const& a) {{ return ConvKernel::get_workspace_size(a); }}
  static cutlass::Status can_implement(Arguments const& a) {{ return Adapter::can_implement(a); }}
}};
}}  // namespace cg_conv
// Declarations, not a using-directive: the directive would bring cute's names (and its unnamed namespace) along.
using cg_conv::Gemm;
using cg_conv::ProblemShape;
using cg_conv::ElementOut;
using cg_conv::ElementBias;
using cg_conv::StrideD;
"""


_SIZE_PARAMS = ("int64_t n, int64_t h, int64_t w, int64_t c, int64_t k, int64_t r, int64_t s, int64_t pad_h, "
                "int64_t pad_w, int64_t stride_h, int64_t stride_w, int64_t dil_h, int64_t dil_w")
_SIZE_ARGS = "n, h, w, c, k, r, s, pad_h, pad_w, stride_h, stride_w, dil_h, dil_w"


def _launcher(cfg: Conv2dConfig) -> str:
    return f"""
// ---- C-ABI launcher (cutlass_gemm, conv2d family) -------------------------------------------
CG_EXPORT int cg_abi_version() {{ return {CONV_LAUNCHER_ABI_VERSION}; }}
CG_EXPORT char const* cg_kernel_name() {{ return "{cfg.name}"; }}
CG_EXPORT char const* cg_last_error() {{ return cg_error_text; }}

namespace {{
ProblemShape make_problem({_SIZE_PARAMS}) {{
  typename ProblemShape::TensorExtent act{{}}, flt{{}};
  act[0] = int(n); act[1] = int(h); act[2] = int(w); act[3] = int(c);
  flt[0] = int(k); flt[1] = int(r); flt[2] = int(s); flt[3] = int(c);
  typename ProblemShape::ShapePadding pad{{}};
  pad[0] = int(pad_h); pad[1] = int(pad_w);
  typename ProblemShape::TraversalStride tstride{{}};
  tstride[0] = int(stride_h); tstride[1] = int(stride_w);
  typename ProblemShape::ShapeDilation dil{{}};
  dil[0] = int(dil_h); dil[1] = int(dil_w);
  // PyTorch's conv2d is a cross-correlation (the filter is not flipped).
  return ProblemShape(cutlass::conv::Mode::kCrossCorrelation, act, flt, pad, pad, tstride, dil, 1);
}}

// The scalars' batch stride (kernel types: ScalarStride): nonzero, so that they are read after the mainloop.
constexpr cg_conv::ScalarStride kLateScalar = {LATE_SCALAR_VALUE};

typename Gemm::Arguments make_args(void const* x, void const* wt, void* out, void const* scale_x,
                                   void const* scale_guard, void const* scale_w, void const* bias,
                                   void const* scale_out, ProblemShape const& problem) {{
  (void)scale_out;  // read by int8-output kernels only
  StrideD stride_d{{}};
  cute::for_each(cute::make_seq<cute::rank<0>(StrideD{{}})>{{}}, [&](auto i) {{
    cute::get<0, i>(stride_d) = problem.stride_C[ProblemShape::RankT - 2 - i];
  }});
  typename Gemm::Arguments args{{}};
  args.mode = cutlass::gemm::GemmUniversalMode::kGemm;
  args.problem_shape = problem;
  args.mainloop = {{static_cast<int8_t const*>(x), static_cast<int8_t const*>(wt)}};
  args.epilogue = {{{conv_evt(cfg, SM90_EVT)[1]},
                   nullptr, stride_d, static_cast<ElementOut*>(out), stride_d}};
  return args;
}}
}}  // namespace

{sm90_device_setup(programmatic_launch(cfg))}CG_EXPORT size_t cg_conv_workspace_size({_SIZE_PARAMS}) {{
  auto args = make_args(nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr,
                        make_problem({_SIZE_ARGS}));
  return Gemm::get_workspace_size(args);
}}

CG_EXPORT int cg_conv_launch(void const* x, void const* wt, void* out, void const* scale_x, void const* scale_guard,
                             void const* scale_w, void const* bias, void const* scale_out, {_SIZE_PARAMS},
                             int64_t p, int64_t q,
                             void* workspace, size_t workspace_bytes, void* stream_handle) {{
{_SM90_DEVICE_LOOKUP}\
  ProblemShape problem = make_problem({_SIZE_ARGS});
  // shape_C is (n, p, q, k): a caller that computed other output sizes would read a wrong-shaped buffer.
  if (problem.shape_C[1] != p || problem.shape_C[2] != q)
    return cg_fail(6, "output size", "p, q differ from CUTLASS's output extent");
  auto args = make_args(x, wt, out, scale_x, scale_guard, scale_w, bias, scale_out, problem);
  args.hw_info = cutlass::KernelHardwareInfo{{device, setup.sm_count, setup.max_active_clusters}};
  cutlass::Status status = Gemm::can_implement(args);
  if (status != cutlass::Status::kSuccess)
    return cg_fail(1, "can_implement", cutlass::cutlassGetStatusString(status));
  if (Gemm::get_workspace_size(args) > workspace_bytes)
    return cg_fail(2, "workspace", "the workspace passed is smaller than cg_conv_workspace_size()");
{sm90_launch_tail()}"""


#: CUTLASS_ENABLE_DIRECT_CUDA_DRIVER_CALL (set by the shared shim) makes the im2col TMA descriptor a direct call
#: to cuTensorMapEncodeIm2col too; the library links no libcuda, so resolve it once through the runtime as the
#: shim does cuTensorMapEncodeTiled (without this the library fails to load: undefined symbol).
_IM2COL_SHIM = """\
extern "C" CUresult CUDAAPI cuTensorMapEncodeIm2col(
    CUtensorMap* map, CUtensorMapDataType type, cuuint32_t rank, void* address, const cuuint64_t* dims,
    const cuuint64_t* strides, const int* lower_corner, const int* upper_corner, cuuint32_t channels_per_pixel,
    cuuint32_t pixels_per_column, const cuuint32_t* element_strides, CUtensorMapInterleave interleave,
    CUtensorMapSwizzle swizzle, CUtensorMapL2promotion l2, CUtensorMapFloatOOBfill oob) {
  static PFN_cuTensorMapEncodeIm2col_v12000 fn = [] {
    void* p = nullptr;
    cudaDriverEntryPointQueryResult found;
    if (cudaGetDriverEntryPointByVersion("cuTensorMapEncodeIm2col", &p, 12000, cudaEnableDefault, &found)
        != cudaSuccess || found != cudaDriverEntryPointSuccess) p = nullptr;
    return reinterpret_cast<PFN_cuTensorMapEncodeIm2col_v12000>(p);
  }();
  if (fn == nullptr) return CUDA_ERROR_NOT_FOUND;
  return fn(map, type, rank, address, dims, strides, lower_corner, upper_corner, channels_per_pixel,
            pixels_per_column, element_strides, interleave, swizzle, l2, oob);
}
"""


def emit_conv_source(cfg: Conv2dConfig) -> str:
    """The complete, self-contained .cu text of one conv2d kernel (deterministic: no timestamps, no
    paths; trailing spaces stripped)."""
    if not isinstance(cfg, Conv2dConfig):
        raise TypeError(f"emit_conv_source takes a Conv2dConfig, got {type(cfg).__name__}")
    if cfg.sm == 80:
        from .emit_conv80 import emit_conv80_source  # CUTLASS 2's mainloop with a visitor epilogue
        return emit_conv80_source(cfg)
    header = source_header(cfg, "conv2d generator", CONV_GENERATOR_VERSION)
    define = PROGRAMMATIC_DEFINE if programmatic_launch(cfg) else ""
    text = sm90_split_source(header, define + _SM90_DRIVER_SHIM + _IM2COL_SHIM + _CONV_PRELUDE + _INCLUDES + _kernel_types(cfg),
                             _launcher(cfg))
    return tidy_source(text)
