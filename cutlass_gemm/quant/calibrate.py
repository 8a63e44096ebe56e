"""Calibrators: observe a stream of activation batches, then produce a range.

Usage::

    cal = EntropyCalibrator()
    for x in batches:
        cal.observe(x)
    amax = cal.compute_amax()            # float64 0-dim tensor (per-tensor)
    lo, hi = cal.compute_range()         # for asymmetric quantization
    scale = scale_from_amax(amax)        # or scale_azp_from_range(lo, hi)

Methods (after FasterTransformer / TensorRT int8 calibration):

* :class:`MaxCalibrator` -- running min / max / absmax, per-tensor or
  per-channel (``axis``).
* :class:`PercentileCalibrator` -- the ``percentile``-th percentile of ``|x|``.
* :class:`MSECalibrator` -- the clipping threshold minimizing the quantization
  mean squared error over the histogram of ``|x|``.
* :class:`EntropyCalibrator` -- the clipping threshold minimizing the KL
  divergence between the histogram of ``|x|`` and its quantized version
  (TensorRT's entropy calibration; 2048 bins, 128 quantized bins).

Histogram policy (percentile / MSE / entropy)
---------------------------------------------
The histogram of ``|x|`` has ``num_bins`` bins (default 2048) of equal width
over ``[0, R)``, where ``R`` is the smallest power of two *strictly greater*
than the running absmax.  When a later batch exceeds ``R``, ``R`` is doubled
(as often as needed) and adjacent bin pairs are merged, which is exact because
the new edges are old edges.  Bin indices are ``floor((|x| / R) * num_bins)``
computed in float64 (``|x| / R`` is exact, a power-of-two scaling), and counts
are int64.  Hence the histogram -- and every result -- is exactly the one you
get by observing all the data at once: it does not depend on how the data is
split into batches, on the order of the batches, or on the device (CPU/CUDA).
The price is resolution: the data's absmax lies in the upper half of the
range, so it spans between ``num_bins / 2`` and ``num_bins`` bins.

Results are float64 tensors on the CPU, clipped to the observed absmax (a
calibrator never returns a range wider than the data it saw).  Exact zeros
are counted in bin 0.  The histogram calibrators are per-tensor only.
"""

from __future__ import annotations

import math
import numbers
from abc import ABC, abstractmethod
from typing import Optional, Tuple

import numpy as np
import torch

from cutlass_gemm.errors import CutlassGemmError, InvalidArgumentError

from ._checks import check_float_tensor, check_positive_int, check_quant_dtype

__all__ = [
    "NotCalibratedError",
    "Calibrator",
    "MaxCalibrator",
    "HistogramCalibrator",
    "PercentileCalibrator",
    "MSECalibrator",
    "EntropyCalibrator",
    "make_calibrator",
    "DEFAULT_NUM_BINS",
    "DEFAULT_NUM_QUANT_BINS",
]

DEFAULT_NUM_BINS = 2048
DEFAULT_NUM_QUANT_BINS = 128


class NotCalibratedError(CutlassGemmError, RuntimeError):
    """A calibrator was asked for a result before it observed any data."""


class Calibrator(ABC):
    """Base class: ``observe(x)`` any number of times, then ``compute_amax()`` / ``compute_range()``."""

    def __init__(self) -> None:
        self._min: Optional[torch.Tensor] = None  # float64, CPU
        self._max: Optional[torch.Tensor] = None
        self._num_observed = 0

    @property
    def num_observed(self) -> int:
        """Number of elements observed so far."""
        return self._num_observed

    def observe(self, x: torch.Tensor) -> None:
        """Record a batch (any shape, floating point, finite, non-empty; CPU or CUDA)."""
        check_float_tensor(x, "x")
        self._observe(x.detach())
        self._num_observed += x.numel()

    @abstractmethod
    def _observe(self, x: torch.Tensor) -> None: ...

    @abstractmethod
    def compute_amax(self) -> torch.Tensor:
        """The calibrated absolute maximum (clipping threshold), float64 on the CPU."""

    def compute_range(self) -> Tuple[torch.Tensor, torch.Tensor]:
        """``(lo, hi)`` for asymmetric quantization: the observed ``[min, max]``
        clipped to ``[-amax, amax]`` with this calibrator's ``amax``."""
        amax = self.compute_amax()
        return torch.maximum(self._min, -amax), torch.minimum(self._max, amax)

    def _require_data(self) -> None:
        if self._num_observed == 0:
            raise NotCalibratedError(f"{type(self).__name__}: observe() at least one batch first")

    def _update_min_max(self, mn: torch.Tensor, mx: torch.Tensor) -> None:
        mn = mn.to(device="cpu", dtype=torch.float64)
        mx = mx.to(device="cpu", dtype=torch.float64)
        self._min = mn if self._min is None else torch.minimum(self._min, mn)
        self._max = mx if self._max is None else torch.maximum(self._max, mx)


