"""Emit one SM90 blockwise-scaled GEMM (kernels/blockwise.py: fp8, or int8 "s8") as a self-contained .cu with a
C-ABI launcher. The int8 kernels write their mainloop out (CUTLASS's builder takes fp8 only): _int8_mainloop.

The kernel types are written from a template (cutlass_cppgen has no blockwise front end): CUTLASS's
CollectiveBuilder with `tuple<layout, scale layout>` operands and the `KernelTmaWarpSpecialized*FP8Blockwise`
schedules (the FP8 blockwise mainloop: per-128-K-block promotion with the two scales), and a TMA epilogue
whose fusion is `LinCombPerColBias[EltAct]` with alpha = 1: the bias is a per-column broadcast (a null
pointer reads as zeros) and the activation runs in float32 before the one conversion to the output dtype.

C ABI (LAUNCHER_ABI_VERSION of launcher_text.py; entry points of their own name, so a library of another family
fails the symbol check instead of being called with the wrong arguments):

    int    cg_blockwise_launch(a, b, d, scale_a, scale_b, bias, m, n, k, lda, ldb, ldd,
                               workspace, workspace_bytes, stream)
    size_t cg_blockwise_workspace_size(m, n, k)

a: e4m3 (m, k) row stride lda; b: e4m3 (n, k) row stride ldb (the weight; CUTLASS's column-major B);
d: (m, n) row stride ldd; scale_a float32 (m, k / 128) contiguous row-major ("k" major) or its
column-major transpose ("mn" major, stride (1, m)); scale_b float32 (ceil(n / 128), k / 128) row-major (int8:
(n, k / 128) row-major); bias (n,) in the output dtype or null. int8 kernels: a and b int8.
"""
from __future__ import annotations

from pathlib import Path

from .blockwise import BLOCK, BLOCKWISE_GENERATOR_VERSION, BlockwiseConfig
from .emit import source_header, tidy_source
from .emit_streamk import STREAMK_TAG, streamk_text
from .launcher_text import (LAUNCHER_ABI_VERSION, PROGRAMMATIC_DEFINE, _COMMON_PRELUDE, _SM90_DEVICE_LOOKUP,
                            _SM90_DRIVER_SHIM, sm90_device_setup, sm90_run_args, sm90_split_source)

_OUT_TYPES = {"bf16": "cutlass::bfloat16_t", "f16": "cutlass::half_t"}
_AB_TYPES = {"e4m3": "cutlass::float_e4m3_t", "s8": "int8_t"}
#: scale_b's N granularity: a 128 x 128 weight block (fp8) or one output channel per K block (int8).
_SFB_GRANULARITY = {"e4m3": BLOCK, "s8": 1}


def _scale_comment(cfg: BlockwiseConfig) -> str:
    if cfg.ab == "s8":
        return (f"// One scale per token (M granularity 1) and one per output channel (N granularity 1) per {BLOCK} K.\n"
                f"// scale_a is \"{cfg.sfa_major}\" major; scale_b (n, k / {BLOCK}) row-major is K major.")
    return (f"// One scale per token (M granularity 1) per {BLOCK} K; one per {BLOCK} x {BLOCK} weight block. scale_a is\n"
            f"// \"{cfg.sfa_major}\" major; scale_b (n / {BLOCK}, k / {BLOCK}) row-major is K major.")
_SCHEDULES = {"cooperative": ("cutlass::gemm::KernelTmaWarpSpecializedCooperativeFP8Blockwise",
                              "cutlass::epilogue::TmaWarpSpecializedCooperative"),
              "pingpong": ("cutlass::gemm::KernelTmaWarpSpecializedPingpongFP8Blockwise",
                           "cutlass::epilogue::TmaWarpSpecialized")}
_SCHEDULERS = {"persistent": "cutlass::gemm::PersistentScheduler", "streamk": STREAMK_TAG}
_MAJORS = {"k": "cute::GMMA::Major::K", "mn": "cute::GMMA::Major::MN"}
#: The activation functor per name. relu6 is ours: CUTLASS's ReLu (NaN-propagating maximum with 0), then a
#: NaN-propagating minimum with 6 (torch.clamp keeps NaN; fminf would turn it into 6).
_ACT_FUNCTORS = {"relu": "cutlass::epilogue::thread::ReLu", "relu6": "CgReLu6",
                 "gelu_tanh": "cutlass::epilogue::thread::GELU_taylor", "silu": "cutlass::epilogue::thread::SiLu"}

