"""From a float linear layer to everything ``scaled_mm`` / ``scaled_mm_azp`` need.

``y = x @ weight.T + bias`` becomes, with quantized ``a`` / ``b``::

    out = scale_a * scale_b * (a @ b - azp * azp_adj) + bias

(``azp`` terms only for asymmetric int8 activations; for a static per-tensor
``azp`` the product ``azp * azp_adj`` is precomputed as ``azp_with_adj``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Optional, Tuple, Union

import torch

from cutlass_gemm.errors import InvalidArgumentError

from ._checks import check_bool, check_choice, check_float_tensor, check_quant_dtype
from .azp import azp_adj as _azp_adj
from .azp import azp_with_adj as _azp_with_adj
from .calibrate import Calibrator, MaxCalibrator, make_calibrator
from .quantize import (
    quantize_activation,
    quantize_static,
    quantize_weight,
    scale_azp_from_range,
    scale_from_amax,
)

__all__ = ["QuantizedLinear", "quantize_linear"]


@dataclass(frozen=True)
class QuantizedLinear:
    """A quantized linear layer, ready for the scaled GEMM ops.

    Attributes:
        b: ``(K, N)`` column-major view of ``weight_q`` (the ops' ``b``).
        weight_q: ``(N, K)`` contiguous int8 / float8_e4m3fn weight.
        scale_b: float32, ``(1, N)`` (per-channel) or 0-dim (per-tensor).
        bias: the layer's bias ``(N,)`` as given (cast it to the op's
            ``out_dtype`` if the op requires), or ``None``.
        dtype: ``torch.int8`` or ``torch.float8_e4m3fn``.
        act_symmetric: activations quantized symmetrically (no zero point).
        act_static: activations use the static per-tensor ``scale_a`` (/``azp``)
            computed from calibration data; otherwise dynamic per-token.
        scale_a: static float32 0-dim activation scale, else ``None``.
        azp: static int32 0-dim activation zero point (asymmetric), else ``None``.
        azp_adj: int32 ``(1, N)`` column sums of ``b`` (asymmetric), else ``None``.
        azp_with_adj: int32 ``(1, N)`` ``azp * azp_adj`` (static asymmetric), else ``None``.
    """

    b: torch.Tensor
    weight_q: torch.Tensor
    scale_b: torch.Tensor
    bias: Optional[torch.Tensor]
    dtype: torch.dtype
    act_symmetric: bool
    act_static: bool
    scale_a: Optional[torch.Tensor] = None
    azp: Optional[torch.Tensor] = None
    azp_adj: Optional[torch.Tensor] = None
    azp_with_adj: Optional[torch.Tensor] = None

    @property
    def in_features(self) -> int:
        return self.weight_q.shape[1]

    @property
    def out_features(self) -> int:
        return self.weight_q.shape[0]

    def quantize_input(self, x: torch.Tensor) -> Union[Tuple[torch.Tensor, torch.Tensor], Tuple[torch.Tensor, torch.Tensor, torch.Tensor]]:
        """Quantize an ``(M, K)`` activation as this layer's op expects.

        Returns ``(a, scale_a)`` for symmetric activations and
        ``(a, scale_a, azp)`` for asymmetric ones.  Static layers use the
        calibrated per-tensor ``scale_a``/``azp`` (values outside the
        calibrated range saturate); dynamic layers quantize per token.
        """
        check_float_tensor(x, "x", ndim=2)
        if x.shape[1] != self.in_features:
            raise InvalidArgumentError("x", f"expected {self.in_features} columns (K), got shape {tuple(x.shape)}")
        if self.act_static:
            qa = quantize_static(x, self.scale_a, self.azp, dtype=self.dtype)
        else:
            qa = quantize_activation(x, dtype=self.dtype, granularity="per_token", symmetric=self.act_symmetric)
        if self.act_symmetric:
            return qa.a, qa.scale_a
        return qa.a, qa.scale_a, qa.azp

    def reference(self, x: torch.Tensor) -> torch.Tensor:
        """float64 ``(M, N)`` result the fused kernel should produce for ``x``:
        ``scale_a * scale_b * (a @ b - azp * azp_adj) + bias`` (exact integer
        accumulation; computed on ``x``'s device)."""
        q = self.quantize_input(x)
        a, scale_a = q[0], q[1]
        dev = a.device
        acc = a.to(torch.float64) @ self.b.to(dev).to(torch.float64)  # exact: integer / fp8 products
        if not self.act_symmetric:
            if self.azp_with_adj is not None:
                acc = acc - self.azp_with_adj.to(dev, torch.float64)
            else:
                acc = acc - q[2].to(torch.float64) * self.azp_adj.to(dev, torch.float64)
        out = scale_a.to(torch.float64) * self.scale_b.to(dev, torch.float64) * acc
        if self.bias is not None:
            out = out + self.bias.to(dev, torch.float64)
        return out


def quantize_linear(
    weight: torch.Tensor,
    bias: Optional[torch.Tensor] = None,
    calibration_data: Optional[Iterable[torch.Tensor]] = None,
    *,
    dtype: torch.dtype = torch.int8,
    act_symmetric: bool = True,
    act_scales: str = "dynamic",
    weight_granularity: str = "per_channel",
    calibrator: Union[str, Calibrator] = "max",
) -> QuantizedLinear:
    """Quantize a float linear layer ``y = x @ weight.T + bias``.

    Args:
        weight: ``(N, K)`` float weight (``nn.Linear.weight``).
        bias: ``(N,)`` float bias or ``None``.
        calibration_data: iterable of activation batches ``(..., K)``; required
            for ``act_scales="static"`` (ignored for dynamic).
        dtype: ``torch.int8`` or ``torch.float8_e4m3fn`` (weights and activations).
        act_symmetric: ``False`` for asymmetric int8 activations (zero points).
        act_scales: ``"static"`` (one per-tensor ``scale_a``/``azp`` from
            calibration) or ``"dynamic"`` (per-token, computed per input).
        weight_granularity: ``"per_channel"`` or ``"per_tensor"`` (symmetric).
        calibrator: ``"max"``, ``"percentile"``, ``"mse"``, ``"entropy"`` or a
            :class:`Calibrator` instance (used as is, e.g. pre-configured).
            Symmetric activations use its ``compute_amax()``, asymmetric ones
            its ``compute_range()``.

    Raises:
        InvalidArgumentError: bad weight/bias/options, missing or mismatched
            calibration data, asymmetric fp8.
    """
    check_float_tensor(weight, "weight", ndim=2)
    n, k = weight.shape
    if bias is not None:
        check_float_tensor(bias, "bias", ndim=1)
        if bias.shape[0] != n:
            raise InvalidArgumentError("bias", f"expected shape ({n},), got {tuple(bias.shape)}")
    check_quant_dtype(dtype)
    check_bool(act_symmetric, "act_symmetric")
    if not act_symmetric and dtype != torch.int8:
        raise InvalidArgumentError("act_symmetric", "asymmetric activations are only supported for torch.int8")
    check_choice(act_scales, "act_scales", ("static", "dynamic"))
    check_choice(weight_granularity, "weight_granularity", ("per_channel", "per_tensor"))
    static = act_scales == "static"

    cal: Optional[Calibrator] = None
    if static:
        if calibration_data is None:
            raise InvalidArgumentError("calibration_data", "required for act_scales='static'")
        if isinstance(calibrator, Calibrator):
            cal = calibrator
        elif isinstance(calibrator, str):
            if calibrator not in ("max", "percentile", "mse", "entropy"):
                raise InvalidArgumentError(
                    "calibrator", f"expected 'max', 'percentile', 'mse', 'entropy' or a Calibrator, got {calibrator!r}"
                )
            cal = make_calibrator("mse", dtype=dtype) if calibrator == "mse" else make_calibrator(calibrator)
        else:
            raise InvalidArgumentError("calibrator", f"expected a str or a Calibrator, got {type(calibrator).__name__}")
        if isinstance(cal, MaxCalibrator) and cal.axis is not None:
            raise InvalidArgumentError("calibrator", "static activation scales are per-tensor; use a per-tensor calibrator")

    qw = quantize_weight(weight, dtype=dtype, granularity=weight_granularity)
    scale_a = azp = azp_with = None
    adj = _azp_adj(qw.w_q) if not act_symmetric else None

    if static:
        seen = 0
        for i, batch in enumerate(calibration_data):
            if not isinstance(batch, torch.Tensor) or batch.dim() < 1 or batch.shape[-1] != k:
                shape = tuple(batch.shape) if isinstance(batch, torch.Tensor) else type(batch).__name__
                raise InvalidArgumentError("calibration_data", f"batch {i}: expected a tensor (..., {k}), got {shape}")
            try:
                cal.observe(batch)
            except InvalidArgumentError as e:
                raise InvalidArgumentError("calibration_data", f"batch {i}: {e}") from e
            seen += 1
        if seen == 0 and cal.num_observed == 0:
            raise InvalidArgumentError("calibration_data", "no batches given")
        if act_symmetric:
            scale_a = scale_from_amax(cal.compute_amax(), dtype).to(weight.device)
        else:
            lo, hi = cal.compute_range()
            s, z = scale_azp_from_range(lo, hi)
            scale_a, azp = s.to(weight.device), z.to(weight.device)
            azp_with = _azp_with_adj(azp, adj)

    return QuantizedLinear(
        b=qw.b,
        weight_q=qw.w_q,
        scale_b=qw.scale_b,
        bias=None if bias is None else bias.detach(),
        dtype=dtype,
        act_symmetric=act_symmetric,
        act_static=static,
        scale_a=scale_a,
        azp=azp,
        azp_adj=adj,
        azp_with_adj=azp_with,
    )
