"""Calibrators of cutlass_gemm.quant (CPU)."""

import math

import numpy as np
import pytest
import torch

from cutlass_gemm.quant import (
    EntropyCalibrator,
    MaxCalibrator,
    MSECalibrator,
    NotCalibratedError,
    PercentileCalibrator,
    make_calibrator,
    quantize_static,
    scale_from_amax,
)


def _gen(seed):
    return torch.Generator().manual_seed(seed)


@pytest.fixture(scope="module")
def outlier_data():
    """1e5 standard normal samples plus a handful of huge (35-45 sigma) outliers."""
    bulk = torch.randn(100_000, generator=_gen(0))
    outliers = torch.tensor([40.0, -35.0, 38.0, -42.0, 45.0])
    data = torch.cat([bulk, outliers])
    data = data[torch.randperm(data.numel(), generator=_gen(1))]
    return bulk, data


def _bulk_mse(bulk, amax):
    """Reconstruction MSE of the bulk (outliers excluded) with int8 per-tensor scale amax/127."""
    q = quantize_static(bulk.reshape(1, -1), scale_from_amax(amax))
    return float(((q.dequantize().reshape(-1) - bulk.to(torch.float64)) ** 2).mean())


def _calibrate(cal, data, nbatches=10):
    for i, chunk in enumerate(data.tensor_split(nbatches)):
        cal.observe(chunk.reshape(1, -1, 1) if i % 2 else chunk)  # any shape is accepted
    return cal


# --------------------------------------------------------------------------- max


def test_max_calibrator_per_tensor_and_per_channel():
    batches = [torch.randn(7, 5, generator=_gen(i)) * (i + 1) for i in range(4)]
    allx = torch.cat(batches)
    cal = MaxCalibrator()
    chan = MaxCalibrator(axis=-1)
    for b in batches:
        cal.observe(b)
        chan.observe(b)
    assert float(cal.compute_amax()) == float(allx.abs().max())
    lo, hi = cal.compute_range()
    assert float(lo) == float(allx.min()) and float(hi) == float(allx.max())
    assert cal.compute_amax().dtype == torch.float64
    assert torch.equal(chan.compute_amax(), allx.abs().amax(dim=0).to(torch.float64))
    lo, hi = chan.compute_range()
    assert torch.equal(lo, allx.amin(dim=0).double()) and torch.equal(hi, allx.amax(dim=0).double())
    assert cal.num_observed == allx.numel()


# --------------------------------------------------------------------------- outliers


@pytest.mark.parametrize(
    "make",
    [
        lambda: PercentileCalibrator(99.99),
        lambda: MSECalibrator(),
        lambda: EntropyCalibrator(),
    ],
    ids=["percentile", "mse", "entropy"],
)
def test_clipping_calibrators_beat_max_on_outliers(outlier_data, make):
    bulk, data = outlier_data
    amax_max = float(_calibrate(MaxCalibrator(), data).compute_amax())
    assert amax_max == 45.0
    amax = float(_calibrate(make(), data).compute_amax())
    assert 0 < amax < amax_max
    # lower reconstruction error on the bulk of the data (outliers excluded)
    assert _bulk_mse(bulk, amax) < _bulk_mse(bulk, amax_max)


def test_percentile_and_entropy_clip_near_the_bulk(outlier_data):
    _, data = outlier_data
    pct = float(_calibrate(PercentileCalibrator(99.99), data).compute_amax())
    ent = float(_calibrate(EntropyCalibrator(), data).compute_amax())
    # 99.99 % of |N(0,1)| lies below ~3.9; bins are 64/2048 wide
    assert 3.5 < pct < 5.0
    assert 3.0 < ent < 6.0


def test_no_clipping_without_outliers():
    x = torch.rand(50_000, generator=_gen(2)) * 2 - 1  # uniform [-1, 1)
    amax = float(x.abs().max())
    assert float(_calibrate(PercentileCalibrator(100.0), x).compute_amax()) == amax
    # for a uniform distribution the MSE-optimal int8 threshold is (nearly) the absmax
    assert float(_calibrate(MSECalibrator(), x).compute_amax()) > 0.97 * amax
    pct99 = float(_calibrate(PercentileCalibrator(99.0), x).compute_amax())
    assert abs(pct99 - 0.99) < 2 * 1.0 / 2048 + 1e-3