class MaxCalibrator(Calibrator):
    """Running min / max / absmax.

    Args:
        axis: ``None`` for per-tensor results (0-dim), or the channel axis of
            the observed batches (e.g. ``-1`` for the K columns of ``(M, K)``
            activations) for per-channel results of shape ``(C,)``.  Every
            batch must have the same number of channels along ``axis``.
    """

    def __init__(self, axis: Optional[int] = None) -> None:
        super().__init__()
        if axis is not None and (isinstance(axis, bool) or not isinstance(axis, numbers.Integral)):
            raise InvalidArgumentError("axis", f"expected None or an int, got {type(axis).__name__}")
        self.axis = None if axis is None else int(axis)

    def _observe(self, x: torch.Tensor) -> None:
        if self.axis is None:
            self._update_min_max(x.amin(), x.amax())
            return
        if not -x.dim() <= self.axis < x.dim():
            raise InvalidArgumentError("x", f"has no axis {self.axis} (shape {tuple(x.shape)})")
        c = x.shape[self.axis]
        if self._max is not None and self._max.numel() != c:
            raise InvalidArgumentError("x", f"expected {self._max.numel()} channels along axis {self.axis}, got {c}")
        flat = x.movedim(self.axis, -1).reshape(-1, c)
        self._update_min_max(flat.amin(dim=0), flat.amax(dim=0))

    def compute_amax(self) -> torch.Tensor:
        self._require_data()
        return torch.maximum(self._max.abs(), self._min.abs())

    def compute_range(self) -> Tuple[torch.Tensor, torch.Tensor]:
        self._require_data()
        return self._min.clone(), self._max.clone()


class HistogramCalibrator(Calibrator):
    """Base class keeping an exact, batch-split independent histogram of ``|x|``.

    See the module docstring for the binning policy.

    Args:
        num_bins: number of histogram bins (>= 2; default 2048).
    """

    def __init__(self, num_bins: int = DEFAULT_NUM_BINS) -> None:
        super().__init__()
        self.num_bins = check_positive_int(num_bins, "num_bins", minimum=2)
        self._counts: Optional[torch.Tensor] = None  # int64 (num_bins,), CPU
        self._range: Optional[float] = None  # power of two, > running absmax
        self._pending_zeros = 0  # zeros seen before any non-zero value

    def _observe(self, x: torch.Tensor) -> None:
        a = x.abs().to(torch.float64).reshape(-1)
        self._update_min_max(x.amin(), x.amax())
        amax = float(a.max())
        if amax == 0.0:
            if self._counts is None:
                self._pending_zeros += a.numel()
            else:
                self._counts[0] += a.numel()
            return
        needed = math.ldexp(1.0, math.frexp(amax)[1])  # smallest power of two > amax
        if self._counts is None:
            self._range = needed
            self._counts = torch.zeros(self.num_bins, dtype=torch.int64)
            self._counts[0] += self._pending_zeros
            self._pending_zeros = 0
        while self._range < needed:
            self._double_range()
        u = a * (1.0 / self._range)  # exact: power-of-two scaling
        idx = torch.floor(u * float(self.num_bins)).to(torch.int64).clamp_(0, self.num_bins - 1)
        self._counts += torch.bincount(idx, minlength=self.num_bins).cpu()

    def _double_range(self) -> None:
        c = self._counts
        if c.numel() % 2:
            c = torch.cat([c, c.new_zeros(1)])
        merged = c.reshape(-1, 2).sum(dim=1)
        out = torch.zeros(self.num_bins, dtype=torch.int64)
        out[: merged.numel()] = merged
        self._counts = out
        self._range *= 2.0

    def histogram(self) -> Tuple[torch.Tensor, torch.Tensor]:
        """``(counts, edges)``: int64 ``(num_bins,)`` and float64 ``(num_bins + 1,)`` (CPU copies)."""
        self._require_data()
        if self._counts is None:  # only zeros seen
            counts = torch.zeros(self.num_bins, dtype=torch.int64)
            counts[0] = self._pending_zeros
            return counts, torch.linspace(0.0, 1.0, self.num_bins + 1, dtype=torch.float64)
        edges = torch.arange(self.num_bins + 1, dtype=torch.float64) * (self._range / self.num_bins)
        return self._counts.clone(), edges

    def _observed_amax(self) -> float:
        return float(torch.maximum(self._max.abs(), self._min.abs()))

    def compute_amax(self) -> torch.Tensor:
        self._require_data()
        amax = self._observed_amax()
        if amax == 0.0:
            return torch.tensor(0.0, dtype=torch.float64)
        t = self._threshold(self._counts.to(torch.float64).numpy(), self._range / self.num_bins, amax)
        return torch.tensor(min(float(t), amax), dtype=torch.float64)

    @abstractmethod
    def _threshold(self, counts: np.ndarray, width: float, amax: float) -> float:
        """Clipping threshold from the histogram (bin ``i`` is ``[i*width, (i+1)*width)``)."""


