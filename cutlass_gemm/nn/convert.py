"""Whole-model conversion: `quantize_model` swaps `nn.Linear` modules in place (the torchao `quantize_`
habit) and reports what it skipped and why; `calibrate` observes the inputs of every linear layer for the
static schemes.

    report = quantize_model(model, "w8a8-int8", skip=["lm_head"])
    cals = calibrate(model, batches)                      # static schemes: observe first
    report = quantize_model(model, "w8a8-int8-static", calibration=cals)

Schemes: "w8a8-int8" (dynamic per-token symmetric), "w8a8-int8-asym" (dynamic per-token with zero
points), "w8a8-int8-static" (calibrated per-tensor), "w8a8-fp8" (dynamic per-token), "w8a8-fp8-static".
A layer whose shape the GEMM cannot serve (in_features not a multiple of 16, out_features not of 8) stays
a float `nn.Linear` and is listed with the reason; so is one without calibration data under a static
scheme. `skip` takes exact names, fnmatch patterns (`"model.layers.0.*"`) or a callable(name, module).
"""
from __future__ import annotations

import fnmatch
from dataclasses import dataclass, field
from typing import Callable, Dict, Iterable, List, Optional, Sequence, Union

import torch
from torch import nn

from ..errors import InvalidArgumentError
from ..ops.gemm import K_ALIGN, N_ALIGN
from ..quant import Calibrator, make_calibrator
from .linear import Fp8Linear, Int8Linear

SCHEMES = {
    "w8a8-int8": (Int8Linear, "dynamic"),
    "w8a8-int8-asym": (Int8Linear, "dynamic_asym"),
    "w8a8-int8-static": (Int8Linear, "static"),
    "w8a8-fp8": (Fp8Linear, "dynamic"),
    "w8a8-fp8-static": (Fp8Linear, "static"),
}

Skip = Union[Sequence[str], Callable[[str, nn.Module], bool]]


@dataclass
class QuantizationReport:
    """What `quantize_model` did: the layers it replaced and, for the others, why not."""
    scheme: str
    quantized: List[str] = field(default_factory=list)
    skipped: Dict[str, str] = field(default_factory=dict)

    def __str__(self) -> str:
        lines = [f"{self.scheme}: {len(self.quantized)} linear layers quantized, {len(self.skipped)} skipped"]
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
    return [(name, m) for name, m in model.named_modules() if type(m) is nn.Linear]


def _why_not(linear: nn.Linear) -> Optional[str]:
    if linear.in_features % K_ALIGN:
        return f"in_features={linear.in_features} is not a multiple of {K_ALIGN} (the GEMM's 16-byte rows)"
    if linear.out_features % N_ALIGN:
        return f"out_features={linear.out_features} is not a multiple of {N_ALIGN} (the GEMM's 16-byte rows)"
    return None


def calibrate(model: nn.Module, batches: Iterable, *, forward: Optional[Callable] = None,
              calibrator: str = "max", skip: Skip = ()) -> Dict[str, Calibrator]:
    """Run `model` on each batch (under no_grad; `forward(model, batch)` if given, else `model(batch)`) and
    return, for every `nn.Linear` not skipped, a calibrator that observed its inputs."""
    if calibrator not in ("max", "percentile", "mse", "entropy"):
        raise InvalidArgumentError("calibrator", f"must be 'max', 'percentile', 'mse' or 'entropy', got {calibrator!r}")
    skipped = _skipper(skip)
    cals: Dict[str, Calibrator] = {}
    hooks = []
    for name, lin in _linears(model):
        if skipped(name, lin):
            continue
        cal = cals[name] = make_calibrator(calibrator)
        hooks.append(lin.register_forward_pre_hook(lambda _m, args, cal=cal: cal.observe(args[0].detach())))
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
    """Replace every servable `nn.Linear` of `model` (in place) by the scheme's quantized layer."""
    if scheme not in SCHEMES:
        raise InvalidArgumentError("scheme", f"must be one of {sorted(SCHEMES)}, got {scheme!r}")
    cls, act = SCHEMES[scheme]
    static = act.startswith("static")
    if static and not calibration:
        raise InvalidArgumentError("calibration", f"{scheme!r} needs calibrators: calibration=calibrate(model, batches)")
    skipped = _skipper(skip)
    report = QuantizationReport(scheme)
    for name, lin in _linears(model):
        why = "skipped by the user" if skipped(name, lin) else _why_not(lin)
        if why is None and static and name not in calibration:
            why = "no calibration data reached this layer"
        if why is not None:
            report.skipped[name] = why
            continue
        q = cls.from_float(lin, act=act, calibrator=calibration[name] if static else "max")
        parent_name, _, child = name.rpartition(".")
        setattr(model.get_submodule(parent_name) if parent_name else model, child, q)
        report.quantized.append(name)
    return report
