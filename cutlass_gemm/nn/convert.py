"""Whole-model conversion: `quantize_model` swaps `nn.Linear` (and `nn.Conv2d`) modules in place (the torchao
`quantize_` habit) and reports what it skipped and why; `calibrate` observes the inputs of every linear layer
(and servable convolution) for the static schemes.

    report = quantize_model(model, "w8a8-int8", skip=["lm_head"])
    cals = calibrate(model, batches)                      # static schemes: observe first
    report = quantize_model(model, "w8a8-int8-static", calibration=cals)

Schemes: "w8a8-int8" (dynamic per-token symmetric), "w8a8-int8-asym" (dynamic per-token with zero
points), "w8a8-int8-static" (calibrated per-tensor), "w8a8-fp8" (dynamic per-token), "w8a8-fp8-static",
"fp8-block128" (`Fp8BlockLinear`: fp8 weight per 128 x 128 block, fp8 activations per token per 128 K;
in_features must be a multiple of 128);
per-block int8 (BLOCK_SCHEMES, `Int8BlockLinear`): "w8a8-int8-block128" (weights per channel and per block of
128 input features, activations per token and per block; a layer whose in_features is not a multiple of 128 is
skipped with the reason, and so is every convolution: no per-block convolution layer yet);
weight-only (WEIGHT_ONLY_SCHEMES, `WeightOnlyLinear`): "w4a16" (int4, group 128, symmetric), "w8a16" (int8
per channel), where a layer the weight-only kernel cannot hold (out_features not a multiple of 32,
in_features not of 64 or of the group) is skipped with the reason.
A layer whose shape the GEMM cannot serve (in_features not a multiple of 16, out_features not of 8) stays
a float `nn.Linear` and is listed with the reason; so is one without calibration data under a static
scheme. `skip` takes exact names, fnmatch patterns (`"model.layers.0.*"`) or a callable(name, module).

Convolutions (`nn.Conv2d`): under w4a16 / w8a16 every groups-1, zero-padded one becomes a `WeightOnlyConv2d` when
Ci % 8 == 0 and Co % 32 == 0 (a 1x1 / stride-1 one whose Ci is a multiple of 64 and of the block on the weight-only
GEMM, every other on its implicit-GEMM form, session 54; blocks along the (Kh, Kw, Ci) reduction). Under the w8a8-int8
schemes a 1x1 / stride-1 / padding-0 / dilation-1 one becomes an `Int8Conv2d` on the GEMM (static ones with
calibration, like the linear layers), and under w8a8-int8 and w8a8-int8-static every other groups-1 conv (3x3,
strided, padded, dilated) an `Int8Conv2d` on the int8 implicit GEMM (per-tensor activations) when Ci % 64 == 0 and
Co % 8 == 0. What stays float, listed with the reason: k x k convs under w8a8-int8-asym (per-pixel zero points do not
factor out of a k x k sum), grouped convs, other padding modes, channel counts the kernels cannot hold (a ResNet's 7x7
stem, Ci = 3), and every convolution under the fp8 and per-block schemes (no such convolution layer yet).
"""
from __future__ import annotations

import fnmatch
from dataclasses import dataclass, field
from typing import Callable, Dict, Iterable, List, Optional, Sequence, Union

import torch
from torch import nn

from ..errors import InvalidArgumentError
from ..quant import Calibrator, make_calibrator
from .blockwise import Fp8BlockLinear, blockwise_unservable_reason
from .block_linear import Int8BlockLinear, block_unservable_reason
from .conv import Int8Conv2d, WeightOnlyConv2d, conv_unservable_reason
from .linear import Fp8Linear, Int8Linear, unservable_reason
from .weight_only import WeightOnlyLinear, weight_only_unservable_reason

SCHEMES = {
    "w8a8-int8": (Int8Linear, "dynamic"),
    "w8a8-int8-asym": (Int8Linear, "dynamic_asym"),
    "w8a8-int8-static": (Int8Linear, "static"),
    "w8a8-fp8": (Fp8Linear, "dynamic"),
    "w8a8-fp8-static": (Fp8Linear, "static"),
    # fp8 weight per 128 x 128 block, fp8 activations per token per 128 K (DeepSeek-V3 style; SM90 only)
    "fp8-block128": (Fp8BlockLinear, "dynamic"),
}

#: Weight-only schemes (`WeightOnlyLinear.from_float` arguments): int4 group 128 symmetric; int8 per channel.
WEIGHT_ONLY_SCHEMES = {
    "w4a16": {"bits": 4, "group_size": 128, "zero_point": False},
    "w8a16": {"bits": 8, "group_size": None, "zero_point": False},
}