def test_mse_calibrator_fp8_target():
    x = torch.randn(20_000, generator=_gen(3))
    amax = float(_calibrate(MSECalibrator(dtype=torch.float8_e4m3fn), x).compute_amax())
    assert 0 < amax <= float(x.abs().max())


# --------------------------------------------------------------------------- histogram policy / determinism


def test_histogram_matches_independent_binning_and_power_of_two_range():
    x = torch.randn(30_000, generator=_gen(4)) * 3
    cal = _calibrate(PercentileCalibrator(num_bins=1000), x)
    counts, edges = cal.histogram()
    amax = float(x.abs().max())
    r = float(edges[-1])
    assert r == 2.0 ** math.ceil(math.log2(amax)) and r > amax and r / 2 <= amax
    a = x.abs().double().numpy()
    idx = np.floor(a / r * 1000).astype(np.int64)
    assert np.array_equal(counts.numpy(), np.bincount(idx, minlength=1000))
    assert counts.dtype == torch.int64 and int(counts.sum()) == x.numel()


@pytest.mark.parametrize("num_bins", [2048, 999])
def test_histogram_independent_of_batching_and_order(num_bins):
    g = _gen(5)
    parts = [torch.randn(4000, generator=g) * s for s in (0.1, 1.0, 7.0, 30.0)]  # range grows 3 times
    whole = PercentileCalibrator(num_bins=num_bins)
    whole.observe(torch.cat(parts))
    growing = PercentileCalibrator(num_bins=num_bins)
    for p in parts:
        growing.observe(p)
    shrinking = PercentileCalibrator(num_bins=num_bins)
    for p in reversed(parts):
        shrinking.observe(p)
    for other in (growing, shrinking):
        c0, e0 = whole.histogram()
        c1, e1 = other.histogram()
        assert torch.equal(c0, c1) and torch.equal(e0, e1)
        assert torch.equal(whole.compute_amax(), other.compute_amax())


@pytest.mark.parametrize("method", ["max", "percentile", "mse", "entropy"])
def test_calibrators_are_deterministic(outlier_data, method):
    _, data = outlier_data
    data = data[:40_000]
    r1 = _calibrate(make_calibrator(method), data, nbatches=4)
    r2 = _calibrate(make_calibrator(method), data.clone(), nbatches=4)
    assert torch.equal(r1.compute_amax(), r2.compute_amax())
    lo1, hi1 = r1.compute_range()
    lo2, hi2 = r2.compute_range()
    assert torch.equal(lo1, lo2) and torch.equal(hi1, hi2)
    # repeated computation on the same calibrator is stable too
    assert torch.equal(r1.compute_amax(), r1.compute_amax())


def test_histogram_compute_range_is_clipped_observed_range(outlier_data):
    _, data = outlier_data
    cal = _calibrate(PercentileCalibrator(99.99), data)
    amax = cal.compute_amax()
    lo, hi = cal.compute_range()
    assert float(lo) == -float(amax) and float(hi) == float(amax)  # both tails clipped
    pos = torch.rand(1000, generator=_gen(6)) + 0.5  # [0.5, 1.5): no clipping below
    cal = _calibrate(PercentileCalibrator(100.0), pos)
    lo, hi = cal.compute_range()
    assert float(lo) == float(pos.min()) and float(hi) == float(pos.max())


def test_zeros_are_counted():
    cal = PercentileCalibrator(num_bins=16)
    cal.observe(torch.zeros(10))
    assert float(cal.compute_amax()) == 0.0
    cal.observe(torch.tensor([0.0, 1.0, -3.0]))
    counts, edges = cal.histogram()
    assert int(counts[0]) == 11 and int(counts.sum()) == 13 and float(edges[-1]) == 4.0
    assert float(cal.compute_amax()) == 3.0


