"""The scaled GEMMs' EVT epilogue in the launcher's text (kernels/emit.py): the brace initializer of the epilogue
arguments built from raw pointers, and the two rewrites of cutlass_cppgen's SM90 output that let one kernel serve a
per-tensor scale (a dynamic broadcast stride) and start as a programmatic dependent (a scalar read late)."""
from __future__ import annotations

import re

from .config import KernelConfig
from .epilogues import LAUNCH_INPUTS, SCALE_A_SCALAR, SCALE_B_SCALAR
from .launcher_text import LATE_SCALAR_STRIDE, LATE_SCALAR_VALUE


def evt_initializer(dag_ir, node: str, sm: int) -> str:
    """C++ brace initializer of the EVT arguments rooted at `node`. Sm90EVT/Sm80EVT argument tuples
    list the children's arguments first, then the node's own."""
    from cutlass_cppgen.backend.evt.ir.load_nodes import (
        AccumulatorImpl, ColumnBroadcastImpl, RowBroadcastImpl, ScalarBroadcastImpl)
    from cutlass_cppgen.backend.evt.ir.compute_nodes import ComputeImpl
    from cutlass_cppgen.backend.evt.ir.store_nodes import AuxStoreImpl

    meta = dag_ir.get_node_meta(node)
    impl = meta.underlying_impl
    t = meta.name_camel
    if isinstance(impl, (AccumulatorImpl, ComputeImpl)):
        own = "{}"
    elif isinstance(impl, (ColumnBroadcastImpl, RowBroadcastImpl)):
        field = "ptr_col" if isinstance(impl, ColumnBroadcastImpl) else "ptr_row"
        _check_input(node)
        own = f"{{static_cast<decltype({t}::Arguments::{field})>({node})}}"
        if sm >= 90 and node in _DYNAMIC_SCALES:  # the stride says vector (1) or one element (0): dynamic_scales
            bit, col = _DYNAMIC_SCALES[node]
            vec = f"!(scale_flags & {bit})"
            stride = f"cute::make_stride({vec}, cute::Int<0>{{}}, cute::Int<0>{{}})" if col else \
                f"cute::make_stride(cute::Int<0>{{}}, {vec}, cute::Int<0>{{}})"
            own = f"{{static_cast<decltype({t}::Arguments::{field})>({node}), {{}}, {stride}}}"
    elif isinstance(impl, ScalarBroadcastImpl) and meta.tensor.is_constant:  # an activation's immediate
        own = f"{{{{static_cast<decltype(+{t}::Arguments{{}}.scalars[0])>({float(meta.tensor.value)!r})}}, {{}}, {{}}}}"
    elif isinstance(impl, ScalarBroadcastImpl):
        _check_input(node)
        late = LATE_SCALAR_VALUE if sm >= 90 else ""  # SM90: the dynamic batch stride of late_scalars
        own = f"{{{{}}, {{static_cast<decltype(+{t}::Arguments{{}}.scalar_ptrs[0])>({node})}}, {{{late}}}}}"
    elif isinstance(impl, AuxStoreImpl) and node == "D":
        own = "{static_cast<ElementOut*>(d), stride_d}"
    else:
        raise NotImplementedError(f"launcher: EVT node {node} ({type(impl).__name__}) is not supported")
    children = dag_ir.get_all_inputs(node)
    if not children:
        return own
    inner = ", ".join(evt_initializer(dag_ir, c, sm) for c in children)
    return f"{{{inner}, {own}}}"


#: SM90 scale vectors whose broadcast node takes a runtime stride: node -> (scale_flags bit, column broadcast?)
_DYNAMIC_SCALES = {"scale_a": (SCALE_A_SCALAR, True), "scale_b": (SCALE_B_SCALAR, False)}
_STATIC_STRIDE = {True: "cute::Stride<cute::Int<1>, cute::Int<0>, cute::Int<0>>",
                  False: "cute::Stride<cute::Int<0>, cute::Int<1>, cute::Int<0>>"}


def dynamic_scales(kernel_src: str, cfg: KernelConfig) -> str:
    """SM90: the per-token scale_a / per-channel scale_b broadcast nodes get CUTLASS's dynamic stride (a bool
    where the vector's unit stride was: true reads the vector, false broadcasts element 0), so one kernel serves
    a per-tensor scale too, without a copy kernel to expand it (the launcher sets it from scale_flags)."""
    kinds = {"scale_a": cfg.scale_a == "token", "scale_b": cfg.scale_b == "channel"}
    for node, (_, col) in _DYNAMIC_SCALES.items():
        if not kinds[node]:
            continue
        cls, name = ("Sm90ColBroadcast", "ScaleA") if col else ("Sm90RowBroadcast", "ScaleB")
        pattern = re.compile(rf"(using {name} = cutlass::epilogue::fusion::{cls}<[^;]*?){re.escape(_STATIC_STRIDE[col])}")
        dynamic = _STATIC_STRIDE[col].replace("cute::Int<1>", "bool")
        kernel_src, found = pattern.subn(lambda m: m.group(1) + dynamic, kernel_src)
        if found != 1:
            raise RuntimeError(f"cutlass_cppgen output: no {cls} {name} with a unit stride to make dynamic")
    return kernel_src


#: Sm90ScalarBroadcast's stride as cutlass_cppgen emits it (every mode static 0); late_scalars makes it
#: launcher_text.LATE_SCALAR_STRIDE
_SCALAR_STATIC_STRIDE = "cute::Stride<cute::Int<0>, cute::Int<0>, cute::Int<0>>"


def late_scalars(kernel_src: str, cfg: KernelConfig) -> str:
    """SM90: the per-tensor scale_a / scale_b broadcast nodes get launcher_text.LATE_SCALAR_STRIDE (the launcher
    passes LATE_SCALAR_VALUE, evt_initializer), so CUTLASS's Sm90ScalarBroadcast reads the scale after the
    producer's griddepcontrol.wait, not at kernel start: what lets these kernels start as programmatic dependents
    (programmatic_launch) behind a kernel that writes the scale, e.g. the dynamic per-tensor quantizer. The
    activations' constant nodes keep the static stride: they read no memory."""
    for name, kind in (("ScaleA", cfg.scale_a), ("ScaleB", cfg.scale_b)):
        if kind != "tensor":
            continue
        pattern = re.compile(rf"(using {name} = cutlass::epilogue::fusion::Sm90ScalarBroadcast<\s*float,\s*)"
                             rf"{re.escape(_SCALAR_STATIC_STRIDE)}")
        kernel_src, found = pattern.subn(lambda m: m.group(1) + LATE_SCALAR_STRIDE, kernel_src)
        if found != 1:
            raise RuntimeError(f"cutlass_cppgen output: no Sm90ScalarBroadcast {name} with a static stride")
    return kernel_src


def scalar_scales_served(cfg: KernelConfig) -> int:
    """scale_flags bits a kernel honours: every one on SM90 (per-tensor kinds read a scalar anyway, vector kinds
    take the dynamic stride); on SM80 only those of its per-tensor kinds (its EVT has no dynamic broadcast)."""
    if cfg.sm >= 90:
        return SCALE_A_SCALAR | SCALE_B_SCALAR
    return (SCALE_A_SCALAR if cfg.scale_a == "tensor" else 0) | (SCALE_B_SCALAR if cfg.scale_b == "tensor" else 0)


def _check_input(name: str) -> None:
    if name not in LAUNCH_INPUTS:
        raise NotImplementedError(f"launcher: epilogue input {name!r} is not one of {LAUNCH_INPUTS}")
