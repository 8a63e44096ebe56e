"""quantize_linear / QuantizedLinear of cutlass_gemm.quant (CPU)."""

import numpy as np
import pytest
import torch

from cutlass_gemm.errors import InvalidArgumentError
from cutlass_gemm.quant import (
    PercentileCalibrator,
    QuantizedLinear,
    azp_adj,
    quantize_linear,
)

FP8 = torch.float8_e4m3fn
M, K, N = 24, 96, 40


def _gen(seed):
    return torch.Generator().manual_seed(seed)


@pytest.fixture(scope="module")
def layer():
    g = _gen(0)
    w = torch.randn(N, K, generator=g) * 0.05
    w[3] *= 10  # one loud output channel, so per-channel scales differ a lot
    b = torch.randn(N, generator=g)
    calib = [torch.randn(8, K, generator=g) + 0.3 for _ in range(4)]
    x = torch.cat(calib[:3])  # inside the calibrated range
    return w, b, calib, x


CONFIGS = [
    dict(dtype=torch.int8, act_symmetric=True, act_scales="dynamic", weight_granularity="per_channel"),
    dict(dtype=torch.int8, act_symmetric=True, act_scales="static", weight_granularity="per_channel"),
    dict(dtype=torch.int8, act_symmetric=True, act_scales="dynamic", weight_granularity="per_tensor"),
    dict(dtype=torch.int8, act_symmetric=False, act_scales="dynamic", weight_granularity="per_channel"),
    dict(dtype=torch.int8, act_symmetric=False, act_scales="static", weight_granularity="per_channel"),
    dict(dtype=FP8, act_symmetric=True, act_scales="dynamic", weight_granularity="per_channel"),
    dict(dtype=FP8, act_symmetric=True, act_scales="static", weight_granularity="per_tensor"),
]


def _ids(c):
    return "-".join(
        [
            "int8" if c["dtype"] == torch.int8 else "fp8",
            "sym" if c["act_symmetric"] else "asym",
            c["act_scales"],
            c["weight_granularity"],
        ]
    )


def _elementwise_error_bound(cfg, x64, xhat, w64, scale_a, scale_b):
    """|x - x_hat| and |w - w_hat| bounds from the scales alone, propagated through the matmul."""
    if cfg["dtype"] == torch.int8:
        dx = scale_a / 2
        dw = scale_b / 2  # (1, N) or 0-dim
        dw = dw.reshape(-1, 1) if dw.dim() else dw
        return dx * w64.abs().sum(dim=1) + (xhat.abs().sum(dim=1, keepdim=True) * dw.reshape(1, -1))
    dx = torch.maximum(x64.abs() * 2.0**-4, scale_a * 2.0**-10)
    sb = scale_b.reshape(-1, 1) if scale_b.dim() else scale_b
    dw = torch.maximum(w64.abs() * 2.0**-4, sb * 2.0**-10)
    return dx @ w64.abs().t() + xhat.abs() @ dw.t()


@pytest.mark.parametrize("with_bias", [True, False])
@pytest.mark.parametrize("cfg", CONFIGS, ids=_ids)
def test_reference_matches_float_layer(layer, cfg, with_bias):
    w, b, calib, x = layer
    bias = b if with_bias else None
    ql = quantize_linear(w, bias, calib if cfg["act_scales"] == "static" else None, **cfg)
    assert isinstance(ql, QuantizedLinear)
    ref = ql.reference(x)
    assert ref.dtype == torch.float64 and ref.shape == (x.shape[0], N)

    x64, w64 = x.double(), w.double()
    exact = x64 @ w64.t() + (b.double() if with_bias else 0.0)
    q = ql.quantize_input(x)
    scale_a = q[1].double()
    scale_b = ql.scale_b.double()
    xhat = scale_a * (q[0].double() - (q[2].double() if len(q) == 3 else 0.0))
    bound = _elementwise_error_bound(cfg, x64, xhat, w64, scale_a, scale_b)
    assert torch.all((ref - exact).abs() <= bound * 1.001 + 1e-9)
    # and overall the quantized layer is close to the float layer
    rel = float((ref - exact).norm() / (exact - (b.double() if with_bias else 0.0)).norm())
    if cfg["dtype"] == FP8:
        limit = 0.06
    else:  # per-tensor weight scales suffer from the loud channel 3
        limit = 0.02 if cfg["weight_granularity"] == "per_channel" else 0.08
    assert rel < limit


