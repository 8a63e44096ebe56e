"""Emit one kernel's CUDA C++ through the CUTLASS Python interface (`cutlass_cppgen`).

cutlass_cppgen writes the kernel types (mainloop, EVT epilogue, GemmUniversal); we append a C-ABI
launcher that builds the CUTLASS arguments from raw pointers, leading dimensions and the problem
size given at call time. Nothing in the emitted text depends on the machine: cutlass_cppgen is told
the target SM instead of querying a GPU, and the nvcc version it may consult is pinned.
"""
from __future__ import annotations

import atexit
import os
import shutil
import re
import sys
import tempfile
from typing import Dict, List

from . import _cuda_compat
from ..errors import BuildError
from .config import GENERATOR_VERSION, KernelConfig
from . import activations, emit_streamk
from .epilogues import EPILOGUES, input_shapes
from .emit_evt import dynamic_scales, evt_initializer, late_scalars, scalar_scales_served
from .launcher_text import (PROGRAMMATIC_DEFINE, _COMMON_PRELUDE, _SM90_DEVICE_LOOKUP, _SM90_DRIVER_SHIM,
                            sm90_device_setup, sm90_run_args, sm90_split_source)

#: cutlass_cppgen consults the nvcc version for a few emission choices; pin it so output is reproducible.
EMIT_NVCC_VERSION = "13.0"
#: Bumped when the scaled GEMMs' cg_launch C signature changes; checked when a library is loaded. 3: the
#: trailing `scale_flags` (a per-tensor scale broadcast inside the epilogue). The other families keep
#: launcher_text.LAUNCHER_ABI_VERSION.
GEMM_LAUNCHER_ABI_VERSION = 3

_target_cc: Dict[str, int] = {"cc": 90}
_registries: Dict[int, object] = {}
_cg = None


def cutlass_version() -> str:
    from importlib.metadata import PackageNotFoundError, version
    try:
        return version("nvidia-cutlass")
    except PackageNotFoundError as exc:
        raise BuildError("emitting kernels needs nvidia-cutlass (pip install 'nvidia-cutlass==4.2.*')") from exc


def cutlass_include_dirs() -> List[str]:
    import cutlass_library
    root = cutlass_library.source_path
    return [os.path.join(root, "include"), os.path.join(root, "tools", "util", "include")]


def _import_cutlass_library():
    """Import cutlass_library with its `generator` submodule whatever sys.argv holds: its __init__ skips
    `from . import generator` when '-m' is in sys.argv (so `python -m pytest -m gpu` broke emission)."""
    import importlib
    library = importlib.import_module("cutlass_library")
    if not hasattr(library, "generator"):
        library.generator = importlib.import_module("cutlass_library.generator")
    return library


def _cutlass_cppgen(sm: int):
    """Import cutlass_cppgen, GPU-free, with `sm` as the target of the next emission."""
    global _cg
    if _cg is None:
        _cuda_compat.install()
        from ..runtime.build import cuda_root  # $CUDA_HOME, $CUDA_PATH, then nvcc on PATH
        os.environ.setdefault("CUDA_INSTALL_PATH", cuda_root() or "/usr/local/cuda")
        # cutlass_cppgen creates a sqlite cache in the working directory when imported: keep it out
        # of the user's directory (we never use its compile path).
        cwd = os.getcwd()
        scratch = tempfile.mkdtemp(prefix="cutlass_gemm_cppgen_")
        atexit.register(shutil.rmtree, scratch, True)
        os.chdir(scratch)
        try:
            _import_cutlass_library()
            import cutlass_cppgen
            import cutlass_cppgen.epilogue  # noqa: F401  (registers trace)
        finally:
            os.chdir(cwd)

        def forced_cc(device=-1):
            return _target_cc["cc"]

        # Every module that imported device_cc by name gets the forced one: emission must not ask a GPU.
        for name, mod in list(sys.modules.items()):
            if name.startswith("cutlass_cppgen") and hasattr(mod, "device_cc"):
                mod.device_cc = forced_cc
        cutlass_cppgen._nvcc_version = EMIT_NVCC_VERSION
        _register_sm89()
        emit_streamk.allow_fp8_cooperative_streamk()
        activations.install_frontend_names()
        _cg = cutlass_cppgen
    _target_cc["cc"] = sm
    if sm not in _registries:
        from cutlass_cppgen.library_defaults import OptionRegistry
        _registries[sm] = OptionRegistry(sm)
    _cg._option_registry = _registries[sm]
    return _cg