#: Per-block int8 schemes (`Int8BlockLinear.from_float` block size).
BLOCK_SCHEMES = {"w8a8-int8-block128": 128}

Skip = Union[Sequence[str], Callable[[str, nn.Module], bool]]


@dataclass
class QuantizationReport:
    """What `quantize_model` did: the layers it replaced and, for the others, why not."""
    scheme: str
    quantized: List[str] = field(default_factory=list)
    skipped: Dict[str, str] = field(default_factory=dict)

    def __str__(self) -> str:
        lines = [f"{self.scheme}: {len(self.quantized)} layers quantized, {len(self.skipped)} skipped"]
        lines += [f"  skipped {name}: {why}" for name, why in sorted(self.skipped.items())]
        return "\n".join(lines)


def _skipper(skip: Skip) -> Callable[[str, nn.Module], bool]:
    if callable(skip):
        return skip
    if isinstance(skip, str):
        skip = [skip]
    patterns = list(skip)
    return lambda name, _module: any(name == p or fnmatch.fnmatchcase(name, p) for p in patterns)


def _linears(model: nn.Module):
    """(name, module) of every plain `nn.Linear` and `nn.Conv2d`, under every name it has (a module shared by
    two parents is listed twice, so both references get replaced). Subclasses are left alone on purpose:
    some (e.g. MultiheadAttention's out_proj) are read through `.weight` by their parent, not called."""
    return [(name, m) for name, m in model.named_modules(remove_duplicate=False) if type(m) in (nn.Linear, nn.Conv2d)]


def _reason(mod: nn.Module, scheme: str, wo: Optional[dict]) -> Optional[str]:
    """Why `mod` (an nn.Linear or nn.Conv2d) stays float under `scheme`, or None."""
    if scheme in BLOCK_SCHEMES:
        if type(mod) is nn.Conv2d:
            return f"no {scheme} convolution layer yet (Int8Conv2d and WeightOnlyConv2d serve the int8 and weight-only schemes)"
        return block_unservable_reason(mod.in_features, mod.out_features, BLOCK_SCHEMES[scheme])
    if type(mod) is nn.Conv2d:
        if wo is None and SCHEMES[scheme][0] is not Int8Linear:
            return (f"no {scheme} convolution layer yet (Int8Conv2d and WeightOnlyConv2d serve the int8 and "
                    f"weight-only schemes)")
        return conv_unservable_reason(mod, "int8" if wo is None else "weight_only",
                                      None if wo is None else wo["group_size"], None if wo else SCHEMES[scheme][1])
    if wo is None and SCHEMES[scheme][0] is Fp8BlockLinear:
        return blockwise_unservable_reason(mod.in_features, mod.out_features)
    if wo is None:
        return unservable_reason(mod.in_features, mod.out_features)
    return weight_only_unservable_reason(mod.in_features, mod.out_features, wo["group_size"])


def _quantized(mod: nn.Module, cls, act: str, wo: Optional[dict], calibrator) -> nn.Module:
    if cls is Int8BlockLinear:
        return Int8BlockLinear.from_float(mod, block_size=wo["block_size"])
    if type(mod) is nn.Conv2d:
        return (Int8Conv2d.from_float(mod, act=act, calibrator=calibrator) if wo is None
                else WeightOnlyConv2d.from_float(mod, wo["bits"], wo["group_size"], wo["zero_point"]))
    if cls is Fp8BlockLinear:
        return cls.from_float(mod)
    return cls.from_float(mod, act=act, calibrator=calibrator) if wo is None else WeightOnlyLinear.from_float(mod, **wo)


def _observer(cal: Calibrator):
    def hook(_module, args, kwargs):
        x = args[0] if args else kwargs.get("input")
        cal.observe(x.detach())
    return hook