_INCLUDES = """\
#include "cutlass/cutlass.h"
#include "cute/tensor.hpp"
#include "cutlass/numeric_types.h"
#include "cutlass/functional.h"
#include "cutlass/detail/blockwise_scale_layout.hpp"
#include "cutlass/gemm/dispatch_policy.hpp"
#include "cutlass/gemm/collective/collective_builder.hpp"
#include "cutlass/epilogue/collective/collective_builder.hpp"
#include "cutlass/epilogue/fusion/operations.hpp"
#include "cutlass/epilogue/thread/activation.h"
#include "cutlass/gemm/kernel/gemm_universal.hpp"
#include "cutlass/gemm/kernel/tile_scheduler.hpp"
"""

_RELU6 = """
namespace {
// relu6 in float32: min(relu(x), 6), NaN in -> NaN out (the EVT compute node calls it on fragments).
template <class T>
struct CgReLu6 {
  static constexpr bool kIsHeavy = false;
  CUTLASS_HOST_DEVICE T operator()(T const& x) const {
    return cutlass::minimum_with_nan_propagation<T>{}(cutlass::epilogue::thread::ReLu<T>{}(x), T(6));
  }
};
template <class T, int N>
struct CgReLu6<cutlass::Array<T, N>> {
  static constexpr bool kIsHeavy = false;
  CUTLASS_HOST_DEVICE cutlass::Array<T, N> operator()(cutlass::Array<T, N> const& x) const {
    cutlass::Array<T, N> y;
    CgReLu6<T> f;
    CUTLASS_PRAGMA_UNROLL
    for (int i = 0; i < N; ++i) y[i] = f(x[i]);
    return y;
  }
};
}  // namespace
"""

#: The blockwise kernels are launched as programmatic dependents since blockwise generator 8 (programmatic_launch says
#: which). CUTLASS's producer warps wait (griddepcontrol.wait) before their loads, except, in its cooperative kernel, the
#: auxiliary load warp that copies the blockwise scales (its pingpong kernel's waits): this collective makes it wait
#: first too (a no-op in a plainly launched source, which lacks CUTLASS_ENABLE_GDC_FOR_SM90). The bias is read in the
#: epilogue, after the mainloop; alpha / beta are values.
_WAITING_AUX = """
namespace cg_blockwise_pdl {
template <class Mainloop>
struct WaitingAuxLoad : Mainloop {
  template <class... Args>
  CUTLASS_DEVICE void load_auxiliary(Args&&... args) {
    cutlass::arch::wait_on_dependent_grids();
    Mainloop::load_auxiliary(static_cast<Args&&>(args)...);
  }
};
}  // namespace cg_blockwise_pdl
"""

_ENTRY = """\
// The stream-K scheduler sizes its workspace by the SM and cluster counts: give it the hw_info the launch gives
// (without a device, 0: the launch then reports the workspace as too small instead of sizing it wrongly).
CG_EXPORT size_t cg_blockwise_workspace_size(int64_t m, int64_t n, int64_t k) {
  int device = 0;
  if (cudaGetDevice(&device) != cudaSuccess || device < 0 || device >= kMaxDevices) return 0;
  DeviceSetup& setup = setup_device(device);
  if (setup.error != cudaSuccess || setup.sm_count <= 0) return 0;
  auto args = make_args(nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, m, n, k, k, k, n);
  args.hw_info = cutlass::KernelHardwareInfo{device, setup.sm_count, setup.max_active_clusters};
  return Gemm::get_workspace_size(args);
}

CG_EXPORT int cg_blockwise_launch(void const* a, void const* b, void* d, void const* scale_a, void const* scale_b,
                                  void const* bias, int64_t m, int64_t n, int64_t k, int64_t lda, int64_t ldb,
                                  int64_t ldd, void* workspace, size_t workspace_bytes, void* stream_handle) {
"""


#: The overlapped-promotion mainloop (a collective derived from CUTLASS's), inlined so that the source stays
#: self-contained and its text is part of the kernel's cache key.
_OVERLAP_HPP = Path(__file__).with_name("cxx") / "blockwise_overlap.hpp"
#: The int8 mainloop (after the overlap header, whose views it shares).
_INT8_HPP = Path(__file__).with_name("cxx") / "blockwise_int8.hpp"


#: mainloop -> (what it does, the collective of blockwise_overlap.hpp derived from the builder's).
_DERIVED_MAINLOOPS = {
    "overlap": ("k-tile k-1's promotion runs while k-tile k's wgmmas execute",
                "OverlapPromotionMainloop<CollectiveMainloopBase>"),
    "atom": ("one atom-sized temporary, promoted atom by atom", "AtomPromotionMainloop<CollectiveMainloopBase>"),
}