def _register_sm89() -> None:
    """Let cutlass_cppgen 4.2 emit SM89 kernels. Its option registry is built from `_generator_ccs`, which has no 89,
    although cutlass_library's GenerateSM89 (Ada fp8 mma.sync m16n8k32) is there and the CUTLASS 2 EVT serves SM89
    as it serves SM80 (`cc_map[89] == 80`). Both modules that hold the list get 89 (one list object, checked)."""
    from cutlass_cppgen import library_defaults
    from cutlass_cppgen.op import op
    for ccs in {id(library_defaults._generator_ccs): library_defaults._generator_ccs,
                id(op._generator_ccs): op._generator_ccs}.values():
        if 89 not in ccs:
            ccs.insert(next(i for i, cc in enumerate(ccs) if cc > 89), 89)


def evt_sm(sm: int) -> int:
    """The SM whose EVT an `sm` kernel's epilogue is traced for: SM89's is SM80's CUTLASS 2 visitor tree (cutlass_cppgen
    sets up the SM80 epilogue's stage count only when the trace itself targets 80)."""
    return 80 if sm == 89 else sm


def trace_epilogue(variant: str, scale_a: str, scale_b: str, out_dtype: str, sm: int, m: int = 128, n: int = 256,
                   activation: str = "none"):
    """Trace the variant's function (wrapped in `activation`, see activations.py) into an EVT for `sm`.
    The example shapes only tell scalar from broadcast: the launcher takes strides and sizes from the
    real tensors at call time."""
    cg = _cutlass_cppgen(sm)
    import torch
    from cutlass_cppgen import LayoutType
    tdt = {"bf16": torch.bfloat16, "f16": torch.float16}[out_dtype]
    dtypes = {"scale_a": torch.float32, "scale_b": torch.float32, "bias": tdt,
              "azp": torch.int32, "azp_adj": torch.int32, "azp_with_adj": torch.int32}
    examples = {"accum": cg.Tensor(element=torch.float32, shape=(m, n), layout_tag=LayoutType.RowMajor)}
    for name, shape in input_shapes(variant, scale_a, scale_b, m, n).items():
        examples[name] = torch.zeros(shape, dtype=dtypes[name]) if shape else 1.0
    examples["D"] = torch.zeros((m, n), dtype=tdt)
    fn = EPILOGUES[variant]
    if activation == "none":
        return cg.epilogue.trace(fn, examples)
    return activations.trace_source(activations.traced_source(fn, activation), examples, sm)


def _cppgen_types(cfg: KernelConfig):
    from cutlass_cppgen import DataType
    ab = {"int8": DataType.s8, "e4m3": DataType.e4m3}[cfg.a_dtype]
    acc = DataType.s32 if cfg.a_dtype == "int8" else DataType.f32
    out = {"bf16": DataType.bf16, "f16": DataType.f16}[cfg.out_dtype]
    return ab, acc, out


def _tile_description(cfg: KernelConfig, plan):
    from cutlass_cppgen.utils import datatypes
    from cutlass_library import EpilogueScheduleType, KernelScheduleType, TileSchedulerType
    ops = plan.possible_operations.operations(cfg.align_a, cfg.align_b, cfg.align_out, None)
    if not ops:
        raise ValueError(f"KernelConfig: CUTLASS offers no {cfg.a_dtype} kernels with alignments "
                         f"{cfg.align_a}/{cfg.align_b}/{cfg.align_out} on SM{cfg.sm}")
    tds = [datatypes.td_from_profiler_op(o) for o in ops]
    if cfg.sm >= 90:
        fp8 = cfg.a_dtype == "e4m3"
        kernel = {("pingpong", False): KernelScheduleType.TmaWarpSpecializedPingpong,
                  ("cooperative", False): KernelScheduleType.TmaWarpSpecializedCooperative,
                  ("pingpong", True): KernelScheduleType.TmaWarpSpecializedPingpongFP8FastAccum,
                  ("cooperative", True): KernelScheduleType.TmaWarpSpecializedCooperativeFP8FastAccum}
        epi = {"pingpong": EpilogueScheduleType.TmaWarpSpecialized,
               "cooperative": EpilogueScheduleType.TmaWarpSpecializedCooperative}
        # cutlass_cppgen's "threadblock_shape" on SM90 is the whole cluster's tile.
        cluster_tile = [cfg.tile[i] * cfg.cluster[i] for i in range(3)]
        return tds[0].clone_and_update({
            "threadblock_shape": cluster_tile, "cluster_shape": list(cfg.cluster),
            "stages": cfg.stages or None, "kernel_schedule": kernel[(cfg.schedule, fp8)],
            "epilogue_schedule": epi[cfg.schedule],
            # split-K and stream-K are both CUTLASS's stream-K scheduler; make_args picks the decomposition
            "tile_scheduler": TileSchedulerType.Default if cfg.scheduler == "persistent" else TileSchedulerType.StreamK})
    # The tile may sit in another alignment's bucket (cutlass_library lists SM89's 128-row fp8 tiles only with
    # 16-element output alignment): the tile description does not depend on the alignments, which construct() sets.
    tds += [datatypes.td_from_profiler_op(o) for ops_ in plan.possible_operations.kernels_by_alignment.values()
            for o in ops_]
    for td in tds:
        if list(td.threadblock_shape) == list(cfg.tile) and td.stages == cfg.stages:
            return td
    offered = sorted({(tuple(td.threadblock_shape), td.stages) for td in tds})
    raise ValueError(f"KernelConfig.tile: SM{cfg.sm} offers (tile, stages) in {offered}, "
                     f"not ({cfg.tile}, {cfg.stages})")