def test_compute_before_observe_raises():
    for cal in (MaxCalibrator(), PercentileCalibrator(), MSECalibrator(), EntropyCalibrator()):
        with pytest.raises(NotCalibratedError):
            cal.compute_amax()


# --------------------------------------------------------------------------- thresholds vs naive re-implementations


def _heavy_tailed(n, seed):
    g = _gen(seed)
    u = torch.rand(n, generator=g, dtype=torch.float64).clamp_min(1e-12)
    sign = torch.where(torch.rand(n, generator=g) < 0.5, -1.0, 1.0).to(torch.float64)
    return (sign * (-torch.log(u)) ** 1.5).to(torch.float32)  # Weibull-like heavy tail


@pytest.mark.parametrize("p", [50.0, 99.0, 99.9, 100.0])
def test_percentile_threshold_matches_sorted_data(p):
    x = _heavy_tailed(5000, 7)
    nb = 300
    cal = _calibrate(PercentileCalibrator(p, num_bins=nb), x, nbatches=3)
    _, edges = cal.histogram()
    r, w = float(edges[-1]), float(edges[-1]) / nb
    a = np.sort(x.abs().double().numpy())
    v = a[math.ceil(p / 100 * a.size) - 1]  # the value at the p-th percentile rank
    expect = min((math.floor(v / r * nb) + 1) * w, a[-1])
    assert float(cal.compute_amax()) == expect


def _naive_mse_threshold(counts, w, amax):
    centers = (np.arange(counts.size) + 0.5) * w
    cands = [k * w for k in range(1, counts.size + 1) if k * w < amax] + [amax]
    best = None
    for t in cands:
        s = t / 127.0
        err = 0.0
        for c, n in zip(centers, counts):
            if n:
                err += n * (c - min(np.rint(c / s), 127.0) * s) ** 2
        if best is None or err < best[0]:
            best = (err, t)
    return best[1]


def _naive_entropy_threshold(counts, w, amax, nq):
    last = int(np.nonzero(counts)[0][-1])
    best = None
    for i in range(nq, last + 2):
        p = counts[:i].astype(np.float64)
        p[i - 1] += counts[i:].sum()
        q = np.zeros(i)
        for j in range(nq):
            lo, hi = j * i // nq, (j + 1) * i // nq
            nonzero = [t for t in range(lo, hi) if p[t] != 0]
            for t in nonzero:
                q[t] = counts[lo:hi].sum() / len(nonzero)
        if q.sum() == 0:
            continue
        pn, qn = p / p.sum(), q / q.sum()
        if np.any((pn > 0) & (qn == 0)):
            continue
        kl = sum(pn[t] * math.log(pn[t] / qn[t]) for t in range(i) if pn[t] > 0)
        if best is None or kl < best[0]:
            best = (kl, i)
    return min(best[1] * w, amax)


def test_mse_threshold_matches_naive_search():
    x = torch.cat([torch.randn(4000, generator=_gen(8)), torch.tensor([9.0, -11.0])])
    nb = 160
    cal = _calibrate(MSECalibrator(num_bins=nb), x, nbatches=2)
    counts, edges = cal.histogram()
    w = float(edges[-1]) / nb
    expect = _naive_mse_threshold(counts.numpy(), w, float(x.abs().max()))
    assert float(cal.compute_amax()) == pytest.approx(expect, rel=1e-12)


@pytest.mark.parametrize("seed", [9, 10])
def test_entropy_threshold_matches_naive_kl(seed):
    x = _heavy_tailed(6000, seed)
    nb, nq = 256, 24
    cal = _calibrate(EntropyCalibrator(num_bins=nb, num_quant_bins=nq), x, nbatches=3)
    counts, edges = cal.histogram()
    w = float(edges[-1]) / nb
    expect = _naive_entropy_threshold(counts.numpy(), w, float(x.abs().max()), nq)
    got = float(cal.compute_amax())
    assert got == pytest.approx(expect, rel=1e-12)
    assert got < float(x.abs().max())