#: mainloop -> (what it does, the int8 collective of blockwise_int8.hpp).
_INT8_MAINLOOPS = {
    "overlap": ("k-tile k-1's int8 promotion runs while k-tile k's wgmmas execute", "Int8PromotionMainloop"),
    "atom": ("one atom-sized int32 temporary, promoted atom by atom", "Int8AtomPromotionMainloop"),
}


def _overlap_text(cfg: BlockwiseConfig) -> str:
    paths = (_OVERLAP_HPP, _INT8_HPP) if cfg.ab == "s8" else (_OVERLAP_HPP,)
    return "".join(p.read_text().replace("#pragma once\n", "") for p in paths)


def _int8_mainloop(cfg: BlockwiseConfig, kernel_schedule: str, stages: str) -> str:
    """The int8 collective, written out: CUTLASS's builder takes fp8 operands only. The same pieces as the builder's
    (TMA atoms per cluster, the GMMA smem layout atoms, the stage count with the scales' bytes), with the int8
    wgmma typed float (S8AsF32Bits, kernels/cxx/blockwise_int8.hpp) and its mainloop."""
    atoms = "Layout<Shape<_2, _1, _1>>" if cfg.schedule == "cooperative" else "Layout<Shape<_1, _1, _1>>"
    count = (f"{cfg.stages}" if cfg.stages else
             "cutlass::gemm::collective::detail::compute_stage_count_with_blockwise_scale<\n"
             "    cutlass::gemm::collective::detail::sm90_smem_capacity_bytes, ElementAB, ElementAB, float, TileShape,\n"
             f"    {cfg.tile[0]}, {cfg.tile[1]}>(\n"
             f"    {stages}{{}})")
    what, collective = _INT8_MAINLOOPS[cfg.mainloop]
    return f"""
namespace detail_ = cutlass::gemm::collective::detail;
using GmmaOp = decltype(cute::GMMA::ss_op_selector<ElementAB, ElementAB, int32_t, TileShape, cute::GMMA::Major::K,
                                                   cute::GMMA::Major::K>());
using TiledMma = decltype(cute::make_tiled_mma(cg_blockwise::S8AsF32Bits<GmmaOp>{{}}, {atoms}{{}}));
using GmemTiledCopyA = decltype(detail_::sm90_cluster_shape_to_tma_atom(shape<1>(ClusterShape{{}})));
using GmemTiledCopyB = decltype(detail_::sm90_cluster_shape_to_tma_atom(shape<0>(ClusterShape{{}})));
using SmemLayoutAtomA = decltype(detail_::ss_smem_selector<cute::GMMA::Major::K, ElementAB,
                                                           decltype(get<0>(TileShape{{}})), decltype(get<2>(TileShape{{}}))>());
using SmemLayoutAtomB = decltype(detail_::ss_smem_selector<cute::GMMA::Major::K, ElementAB,
                                                           decltype(get<1>(TileShape{{}})), decltype(get<2>(TileShape{{}}))>());
constexpr int kStages = {count};
using CollectiveMainloopBase = cutlass::gemm::collective::CollectiveMma<
    cutlass::gemm::MainloopSm90TmaGmmaWarpSpecializedBlockwiseFP8<kStages, ClusterShape, {kernel_schedule}>,
    TileShape,
    ElementAB, cute::tuple<cutlass::gemm::TagToStrideA_t<LayoutA>, LayoutSFA>,
    ElementAB, cute::tuple<cutlass::gemm::TagToStrideB_t<LayoutB>, LayoutSFB>,
    TiledMma, GmemTiledCopyA, SmemLayoutAtomA, void, cute::identity,
    GmemTiledCopyB, SmemLayoutAtomB, void, cute::identity>;
// {what} (kernels/cxx/blockwise_int8.hpp)
using CollectiveMainloop = cg_blockwise::{collective}<CollectiveMainloopBase>;"""


def _fusion(cfg: BlockwiseConfig) -> str:
    if cfg.activation == "none":
        return "cutlass::epilogue::fusion::LinCombPerColBias<ElementOut, float, ElementOut, void, float>"
    fn = _ACT_FUNCTORS[cfg.activation]
    return f"cutlass::epilogue::fusion::LinCombPerColBiasEltAct<{fn}, ElementOut, float, ElementOut, void, float>"