class PercentileCalibrator(HistogramCalibrator):
    """Threshold = upper edge of the first bin where the CDF of ``|x|`` reaches ``percentile`` %.

    Args:
        percentile: in ``(0, 100]`` (default 99.99); 100 gives the absmax.
        num_bins: histogram bins (default 2048).
    """

    def __init__(self, percentile: float = 99.99, num_bins: int = DEFAULT_NUM_BINS) -> None:
        if isinstance(percentile, bool) or not isinstance(percentile, numbers.Real):
            raise InvalidArgumentError("percentile", f"expected a number, got {type(percentile).__name__}")
        if not (0.0 < float(percentile) <= 100.0):
            raise InvalidArgumentError("percentile", f"must be in (0, 100], got {percentile}")
        super().__init__(num_bins)
        self.percentile = float(percentile)

    def _threshold(self, counts: np.ndarray, width: float, amax: float) -> float:
        cdf = np.cumsum(counts)
        target = cdf[-1] * (self.percentile / 100.0)
        i = int(np.searchsorted(cdf, target, side="left"))
        i = min(i, counts.size - 1)
        return (i + 1) * width


class MSECalibrator(HistogramCalibrator):
    """Threshold minimizing the symmetric quantization MSE over the histogram.

    Every bin edge below the observed absmax, plus the absmax itself, is a
    candidate threshold ``t``; the values of each bin are represented by its
    center ``c`` and quantized as the target dtype would with
    ``scale = t / qmax``: int8 ``min(round(c / scale), 127) * scale``, fp8
    ``fp8(min(c / scale, 448)) * scale``.  The candidate with the smallest
    count-weighted squared error (clipping error included) wins; ties go to
    the smaller threshold.  Note the criterion is the total squared error
    over *all* observed values, so it only clips rare outliers when that
    lowers the total: a handful of values far beyond ``127 * sigma`` is kept.

    Args:
        num_bins: histogram bins (default 2048).
        dtype: target quantized dtype, ``torch.int8`` (default) or ``torch.float8_e4m3fn``.
    """

    _CHUNK = 256

    def __init__(self, num_bins: int = DEFAULT_NUM_BINS, dtype: torch.dtype = torch.int8) -> None:
        super().__init__(num_bins)
        self.dtype = check_quant_dtype(dtype)

    def _threshold(self, counts: np.ndarray, width: float, amax: float) -> float:
        nz = np.nonzero(counts)[0]
        centers = torch.from_numpy((nz + 0.5) * width)
        weights = torch.from_numpy(counts[nz])
        edges = np.arange(1, counts.size + 1, dtype=np.float64) * width
        candidates = torch.from_numpy(np.append(edges[edges < amax], amax))
        qmax = 127.0 if self.dtype == torch.int8 else 448.0
        best_err, best_t = math.inf, amax
        for start in range(0, candidates.numel(), self._CHUNK):
            t = candidates[start : start + self._CHUNK].unsqueeze(1)
            scale = t / qmax
            v = centers.unsqueeze(0) / scale
            if self.dtype == torch.int8:
                deq = torch.clamp(torch.round(v), max=127.0) * scale
            else:
                deq = torch.clamp(v, max=448.0).to(torch.float8_e4m3fn).to(torch.float64) * scale
            err = ((centers.unsqueeze(0) - deq) ** 2 * weights.unsqueeze(0)).sum(dim=1)
            i = int(torch.argmin(err))
            if float(err[i]) < best_err:
                best_err, best_t = float(err[i]), float(t[i, 0])
        return best_t


