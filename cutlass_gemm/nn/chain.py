"""int8 activation chaining between convolutions: the TensorRT / MNN habit of keeping a CNN's activations in int8
from one conv to the next, so that the next layer's input is quantized in this layer's epilogue instead of by a
quantization kernel that reads the float activation back.

    model = resnet.eval()
    model = fold_batchnorm(model)                        # conv + BatchNorm -> one conv (torch.fx, eval mode)
    cals = calibrate(model, batches)                     # static input scales of every conv
    quantize_model(model, "w8a8-int8-static", calibration=cals)
    report = chain_int8(model)                           # int8 between convs joined only by a ReLU

`chain_int8` walks the model's torch.fx graph (a `GraphModule`, as `fold_batchnorm` returns; any other model is
traced with the library's layers as leaves) for a static `Int8Conv2d` P whose only user is a static `Int8Conv2d`
C, directly or through one ReLU (an `nn.ReLU` module, `torch.relu` / `F.relu` or `.relu()`) that nothing else
uses. Then P quantizes its output in its epilogue with C's calibrated input scale (the ReLU fused before it:
`Int8Conv2d.set_int8_output`), returns an `Int8ConvActivation` (int8 NHWC + scale), the ReLU node is removed,
and C reads that int8 tensor as is. A 1x1 layer on either side moves to the implicit GEMM (`use_implicit_gemm`,
the same weight memory). In a ResNet bottleneck that is conv1 -> conv2 -> conv3: two of its three activation
quantizations go, and the int8 tensors between are half the bytes of bf16 ones.

What changes numerically: C's input was round(bf16(P's output) / s) and is now round(float32(P's output) / s)
(no bf16 rounding in between; the same scale and rule otherwise). Non-finite values: int8 has no NaN, so a
chain carries them in a guard: its first layer's activation scale (NaN or Inf when that layer saw NaN/Inf) rides
along with every int8 activation (`Int8ConvActivation.guard`), every later kernel reads its activation scale as
scale + 0 * guard (one more scalar in the epilogue), and the float output at the chain's end is NaN. No device
op runs between two chained layers. A link reads the consumer's calibrated scale at every call, so loading a
state_dict into the chained model (or moving it) keeps it right; the links are not state: a freshly built model is
chained again.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import List, Optional, Tuple

import torch
import torch.nn.functional as F
from torch import fx, nn

from ..errors import InvalidArgumentError
from .conv_int8 import Int8Conv2d

_RELU_FUNCTIONS = (torch.relu, F.relu, torch.relu_)


@dataclass
class ChainReport:
    """What `chain_int8` did: the (producer, consumer) layer names chained, and the convs it left alone with why."""
    chained: List[Tuple[str, str]] = field(default_factory=list)
    skipped: List[Tuple[str, str]] = field(default_factory=list)

    def __str__(self) -> str:
        lines = [f"{len(self.chained)} int8 links:"] + [f"  {p} -> {c}" for p, c in self.chained]
        lines += [f"{len(self.skipped)} convs not chained:"] + [f"  {n}: {why}" for n, why in self.skipped]
        return "\n".join(lines)


class _LeafTracer(fx.Tracer):
    """Keeps the library's layers (and torch's) as leaves: their forward holds data-dependent dispatch."""

    def is_leaf_module(self, m: nn.Module, qualname: str) -> bool:
        return type(m).__module__.startswith("cutlass_gemm.") or super().is_leaf_module(m, qualname)


def _as_graph_module(model: nn.Module) -> fx.GraphModule:
    if isinstance(model, fx.GraphModule):
        return model
    graph = _LeafTracer().trace(model)
    return fx.GraphModule(model, graph, model.__class__.__name__)


def fold_batchnorm(model: nn.Module) -> fx.GraphModule:
    """The model with every Conv2d -> BatchNorm2d pair folded into one Conv2d (torch.fx's
    `torch.fx.experimental.optimization.fuse`; eval mode: running statistics). A new GraphModule; `model` is
    left as it was."""
    if model.training:
        raise InvalidArgumentError("model", "fold_batchnorm folds running statistics: call model.eval() first")
    from torch.fx.experimental.optimization import fuse
    return fuse(model, inplace=False)


def _is_relu(gm: fx.GraphModule, node: fx.Node) -> bool:
    if node.op == "call_module":
        return isinstance(gm.get_submodule(node.target), nn.ReLU)
    if node.op == "call_function":
        return node.target in _RELU_FUNCTIONS
    return node.op == "call_method" and node.target in ("relu", "relu_")


def _conv(gm: fx.GraphModule, node: fx.Node) -> Optional[Int8Conv2d]:
    if node.op != "call_module":
        return None
    m = gm.get_submodule(node.target)
    return m if isinstance(m, Int8Conv2d) else None


def _link_reason(prod: Int8Conv2d, cons: Int8Conv2d, relu: bool) -> Optional[str]:
    """Why this (producer, consumer) pair cannot be chained, or None."""
    if cons.act != "static":
        return f"its consumer's activations are {cons.act!r}, not calibrated (static): no scale to quantize to"
    if prod.act not in ("static", "dynamic_per_tensor"):
        return f"act={prod.act!r}: the implicit GEMM takes per-tensor activations"
    if relu and prod.activation not in (None, "relu"):
        return f"it fuses {prod.activation!r} and a ReLU follows"
    if prod.out_channels % 16:
        return f"Co = {prod.out_channels}: an int8 output needs Co % 16 == 0"
    for m in (prod, cons):
        if not m.implicit_gemm and (m.in_channels % 64 or m.linear.act not in ("static", "dynamic_per_tensor")):
            return f"a 1x1 layer with Ci = {m.in_channels} cannot run the implicit GEMM (Ci % 64)"
    return None


def chain_int8(model: nn.Module) -> Tuple[fx.GraphModule, ChainReport]:
    """Chain int8 activations between the model's quantized convolutions (module docstring). Returns the
    GraphModule that runs the chain (`model` itself when it is one, rewritten in place) and the report."""
    gm = _as_graph_module(model)
    report = ChainReport()
    for node in list(gm.graph.nodes):
        prod = _conv(gm, node)
        if prod is None:
            continue
        users = list(node.users)
        nxt, relu = (users[0] if len(users) == 1 else None), None
        if nxt is not None and _is_relu(gm, nxt) and len(nxt.users) == 1:
            relu, nxt = nxt, next(iter(nxt.users))
        cons = None if nxt is None else _conv(gm, nxt)
        src = relu if relu is not None else node
        if cons is None or nxt.args != (src,) or nxt.kwargs or prod is cons:
            report.skipped.append((str(node.target), "its output is not read by one quantized conv alone "
                                                     "(directly or through one ReLU)"))
            continue
        why = _link_reason(prod, cons, relu is not None)
        if why is not None:
            report.skipped.append((str(node.target), why))
            continue
        prod.use_implicit_gemm()
        cons.use_implicit_gemm()
        prod.set_int8_output(cons, "relu" if relu is not None else prod.activation)
        if relu is not None:
            nxt.replace_input_with(relu, node)
            gm.graph.erase_node(relu)
        report.chained.append((str(node.target), str(nxt.target)))
    gm.graph.lint()
    gm.recompile()
    return gm, report


__all__ = ["chain_int8", "fold_batchnorm", "ChainReport"]