def _kernel_types(cfg: BlockwiseConfig) -> str:
    kernel_schedule, epilogue_schedule = _SCHEDULES[cfg.schedule]
    tile = ", ".join(f"_{v}" for v in cfg.tile)
    cluster = ", ".join(f"_{v}" for v in cfg.cluster)
    stages = (f"cutlass::gemm::collective::StageCount<{cfg.stages}>" if cfg.stages else
              "cutlass::gemm::collective::StageCountAutoCarveout<\n"
              "    static_cast<int>(sizeof(typename CollectiveEpilogue::SharedStorage))>")
    derived = _DERIVED_MAINLOOPS.get(cfg.mainloop)
    builder_name = "CollectiveMainloopBase" if derived else "CollectiveMainloop"
    wrap = ""
    if derived:
        what, collective = derived
        wrap = (f"\n// {what} (kernels/cxx/blockwise_overlap.hpp)\n"
                f"using CollectiveMainloop = cg_blockwise::{collective};")
    if cfg.ab == "s8":
        mainloop = _int8_mainloop(cfg, kernel_schedule, stages.replace("\n", "\n    "))
    else:
        mainloop = f"""
using {builder_name} = typename cutlass::gemm::collective::CollectiveBuilder<
    cutlass::arch::Sm90, cutlass::arch::OpClassTensorOp,
    ElementAB, cute::tuple<LayoutA, LayoutSFA>, kAlignAB,
    ElementAB, cute::tuple<LayoutB, LayoutSFB>, kAlignAB,
    float, TileShape, ClusterShape,
    {stages},
    {kernel_schedule}>::CollectiveOp;{wrap}"""
    return f"""
namespace {{
using namespace cute;
using ElementAB = {_AB_TYPES[cfg.ab]};
using ElementOut = {_OUT_TYPES[cfg.out_dtype]};
using LayoutA = cutlass::layout::RowMajor;     // a (m, k), k contiguous
using LayoutB = cutlass::layout::ColumnMajor;  // b (k, n) column-major = the (n, k) weight, k contiguous
using LayoutD = cutlass::layout::RowMajor;     // out (m, n)
constexpr int kAlignAB = 16;                   // TMA: 16-byte rows
constexpr int kAlignOut = 128 / cutlass::sizeof_bits<ElementOut>::value;
using TileShape = Shape<{tile}>;
using ClusterShape = Shape<{cluster}>;

{_scale_comment(cfg)}
using ScaleConfig = cutlass::detail::Sm90BlockwiseScaleConfig<1, {_SFB_GRANULARITY[cfg.ab]}, {BLOCK}, {_MAJORS[cfg.sfa_major]},
                                                              cute::GMMA::Major::K>;
using LayoutSFA = decltype(ScaleConfig::deduce_layoutSFA());
using LayoutSFB = decltype(ScaleConfig::deduce_layoutSFB());

// out = act(acc + bias[n]) in float (alpha = 1: the scales were applied in the mainloop); no C operand.
using FusionOp = {_fusion(cfg)};
using CollectiveEpilogue = typename cutlass::epilogue::collective::CollectiveBuilder<
    cutlass::arch::Sm90, cutlass::arch::OpClassTensorOp, TileShape, ClusterShape,
    cutlass::epilogue::collective::EpilogueTileAuto, float, float,
    void, LayoutD, kAlignOut, ElementOut, LayoutD, kAlignOut,
    {epilogue_schedule}, FusionOp>::CollectiveOp;{mainloop}
// the scales' copies wait for the kernel ahead too (_WAITING_AUX)
using GemmKernel = cutlass::gemm::kernel::GemmUniversal<Shape<int, int, int, int>,
                                                        cg_blockwise_pdl::WaitingAuxLoad<CollectiveMainloop>,
                                                        CollectiveEpilogue, {_SCHEDULERS[cfg.scheduler]}>;
using Gemm = cutlass::gemm::device::GemmUniversalAdapter<GemmKernel>;
}}  // namespace
"""


