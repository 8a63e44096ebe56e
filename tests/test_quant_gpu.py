"""CPU and CUDA give bit-identical quantization results (the GPU test is skipped without a GPU)."""

import dataclasses

import pytest
import torch

from cutlass_gemm.quant import (
    EntropyCalibrator,
    MaxCalibrator,
    MSECalibrator,
    PercentileCalibrator,
    azp_adj,
    azp_with_adj,
    quantize_activation,
    quantize_linear,
    quantize_per_block,
    quantize_static,
    quantize_weight,
    scale_azp_from_range,
    scale_from_amax,
)

FP8 = torch.float8_e4m3fn


def _inputs():
    g = torch.Generator().manual_seed(1234)
    m, k = 64, 256
    row_scale = torch.logspace(-3, 3, m).reshape(m, 1)
    x = torch.randn(m, k, generator=g) * row_scale + torch.randn(m, 1, generator=g) * row_scale * 0.3
    x[::4, k // 2 :] = -x[::4, : k // 2]  # exactly symmetric rows (tie-prone asymmetric scales)
    x[1, :] = 0.0  # an all-zero row
    x[2, :5] = torch.tensor([0.5, 1.5, 2.5, -2.5, 127.0])  # exact half steps with scale 1
    x[2, 5:] = 0.25
    return x


def _same(a, b):
    """Identical dtype, shape and bits (fp8 compared through its bit pattern)."""
    if a is None or b is None:
        return a is None and b is None
    if isinstance(a, tuple):
        return len(a) == len(b) and all(_same(u, v) for u, v in zip(a, b))
    if dataclasses.is_dataclass(a):
        return all(_same(getattr(a, f.name), getattr(b, f.name)) for f in dataclasses.fields(a))
    if not isinstance(a, torch.Tensor):
        return a == b
    b = b.cpu()
    a = a.cpu()
    if a.dtype != b.dtype or a.shape != b.shape:
        return False
    if a.dtype == FP8:
        return torch.equal(a.view(torch.uint8), b.view(torch.uint8))
    return torch.equal(a, b)


def _all_results(x, device):
    """Every quantizer / helper / calibrator on ``x`` moved to ``device``; a dict of results."""
    xd = x.to(device)
    out = {}
    for in_dtype in (torch.float32, torch.float16, torch.bfloat16):
        xi = xd.to(in_dtype)
        for dtype in (torch.int8, FP8):
            for gran in ("per_tensor", "per_token"):
                for sym in ((True, False) if dtype == torch.int8 else (True,)):
                    out[f"act-{in_dtype}-{dtype}-{gran}-{sym}"] = quantize_activation(
                        xi, dtype=dtype, granularity=gran, symmetric=sym
                    )
            for gran in ("per_tensor", "per_channel"):
                out[f"weight-{in_dtype}-{dtype}-{gran}"] = quantize_weight(xi, dtype=dtype, granularity=gran)
            for block in (16, 64):
                out[f"block-{in_dtype}-{dtype}-{block}"] = quantize_per_block(xi, block, dtype=dtype)
            out[f"static-{in_dtype}-{dtype}"] = quantize_static(xi, 0.037, dtype=dtype)
        for block in (32, 128):
            out[f"block-asym-{in_dtype}-{block}"] = quantize_per_block(xi, block, symmetric=False)
        m = xi.shape[0]
        scale = torch.linspace(0.001, 3.0, m).reshape(m, 1).to(device)
        azp = torch.arange(m, dtype=torch.int32).reshape(m, 1).to(device) - 32
        out[f"static-per-token-{in_dtype}"] = quantize_static(xi, scale, azp)
    out["scale_from_amax"] = scale_from_amax(xd.abs().amax(dim=1))
    out["scale_from_amax_fp8"] = scale_from_amax(xd.abs().amax(dim=1), FP8)
    out["scale_azp_from_range"] = scale_azp_from_range(xd.amin(dim=1), xd.amax(dim=1))
    w_q = quantize_weight(xd).w_q
    out["azp_adj"] = azp_adj(w_q)
    out["azp_with_adj"] = azp_with_adj(-77, out["azp_adj"])
    for name, make in (
        ("max", MaxCalibrator),
        ("max-channel", lambda: MaxCalibrator(axis=1)),
        ("percentile", PercentileCalibrator),
        ("mse", MSECalibrator),
        ("entropy", EntropyCalibrator),
    ):
        cal = make()
        for chunk in xd.split(16):
            cal.observe(chunk)
        out[f"cal-{name}"] = (cal.compute_amax(), *cal.compute_range())
        if hasattr(cal, "histogram"):
            out[f"hist-{name}"] = cal.histogram()
    w = xd[:48, :128] * 0.01
    calib = [xd[i : i + 8, 128:] for i in range(0, 64, 8)]
    for dtype, sym, scales in (
        (torch.int8, True, "dynamic"),
        (torch.int8, False, "dynamic"),
        (torch.int8, False, "static"),
        (FP8, True, "static"),
    ):
        ql = quantize_linear(w, w[:, 0], calib, dtype=dtype, act_symmetric=sym, act_scales=scales)
        out[f"linear-{dtype}-{sym}-{scales}"] = ql
        out[f"linear-ref-{dtype}-{sym}-{scales}"] = ql.reference(xd[:, 64:192])
    return out


def _assert_same_results(r0, r1):
    assert r0.keys() == r1.keys()
    bad = [k for k in r0 if not _same(r0[k], r1[k])]
    assert not bad, f"results differ: {bad}"


def test_results_do_not_depend_on_input_memory_layout():
    x = _inputs()
    x_t = x.t().contiguous().t()  # same values, column-major storage
    assert not x_t.is_contiguous()
    _assert_same_results(_all_results(x, "cpu"), _all_results(x_t, "cpu"))


@pytest.mark.gpu
def test_cpu_and_cuda_are_bit_identical():
    x = _inputs()
    cpu = _all_results(x, "cpu")
    cuda = _all_results(x, "cuda")
    for v in cuda.values():  # really computed on the GPU
        t = v.a if hasattr(v, "a") else v.q if hasattr(v, "q") else v.w_q if hasattr(v, "w_q") else None
        if t is not None:
            assert t.is_cuda
    _assert_same_results(cpu, cuda)