class EntropyCalibrator(HistogramCalibrator):
    """Threshold minimizing KL(P || Q), TensorRT style.

    For each candidate ``i`` from ``num_quant_bins`` to the last non-empty bin
    (+1): ``P`` is bins ``[0, i)`` with all counts beyond folded into bin
    ``i - 1``; ``Q`` is bins ``[0, i)`` (without the outliers) merged into
    ``num_quant_bins`` chunks (chunk ``j`` covers bins
    ``[floor(j*i/nq), floor((j+1)*i/nq))``) and expanded back, each chunk's
    total spread evenly over the chunk's bins where ``P`` is non-zero.  Both
    are normalized; ``KL = sum_{P>0} P log(P / Q)``, infinite if ``Q`` is 0
    where ``P`` is not (no smoothing).  The threshold is ``i * bin_width``
    for the minimizing ``i`` (first one on ties).  If all data fits in fewer
    than ``num_quant_bins`` bins, nothing needs clipping and the absmax is
    returned.

    Args:
        num_bins: histogram bins (default 2048).
        num_quant_bins: quantized levels of the magnitude (default 128 for int8).
    """

    def __init__(self, num_bins: int = DEFAULT_NUM_BINS, num_quant_bins: int = DEFAULT_NUM_QUANT_BINS) -> None:
        super().__init__(num_bins)
        self.num_quant_bins = check_positive_int(num_quant_bins, "num_quant_bins", minimum=2)
        if self.num_bins < self.num_quant_bins:
            raise InvalidArgumentError(
                "num_bins", f"must be >= num_quant_bins={self.num_quant_bins}, got {self.num_bins}"
            )

    def _threshold(self, counts: np.ndarray, width: float, amax: float) -> float:
        nq = self.num_quant_bins
        last = int(np.nonzero(counts)[0][-1])
        if last + 1 <= nq:
            return amax
        tail = np.concatenate([np.cumsum(counts[::-1])[::-1], [0.0]])  # tail[i] = sum(counts[i:])
        j = np.arange(nq + 1)
        best_kl, best_i = math.inf, None
        for i in range(nq, last + 2):
            hist = counts[:i]
            p = hist.copy()
            p[i - 1] += tail[i]
            bounds = (j * i) // nq
            lengths = np.diff(bounds)
            chunk_sum = np.add.reduceat(hist, bounds[:-1])
            mask = p != 0
            chunk_nnz = np.add.reduceat(mask.astype(np.float64), bounds[:-1])
            per_bin = np.divide(chunk_sum, chunk_nnz, out=np.zeros_like(chunk_sum), where=chunk_nnz > 0)
            q = np.repeat(per_bin, lengths) * mask
            p_sum, q_sum = p.sum(), q.sum()
            if q_sum == 0:
                continue
            pn, qn = p[mask] / p_sum, q[mask] / q_sum
            if np.any(qn == 0):
                continue  # infinite divergence
            kl = float(np.sum(pn * np.log(pn / qn)))
            if kl < best_kl:
                best_kl, best_i = kl, i
        if best_i is None:
            return amax
        return best_i * width


_METHODS = {
    "max": MaxCalibrator,
    "percentile": PercentileCalibrator,
    "mse": MSECalibrator,
    "entropy": EntropyCalibrator,
}


def make_calibrator(method: str, **kwargs) -> Calibrator:
    """A fresh calibrator by name: ``"max"``, ``"percentile"``, ``"mse"`` or ``"entropy"``.

    ``kwargs`` go to the class (e.g. ``percentile=99.9``, ``num_bins=4096``).
    """
    if not isinstance(method, str) or method not in _METHODS:
        raise InvalidArgumentError("method", f"expected one of {sorted(_METHODS)}, got {method!r}")
    return _METHODS[method](**kwargs)