_MAKE_ARGS_SIGNATURE = """\
typename Gemm::Arguments make_args(void const* a, void const* b, void* d,
                                   int64_t m, int64_t n, int64_t k, int64_t lda, int64_t ldb, int64_t ldd,
                                   void const* scale_a, void const* scale_b, void const* azp,
                                   void const* azp_adj, void const* azp_with_adj, void const* bias,
                                   int scale_flags)"""


# The exported entry points, shared by both launchers; each appends its own body to cg_launch. scale_flags
# (epilogues.SCALE_A_SCALAR | SCALE_B_SCALAR): scale_a / scale_b is one element to broadcast; a kernel refuses
# the bits it cannot honour (kScalarScalesServed) before touching the GPU.
_ENTRY_POINTS = """\
CG_EXPORT size_t cg_workspace_size(int64_t m, int64_t n, int64_t k) {
  auto args = make_args(nullptr, nullptr, nullptr, m, n, k, k, k, n,
                        nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, 0);
  return Gemm::get_workspace_size(args);
}

CG_EXPORT int cg_launch(void const* a, void const* b, void* d,
                        int64_t m, int64_t n, int64_t k, int64_t lda, int64_t ldb, int64_t ldd,
                        void const* scale_a, void const* scale_b, void const* azp, void const* azp_adj,
                        void const* azp_with_adj, void const* bias,
                        void* workspace, size_t workspace_bytes, void* stream_handle, int scale_flags) {
  if (scale_flags & ~kScalarScalesServed)
    return cg_fail(1, "scale_flags", "this kernel reads that scale as a vector; broadcast the per-tensor scale first");
"""

#: The SM80 launchers' body after `args` (CUTLASS 2's device adapter); WORKSPACE_FN names the entry point that sizes
#: the workspace (the mixed-input family's SM80 kernels share it, kernels/emit_mixed80.py).
SM80_RUN = """\
  Gemm gemm;
  cutlass::Status status = gemm.can_implement(args);
  if (status != cutlass::Status::kSuccess)
    return cg_fail(1, "can_implement", cutlass::cutlassGetStatusString(status));
  if (Gemm::get_workspace_size(args) > workspace_bytes)
    return cg_fail(2, "workspace", "the workspace passed is smaller than WORKSPACE_FN()");
  cudaStream_t stream = static_cast<cudaStream_t>(stream_handle);
  status = gemm.initialize(args, workspace, stream);
  if (status != cutlass::Status::kSuccess)
    return cg_fail(3, "initialize", cutlass::cutlassGetStatusString(status));
  status = gemm.run(stream);
  cudaError_t err = cudaGetLastError();
  if (err != cudaSuccess) return cg_fail(4, "launch", cudaGetErrorString(err));
  if (status != cutlass::Status::kSuccess)
    return cg_fail(4, "run", cutlass::cutlassGetStatusString(status));
  return 0;
}
"""

_LAUNCH_FUNCTIONS = _ENTRY_POINTS + """\
  auto args = make_args(a, b, d, m, n, k, lda, ldb, ldd, scale_a, scale_b, azp, azp_adj, azp_with_adj, bias,
                        scale_flags);
""" + SM80_RUN.replace("WORKSPACE_FN", "cg_workspace_size")