@pytest.mark.parametrize("cfg", CONFIGS, ids=_ids)
def test_reference_is_the_epilogue_formula(layer, cfg):
    """reference == scale_a * scale_b * (a @ b - azp * azp_adj) + bias, recomputed with numpy integers."""
    w, b, calib, x = layer
    ql = quantize_linear(w, b, calib, **cfg)
    q = ql.quantize_input(x)
    a, scale_a = q[0], q[1]
    if cfg["dtype"] == torch.int8:
        acc = a.numpy().astype(np.int64) @ ql.b.numpy().astype(np.int64)
        if not cfg["act_symmetric"]:
            azp = q[2].numpy().astype(np.int64)
            adj = ql.weight_q.numpy().astype(np.int64).sum(axis=1)[None, :]
            acc = acc - azp * adj
        acc = acc.astype(np.float64)
    else:
        acc = a.to(torch.float64).numpy() @ ql.b.to(torch.float64).numpy()
    expect = scale_a.double().numpy() * ql.scale_b.double().numpy() * acc + b.double().numpy()
    np.testing.assert_allclose(ql.reference(x).numpy(), expect, rtol=1e-12, atol=1e-12)


def test_fields_as_the_ops_take_them(layer):
    w, b, calib, x = layer
    ql = quantize_linear(w, b, calib, act_symmetric=False, act_scales="static")
    assert ql.weight_q.shape == (N, K) and ql.weight_q.is_contiguous()
    assert ql.b.shape == (K, N) and ql.b.stride() == (1, K) and ql.b.dtype == torch.int8
    assert ql.scale_b.shape == (1, N) and ql.scale_b.dtype == torch.float32
    assert ql.scale_a.dim() == 0 and ql.scale_a.dtype == torch.float32
    assert ql.azp.dim() == 0 and ql.azp.dtype == torch.int32
    assert torch.equal(ql.azp_adj, azp_adj(ql.weight_q))
    assert torch.equal(ql.azp_with_adj, (ql.azp.to(torch.int64) * ql.azp_adj.to(torch.int64)).to(torch.int32))
    a, scale_a, azp = ql.quantize_input(x)
    assert torch.equal(scale_a, ql.scale_a) and torch.equal(azp, ql.azp)
    assert a.shape == x.shape and a.is_contiguous()
    # dynamic asymmetric: per-token azp, azp_adj only
    qd = quantize_linear(w, b, act_symmetric=False)
    a, scale_a, azp = qd.quantize_input(x)
    assert scale_a.shape == (x.shape[0], 1) and azp.shape == (x.shape[0], 1)
    assert qd.azp_with_adj is None and qd.scale_a is None and qd.azp_adj.shape == (1, N)
    # symmetric: two outputs, no azp terms
    qs = quantize_linear(w, None)
    assert len(qs.quantize_input(x)) == 2 and qs.azp_adj is None and qs.bias is None


def test_static_scales_saturate_out_of_range_inputs(layer):
    w, b, calib, _ = layer
    ql = quantize_linear(w, b, calib, act_scales="static")
    big = torch.full((2, K), 1e3)
    a, scale_a = ql.quantize_input(big)
    assert torch.all(a == 127) and torch.equal(scale_a, ql.scale_a)


def test_static_with_a_clipping_calibrator(layer):
    w, b, calib, x = layer
    q_max = quantize_linear(w, b, calib, act_scales="static", calibrator="max")
    q_pct = quantize_linear(w, b, calib, act_scales="static", calibrator=PercentileCalibrator(99.0, num_bins=512))
    assert float(q_pct.scale_a) < float(q_max.scale_a)
    q_mse = quantize_linear(w, b, calib, act_scales="static", calibrator="mse", dtype=FP8)
    assert q_mse.scale_a.dim() == 0 and float(q_mse.scale_a) > 0


def test_linear_errors(layer):
    w, b, calib, x = layer
    cases = [
        (lambda: quantize_linear(w.to(torch.int32)), "weight"),
        (lambda: quantize_linear(w[0]), "weight"),
        (lambda: quantize_linear(w, b[:-1]), "bias"),
        (lambda: quantize_linear(w, act_scales="static"), "calibration_data"),
        (lambda: quantize_linear(w, None, [], act_scales="static"), "calibration_data"),
        (lambda: quantize_linear(w, None, [torch.randn(4, K + 1)], act_scales="static"), "calibration_data"),
        (lambda: quantize_linear(w, None, [torch.full((4, K), float("nan"))], act_scales="static"), "calibration_data"),
        (lambda: quantize_linear(w, dtype=FP8, act_symmetric=False), "act_symmetric"),
        (lambda: quantize_linear(w, act_scales="per_token"), "act_scales"),
        (lambda: quantize_linear(w, weight_granularity="per_block"), "weight_granularity"),
        (lambda: quantize_linear(w, None, calib, act_scales="static", calibrator="kl"), "calibrator"),
        (lambda: quantize_linear(w).quantize_input(torch.randn(3, K + 1)), "x"),
        (lambda: quantize_linear(w).quantize_input(torch.randn(3, K).to(torch.int8)), "x"),
    ]
    for fn, name in cases:
        with pytest.raises(InvalidArgumentError) as ei:
            fn()
        assert ei.value.argument == name
        assert str(ei.value).startswith(name + ":")