_MAKE_ARGS = """
namespace {
typename Gemm::Arguments make_args(void const* a, void const* b, void* d, void const* scale_a,
                                   void const* scale_b, void const* bias, int64_t m, int64_t n, int64_t k,
                                   int64_t lda, int64_t ldb, int64_t ldd) {
  using StrideA = typename GemmKernel::StrideA;
  using StrideB = typename GemmKernel::StrideB;
  using StrideD = typename GemmKernel::StrideD;
  // Leading dimensions come from the caller's tensors; only the dynamic modes are written.
  StrideA stride_a{}; cute::get<0>(stride_a) = lda;
  StrideB stride_b{}; cute::get<0>(stride_b) = ldb;
  StrideD stride_d{}; cute::get<0>(stride_d) = ldd;
  auto problem = cute::make_shape(static_cast<int>(m), static_cast<int>(n), static_cast<int>(k), 1);
  // The scale layouts of contiguous tensors: (m, k/128) row-major or its transpose, (ceil(n/128), k/128).
  LayoutSFA layout_sfa = ScaleConfig::tile_atom_to_shape_SFA(problem);
  LayoutSFB layout_sfb = ScaleConfig::tile_atom_to_shape_SFB(problem);
  typename Gemm::Arguments args{
      cutlass::gemm::GemmUniversalMode::kGemm,
      {static_cast<int>(m), static_cast<int>(n), static_cast<int>(k), 1},
      {static_cast<ElementAB const*>(a), stride_a, static_cast<ElementAB const*>(b), stride_b,
       static_cast<float const*>(scale_a), layout_sfa, static_cast<float const*>(scale_b), layout_sfb},
      {{}, nullptr, stride_d, static_cast<ElementOut*>(d), stride_d}};
  args.epilogue.thread.alpha = 1.0f;
  args.epilogue.thread.beta = 0.0f;
  args.epilogue.thread.bias_ptr = static_cast<ElementOut const*>(bias);  // null: a zero bias
  return args;
}
}  // namespace
"""


def programmatic_launch(cfg: BlockwiseConfig) -> bool:
    """Whether `cfg`'s kernel is launched as a programmatic dependent (since blockwise generator 8: the scales'
    auxiliary loads wait first, _WAITING_AUX; a stream-K kernel's workspace is cleared by emit_streamk's programmatic
    fill kernel). All but the persistent fp8 128x128 tiles without a cluster that gather a K-major scale_a: in chains
    of Fp8BlockLinear layers on an H200 those ran 6-24% slower early at 136-300 rows (cause not found), where every
    other kernel measured ran 3-11% faster (tools/results/h200-2026-11-28/session46/, calls 5-7). The stream-K candidate
    of that tile, which no call selects, was not timed and stays programmatic."""
    return not (cfg.ab == "e4m3" and cfg.tile[:2] == (128, 128) and cfg.cluster == (1, 1, 1)
                and cfg.sfa_major == "k" and cfg.scheduler == "persistent")


def _launcher(cfg: BlockwiseConfig) -> str:
    sk = streamk_text(cfg.scheduler == "streamk")
    return f"""
// ---- C-ABI launcher (cutlass_gemm, blockwise family) ----------------------------------------
CG_EXPORT int cg_abi_version() {{ return {LAUNCHER_ABI_VERSION}; }}
CG_EXPORT char const* cg_kernel_name() {{ return "{cfg.name}"; }}
CG_EXPORT char const* cg_last_error() {{ return cg_error_text; }}
{_MAKE_ARGS}
{sm90_device_setup(programmatic_launch(cfg))}{sk.filler}{_ENTRY}{_SM90_DEVICE_LOOKUP}\
  auto args = make_args(a, b, d, scale_a, scale_b, bias, m, n, k, lda, ldb, ldd);
{sm90_run_args(sk.adapter)}"""


def emit_blockwise_source(cfg: BlockwiseConfig) -> str:
    """The complete, self-contained .cu text of one blockwise kernel (deterministic: no timestamps, no paths;
    trailing spaces stripped)."""
    if not isinstance(cfg, BlockwiseConfig):
        raise TypeError(f"emit_blockwise_source takes a BlockwiseConfig, got {type(cfg).__name__}")
    header = source_header(cfg, "blockwise generator", BLOCKWISE_GENERATOR_VERSION)
    relu6 = _RELU6 if cfg.activation == "relu6" else ""
    overlap = _overlap_text(cfg) if cfg.mainloop in _DERIVED_MAINLOOPS else ""
    sk = streamk_text(cfg.scheduler == "streamk")
    define = (PROGRAMMATIC_DEFINE if programmatic_launch(cfg) else "") + sk.define
    includes = _INCLUDES + sk.scheduler + _WAITING_AUX
    body = define + _SM90_DRIVER_SHIM + _COMMON_PRELUDE + includes + overlap + relu6 + _kernel_types(cfg)
    text = sm90_split_source(header, body, _launcher(cfg), sk.host_kernels)
    return tidy_source(text)