def programmatic_launch(cfg: KernelConfig) -> bool:
    """Whether `cfg`'s kernel is launched as a programmatic dependent (PDL: it may start while the kernel ahead of
    it in the stream finishes; launcher_text.sm90_device_setup). SM90 persistent kernels, whose every global read
    comes after CUTLASS's griddepcontrol.wait: the producer warps wait before their first load and the consumers
    read the epilogue's vectors only after the mainloop those loads feed; per-tensor scales too since generator 5
    (late_scalars; before, Sm90ScalarBroadcast read them at kernel start and these kernels launched plainly).
    The stream-K / split-K schedulers too since generator 6: their workspace is cleared by a kernel that is itself
    a programmatic dependent (emit_streamk), no longer by a memset ahead of the kernel."""
    return cfg.sm >= 90


def _sm90_launch_functions(cfg: KernelConfig) -> str:
    """The SM90 entry points; stream-K / split-K kernels size their workspace with the device's hw_info."""
    make_args = ("  auto args = make_args(a, b, d, m, n, k, lda, ldb, ldd, scale_a, scale_b, azp, azp_adj, azp_with_adj,"
                 " bias,\n                        scale_flags);\n")
    setup = sm90_device_setup(programmatic_launch(cfg))
    if cfg.scheduler == "persistent":
        return setup + _ENTRY_POINTS + _SM90_DEVICE_LOOKUP + make_args + sm90_run_args()
    sk = emit_streamk.streamk_text(True)
    entry = _ENTRY_POINTS.split("\n\n", 1)[1]  # cg_launch's head, without the hw_info-less cg_workspace_size
    return (setup + sk.filler + emit_streamk.SM90_STREAMK_WORKSPACE + "\n" + entry
            + _SM90_DEVICE_LOOKUP + make_args + sm90_run_args(sk.adapter))


def sm80_arguments(evt: str, a: str, b: str, lda: str, ldb: str) -> str:
    """make_args' body for a CUTLASS 2 GemmUniversal with an EVT epilogue (`evt`: its brace initializer; D row-major
    with leading dimension `ldd`); the C++ names of the operands and their leading dimensions as given. The scaled
    GEMMs' SM80 launcher and the SM80 upcast kernels' (kernels/emit_mixed80.py) share it."""
    return f"""\
  using ElementOut = typename Gemm::ElementC;
  using StrideD = cute::Stride<int64_t, cute::Int<1>, cute::Int<0>>;
  StrideD stride_d{{}}; cute::get<0>(stride_d) = ldd;
  return typename Gemm::Arguments(
      cutlass::gemm::GemmUniversalMode::kGemm,
      {{static_cast<int>(m), static_cast<int>(n), static_cast<int>(k)}}, 1,
      typename Gemm::EpilogueOutputOp::Params{evt},
      {a}, {b}, nullptr, nullptr, 0, 0, 0, 0, {lda}, {ldb}, 0, 0);
"""


def _launcher(cfg: KernelConfig, dag_ir) -> str:
    if cfg.sm >= 90:
        root = dag_ir.get_all_inputs("D")[0]
        evt = evt_initializer(dag_ir, root, cfg.sm)
        body = f"""\
  using StrideA = typename Gemm::GemmKernel::StrideA;
  using StrideB = typename Gemm::GemmKernel::StrideB;
  using StrideD = typename Gemm::GemmKernel::StrideD;
  using ElementA = typename Gemm::GemmKernel::ElementA;
  using ElementB = typename Gemm::GemmKernel::ElementB;
  using ElementOut = typename Gemm::GemmKernel::ElementD;
  // Leading dimensions come from the caller's tensors; only the dynamic modes are written.
  StrideA stride_a{{}}; cute::get<0>(stride_a) = lda;
  StrideB stride_b{{}}; cute::get<0>(stride_b) = ldb;
  StrideD stride_d{{}}; cute::get<0>(stride_d) = ldd;
  {"return" if cfg.scheduler == "persistent" else "typename Gemm::Arguments args ="} typename Gemm::Arguments{{
      cutlass::gemm::GemmUniversalMode::kGemm,
      {{static_cast<int>(m), static_cast<int>(n), static_cast<int>(k), 1}},
      {{static_cast<ElementA const*>(a), stride_a, static_cast<ElementB const*>(b), stride_b}},
      {{{evt},
       nullptr, stride_d, static_cast<ElementOut*>(d), stride_d}}}};
{emit_streamk.scheduler_args(cfg)}"""
    else:
        body = sm80_arguments(evt_initializer(dag_ir, "D", cfg.sm), "a", "b", "lda", "ldb")
    return f"""
// ---- C-ABI launcher (cutlass_gemm) ----------------------------------------------------------
CG_EXPORT int cg_abi_version() {{ return {GEMM_LAUNCHER_ABI_VERSION}; }}
CG_EXPORT char const* cg_kernel_name() {{ return "{cfg.name}"; }}
CG_EXPORT char const* cg_last_error() {{ return cg_error_text; }}

namespace {{
// scale_flags bits this kernel honours (1: scale_a is one element, 2: scale_b is one element)
constexpr int kScalarScalesServed = {scalar_scales_served(cfg)};

{_MAKE_ARGS_SIGNATURE} {{
{body}}}
}}  // namespace

{_sm90_launch_functions(cfg) if cfg.sm >= 90 else _LAUNCH_FUNCTIONS}"""


