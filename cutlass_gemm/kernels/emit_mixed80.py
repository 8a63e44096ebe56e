"""Emit the SM80 W8A16 kernel of the mixed-input family (kernels/mixed_input.py, sm=80) through cutlass_cppgen.

CUTLASS 2's mixed-input upcast GEMM (cutlass_library's GenerateSM80_TensorOp_16816_mixed_input_upcast_b:
`OpMultiplyAddMixedInputUpcast`, the int8 B operand converted to the 16-bit activation type in registers before
mma.sync m16n8k16, float32 accumulation) with an EVT epilogue traced like the scaled GEMMs' (kernels/emit.py):

    out (M, N) = x (M, K) @ q^T * scale[n] + bias[n]      (x row-major = A, q (N, K) int8 row-major = column-major B)

The per-channel scale factors out of the K sum, so it is applied once per output in float32 (the small-M kernels
round each dequantized weight to the activation dtype instead: the two agree to that rounding). A null bias reads as
zeros. The C ABI is the family's (emit_mixed.py: `cg_mixed_launch`, `cg_mixed_workspace_size`), so
ops/weight_only.launch_mixed calls it as it calls the SM90 kernels; `zeros` must be null and `group_size` K (per
channel): anything else is refused with code 1 before any launch. No workspace, plain launches (no PDL before SM90).
"""
from __future__ import annotations

import re

from .emit import _COMMON_PRELUDE, SM80_RUN, _cutlass_cppgen, sm80_arguments, source_header, tidy_source
from .emit_evt import evt_initializer
from .launcher_text import LAUNCHER_ABI_VERSION
from .mixed_input import MIXED_GENERATOR_VERSION, MixedInputConfig


#: CUTLASS 2's device-adapter body after `args`, shared with the scaled GEMMs' SM80 launcher (kernels/emit.py).
_RUN = SM80_RUN.replace("WORKSPACE_FN", "cg_mixed_workspace_size")


def _scale_bias(accum, scale_b, bias):
    D = accum * scale_b + bias
    return D


def _types(cfg: MixedInputConfig):
    """(kernel source text, EVT dag) from cutlass_cppgen."""
    cg = _cutlass_cppgen(80)
    import torch
    from cutlass_cppgen import DataType, LayoutType
    from cutlass_cppgen.utils import datatypes
    act = {"bf16": DataType.bf16, "f16": DataType.f16}[cfg.act_dtype]
    tdt = {"bf16": torch.bfloat16, "f16": torch.float16}[cfg.act_dtype]
    plan = cg.op.Gemm(element_A=act, element_B=DataType.s8, element_C=act, element_D=act,
                      element_accumulator=DataType.f32, layout_A=LayoutType.RowMajor,
                      layout_B=LayoutType.ColumnMajor, layout_C=LayoutType.RowMajor, cc=80, kernel_cc=80)
    m, n = 128, 256  # example shapes: they only tell broadcasts apart
    examples = {"accum": cg.Tensor(element=torch.float32, shape=(m, n), layout_tag=LayoutType.RowMajor),
                "scale_b": torch.zeros((1, n), dtype=tdt), "bias": torch.zeros((1, n), dtype=tdt),
                "D": torch.zeros((m, n), dtype=tdt)}
    visitor = cg.epilogue.trace(_scale_bias, examples)
    plan.epilogue_visitor = visitor
    # CUTLASS's (M, N, K) is (tokens, weights, K): the family's tile is (weights, tokens, K)
    want = [cfg.tile[1], cfg.tile[0], cfg.tile[2]]
    tds = [datatypes.td_from_profiler_op(o) for o in plan.possible_operations.operations(8, 16, 8, None)]
    td = next((t for t in tds if list(t.threadblock_shape) == want and t.stages == cfg.stages), None)
    if td is None:
        offered = sorted({(tuple(t.threadblock_shape), t.stages) for t in tds})
        raise ValueError(f"MixedInputConfig.tile: SM80 upcast offers (threadblock, stages) in {offered}")
    plan.tile_description = td
    op = plan.construct(tile_description=td, alignment_A=8, alignment_B=16, alignment_C=8)
    module = op.rt_module
    kernel_src = module.emit()  # first: emitting adds the epilogue's includes to the emitter's list
    includes = "".join(f'#include "{inc}"\n' for inc in module.emitter.includes)
    return includes + kernel_src, visitor.dag_ir


def _launcher(cfg: MixedInputConfig, dag_ir) -> str:
    evt = evt_initializer(dag_ir, "D", 80)
    return f"""
// ---- C-ABI launcher (cutlass_gemm, mixed-input family, SM80 upcast) -------------------------
CG_EXPORT int cg_abi_version() {{ return {LAUNCHER_ABI_VERSION}; }}
CG_EXPORT char const* cg_kernel_name() {{ return "{cfg.name}"; }}
CG_EXPORT char const* cg_last_error() {{ return cg_error_text; }}

namespace {{
typename Gemm::Arguments make_args(void const* x, void const* w, void* d, void const* scale_b, void const* bias,
                                   int64_t m, int64_t n, int64_t k, int64_t ldx, int64_t ldd) {{
{sm80_arguments(evt, "x", "w", "ldx", "k")}}}
}}  // namespace

CG_EXPORT size_t cg_mixed_workspace_size(int64_t m, int64_t n, int64_t k, int64_t group_size) {{
  (void)group_size;
  return Gemm::get_workspace_size(make_args(nullptr, nullptr, nullptr, nullptr, nullptr, m, n, k, k, n));
}}

CG_EXPORT int cg_mixed_launch(void const* w, void const* x, void* out, void const* scales, void const* zeros,
                              void const* bias, int64_t m, int64_t n, int64_t k, int64_t ldx, int64_t ldo,
                              int64_t group_size, void* workspace, size_t workspace_bytes, void* stream_handle) {{
  if (zeros != nullptr || (group_size != 0 && group_size != k))
    return cg_fail(1, "format", "the SM80 upcast kernel takes symmetric per-channel weights (no zeros, group = K)");
  auto args = make_args(x, w, out, scales, bias, m, n, k, ldx, ldo);
{_RUN}"""


def emit_mixed80_source(cfg: MixedInputConfig) -> str:
    """The complete .cu text of the SM80 upcast kernel `cfg` (deterministic)."""
    kernel_src, dag_ir = _types(cfg)
    match = re.search(r"struct (\w+_type) :", kernel_src)
    if not match:
        raise RuntimeError("cutlass_cppgen output has no named kernel type")
    header = source_header(cfg, "mixed-input generator", MIXED_GENERATOR_VERSION)
    gemm = f"""
namespace {{
using Gemm = cutlass::gemm::device::GemmUniversalAdapter<{match.group(1)}>;
}}  // namespace
"""
    text = header + _COMMON_PRELUDE + kernel_src + gemm + _launcher(cfg, dag_ir)
    return tidy_source(text)