def calibrate(model: nn.Module, batches: Iterable, *, forward: Optional[Callable] = None,
              calibrator: str = "max", skip: Skip = (), dtype: torch.dtype = torch.int8) -> Dict[str, Calibrator]:
    """Run `model` on each batch (under no_grad; `forward(model, batch)` if given, else `model(batch)`)
    with a forward pre-hook on every `nn.Linear` not skipped, and return {layer name: calibrator that
    observed its inputs} for the layers the batches reached (hooks are removed even on error).
    `calibrator`: "max", "percentile", "mse" or "entropy"; `dtype` is the format "mse" optimises its
    clipping for (torch.float8_e4m3fn for the fp8 schemes; the other methods ignore it)."""
    if calibrator not in ("max", "percentile", "mse", "entropy"):
        raise InvalidArgumentError("calibrator", f"must be 'max', 'percentile', 'mse' or 'entropy', got {calibrator!r}")
    if dtype not in (torch.int8, torch.float8_e4m3fn):
        raise InvalidArgumentError("dtype", f"must be torch.int8 or torch.float8_e4m3fn, got {dtype!r}")
    skipped = _skipper(skip)
    cals: Dict[str, Calibrator] = {}
    seen = set()
    hooks = []
    for name, lin in _linears(model):
        if id(lin) in seen:
            continue  # a shared module is observed once, under its first name (quantize_model's rule too)
        seen.add(id(lin))
        if skipped(name, lin) or (type(lin) is nn.Conv2d and conv_unservable_reason(lin) is not None):
            continue  # a conv that cannot be quantized needs no calibrator (a 1x1 one observes its NCHW input)
        cal = cals[name] = make_calibrator("mse", dtype=dtype) if calibrator == "mse" else make_calibrator(calibrator)
        hooks.append(lin.register_forward_pre_hook(_observer(cal), with_kwargs=True))
    try:
        with torch.no_grad():
            for batch in batches:
                forward(model, batch) if forward is not None else model(batch)
    finally:
        for h in hooks:
            h.remove()
    return {name: cal for name, cal in cals.items() if cal.num_observed}


def quantize_model(model: nn.Module, scheme: str, *, skip: Skip = (),
                   calibration: Optional[Dict[str, Calibrator]] = None) -> QuantizationReport:
    """Replace every servable `nn.Linear` (and `nn.Conv2d`, see the module docstring) of `model` in place
    by the scheme's quantized layer (quantized on the device its weight is on) and report what was replaced
    and, for the rest, why not. Static schemes take `calibration`, the dict `calibrate` returns; a layer
    missing from it stays float. A model on the meta device (built under `torch.device("meta")`) becomes the
    empty quantized skeleton a quantized checkpoint loads into (`model.load_state_dict(state, assign=True)`):
    nothing is quantized and the static schemes need no calibration.

    Raises InvalidArgumentError: unknown `scheme`; static scheme without `calibration`."""
    known = sorted(SCHEMES) + sorted(WEIGHT_ONLY_SCHEMES) + sorted(BLOCK_SCHEMES)
    if scheme not in known:
        raise InvalidArgumentError("scheme", f"must be one of {known}, got {scheme!r}")
    if not isinstance(model, nn.Module):
        raise InvalidArgumentError("model", f"must be a torch.nn.Module, got {type(model).__name__}")
    wo = WEIGHT_ONLY_SCHEMES.get(scheme)
    if scheme in BLOCK_SCHEMES:
        wo, (cls, act) = {"block_size": BLOCK_SCHEMES[scheme]}, (Int8BlockLinear, "dynamic_block")
    else:
        cls, act = SCHEMES[scheme] if wo is None else (WeightOnlyLinear, "weight_only")
    static = act.startswith("static")
    # a model on the meta device becomes the skeleton of a quantized checkpoint: its input scales come from there
    meta = all(p.is_meta for p in model.parameters()) and any(True for _ in model.parameters())
    if static and not calibration and not meta:
        raise InvalidArgumentError("calibration", f"{scheme!r} needs calibrators: calibration=calibrate(model, batches)")
    calibration = calibration or {}
    skipped = _skipper(skip)
    report = QuantizationReport(scheme)
    first: Dict[int, tuple] = {}  # id(module) -> (first name, its quantized layer or None)
    for name, lin in _linears(model):
        parent_name, _, child = name.rpartition(".")
        parent = model.get_submodule(parent_name) if parent_name else model
        if id(lin) in first:  # another name of a shared module: the first name decided for both
            owner, q = first[id(lin)]
            if q is None:
                report.skipped[name] = f"shares its module with {owner}, which was not quantized"
            else:
                setattr(parent, child, q)
                report.quantized.append(name)
            continue
        why = "skipped by the user" if skipped(name, lin) else _reason(lin, scheme, wo)
        if why is None and static and name not in calibration and not lin.weight.is_meta:
            why = "no calibration data reached this layer"
        q = None
        if why is None:
            q = _quantized(lin, cls, act, wo, calibration.get(name, "max"))
            setattr(parent, child, q)
            report.quantized.append(name)
        else:
            report.skipped[name] = why
        first[id(lin)] = (name, q)
    return report