def emit_source(cfg: KernelConfig) -> str:
    """The complete, self-contained .cu text for one kernel.

    Every failure (nvidia-cutlass missing or broken, a configuration CUTLASS does not offer, an
    epilogue the launcher cannot drive) raises BuildError naming the kernel and the cause."""
    try:
        return _emit_source(cfg)
    except BuildError:
        raise
    except Exception as exc:
        raise BuildError(f"emitting kernel {cfg.name} failed: {type(exc).__name__}: {exc}") from exc


def _emit_source(cfg: KernelConfig) -> str:
    cg = _cutlass_cppgen(cfg.sm)
    from cutlass_cppgen import LayoutType
    ab, acc, out = _cppgen_types(cfg)
    plan = cg.op.Gemm(element_A=ab, element_B=ab, element_C=out, element_D=out, element_accumulator=acc,
                      layout_A=LayoutType.RowMajor, layout_B=LayoutType.ColumnMajor,
                      layout_C=LayoutType.RowMajor, cc=cfg.sm, kernel_cc=cfg.sm)
    visitor = trace_epilogue(cfg.variant, cfg.scale_a, cfg.scale_b, cfg.out_dtype, evt_sm(cfg.sm),
                             activation=cfg.activation)
    _cutlass_cppgen(cfg.sm)  # the trace may have targeted another SM (evt_sm)
    plan.epilogue_visitor = visitor
    td = _tile_description(cfg, plan)
    plan.tile_description = td
    op = plan.construct(tile_description=td, alignment_A=cfg.align_a, alignment_B=cfg.align_b,
                        alignment_C=cfg.align_out)
    module = op.rt_module
    kernel_src = activations.nan_propagating_min(module.emit(), cfg.activation)
    if cfg.sm >= 90:
        kernel_src = late_scalars(dynamic_scales(kernel_src, cfg), cfg)
    match = re.search(r"struct (\w+_type) :", kernel_src)
    if not match:
        raise RuntimeError("cutlass_cppgen output has no named kernel type")
    includes = "".join(f'#include "{inc}"\n' for inc in module.emitter.includes)
    fields = "\n".join(f"//   {k} = {v}" for k, v in cfg.to_dict().items())
    header = (f"// Generated by cutlass_gemm (generator {GENERATOR_VERSION}, nvidia-cutlass {cutlass_version()})."
              f" Do not edit.\n// Kernel {cfg.name}\n{fields}\n")
    launcher = _launcher(cfg, visitor.dag_ir)
    gemm = f"""
namespace {{
using Gemm = cutlass::gemm::device::GemmUniversalAdapter<{match.group(1)}>;
}}  // namespace
"""
    if cfg.sm >= 90:
        sk = emit_streamk.streamk_text(cfg.scheduler != "persistent")
        define = (PROGRAMMATIC_DEFINE if programmatic_launch(cfg) else "") + sk.define
        if cfg.scheduler != "persistent":
            kernel_src = emit_streamk.own_streamk_tag(kernel_src)
        text = sm90_split_source(header, define + _SM90_DRIVER_SHIM + _COMMON_PRELUDE + includes + sk.scheduler
                                 + kernel_src + gemm, launcher, sk.host_kernels)
    else:
        text = header + _COMMON_PRELUDE + includes + kernel_src + gemm + launcher
    return "\n".join(line.rstrip() for line in text.splitlines()).rstrip() + "\n"
