"""Quantizers and zero-point helpers of cutlass_gemm.quant (CPU)."""

import numpy as np
import pytest
import torch

from cutlass_gemm.quant import (
    FP8_E4M3_MAX,
    azp_adj,
    azp_with_adj,
    dequantize,
    dequantize_per_block,
    quantize_activation,
    quantize_per_block,
    quantize_static,
    quantize_weight,
    scale_azp_from_range,
    scale_from_amax,
)
from cutlass_gemm.errors import InvalidArgumentError

FP8 = torch.float8_e4m3fn
# x / scale is a correctly rounded float32 division; with |x / scale| <= 128 its
# rounding adds at most 128 * 2**-24 steps to the ideal half-step error bound.
TOL = 1 + 2e-5


def _gen(seed):
    return torch.Generator().manual_seed(seed)


def _rand(shape, seed=0, dtype=torch.float32, scale=1.0, shift=0.0):
    return (torch.randn(*shape, generator=_gen(seed), dtype=torch.float64) * scale + shift).to(dtype)


def _fp8_bound(x64, scale):
    """Max fp8 e4m3 round-trip error: half an ulp (relative 2**-4) or half the subnormal step."""
    return torch.maximum(x64.abs() * 2.0**-4, scale * 2.0**-10)


# --------------------------------------------------------------------------- rounding / saturation


def test_int8_rounds_half_to_even_static():
    x = torch.tensor([[0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 3.5, -3.5, 0.49, 0.51]])
    q = quantize_static(x, 1.0)
    assert q.a.tolist() == [[0, 2, 2, 0, -2, -2, 4, -4, 0, 1]]
    assert q.a.dtype == torch.int8
    assert q.scale_a.dtype == torch.float32 and q.scale_a.dim() == 0


def test_int8_rounds_half_to_even_dynamic():
    # absmax 127 -> scale exactly 1.0, so x / scale hits exact .5 steps
    x = torch.tensor([[127.0, 0.5, 1.5, 2.5, 126.5, -2.5, -125.5]])
    q = quantize_activation(x, granularity="per_tensor")
    assert float(q.scale_a) == 1.0
    assert q.a.tolist() == [[127, 0, 2, 2, 126, -2, -126]]


def test_int8_saturates_not_wraps():
    x = torch.tensor([[300.0, -300.0, 127.4, 127.6, -128.4, -128.6, 1e30, -1e30, 128.0, -129.0]])
    q = quantize_static(x, 1.0)
    assert q.a.tolist() == [[127, -128, 127, 127, -128, -128, 127, -128, 127, -128]]
    # with a zero point the shifted value saturates too
    qz = quantize_static(torch.tensor([[120.0, -250.0, 0.0]]), 1.0, azp=10)
    assert qz.a.tolist() == [[127, -128, 10]]
    assert qz.azp.dtype == torch.int32


def test_fp8_rounding_and_saturation():
    # e4m3 has spacing 0.125 in [1, 2): 1.0625 is a tie -> even mantissa 1.0; 1.1875 -> 1.25
    x = torch.tensor([[1.0625, 1.1875, -1.0625, 1e4, -1e4, 448.0, 464.0, 1e30]])
    q = quantize_static(x, 1.0, dtype=FP8)
    assert q.a.dtype == FP8
    out = q.a.to(torch.float32)
    assert not torch.isnan(out).any()
    assert out.tolist() == [[1.0, 1.25, -1.0, 448.0, -448.0, 448.0, 448.0, 448.0]]


def test_fp8_dynamic_uses_full_range():
    x = _rand((6, 40), seed=3)
    q = quantize_activation(x, dtype=FP8, granularity="per_token")
    assert q.scale_a.shape == (6, 1)
    assert torch.equal(q.a.to(torch.float32).abs().amax(dim=1), torch.full((6,), FP8_E4M3_MAX))


# --------------------------------------------------------------------------- round trip bounds


@pytest.mark.parametrize("in_dtype", [torch.float32, torch.float16, torch.bfloat16, torch.float64])
@pytest.mark.parametrize("granularity", ["per_tensor", "per_token"])
@pytest.mark.parametrize("symmetric", [True, False])
def test_int8_activation_round_trip(in_dtype, granularity, symmetric):
    x = _rand((33, 70), seed=1, dtype=in_dtype, scale=3.0, shift=0.0 if symmetric else 1.5)
    q = quantize_activation(x, granularity=granularity, symmetric=symmetric)
    m = x.shape[0]
    assert q.a.shape == x.shape and q.a.dtype == torch.int8 and q.a.is_contiguous()
    assert q.scale_a.dtype == torch.float32
    assert q.scale_a.shape == ((m, 1) if granularity == "per_token" else ())
    if symmetric:
        assert q.azp is None
    else:
        assert q.azp.dtype == torch.int32 and q.azp.shape == q.scale_a.shape
    x64 = x.to(torch.float32).to(torch.float64)
    err = (x64 - q.dequantize()).abs()
    bound = q.scale_a.to(torch.float64) / 2 * TOL
    assert torch.all(err <= bound)
    # and the scale is not wastefully large: absmax (symmetric) or range (asymmetric) is used fully
    if symmetric:
        assert q.a.abs().max() == 127


@pytest.mark.parametrize("granularity", ["per_tensor", "per_channel"])
@pytest.mark.parametrize("dtype", [torch.int8, FP8])
def test_weight_round_trip_and_layout(granularity, dtype):
    w = _rand((48, 96), seed=2, scale=0.05)
    qw = quantize_weight(w, dtype=dtype, granularity=granularity)
    n, k = w.shape
    assert qw.w_q.shape == (n, k) and qw.w_q.is_contiguous() and qw.w_q.dtype == dtype
    b = qw.b
    assert b.shape == (k, n) and b.stride() == (1, k)  # column-major (K, N)
    assert qw.scale_b.dtype == torch.float32
    assert qw.scale_b.shape == ((1, n) if granularity == "per_channel" else ())
    w64 = w.to(torch.float64)
    deq = qw.dequantize()
    assert deq.dtype == torch.float64 and deq.shape == (n, k)
    row_scale = qw.scale_b.to(torch.float64).reshape(-1, 1)
    if dtype == torch.int8:
        assert torch.all((w64 - deq).abs() <= row_scale / 2 * TOL)
    else:
        assert torch.all((w64 - deq).abs() <= _fp8_bound(w64, row_scale) * TOL)
    # per-channel: each channel reaches the end of the range
    if granularity == "per_channel":
        top = qw.w_q.to(torch.float32).abs().amax(dim=1)
        assert torch.all(top == (127.0 if dtype == torch.int8 else FP8_E4M3_MAX))


@pytest.mark.parametrize("granularity", ["per_tensor", "per_token"])
def test_fp8_activation_round_trip(granularity):
    x = _rand((20, 64), seed=4, scale=10.0)
    q = quantize_activation(x, dtype=FP8, granularity=granularity)
    x64 = x.to(torch.float64)
    s = q.scale_a.to(torch.float64)
    assert torch.all((x64 - q.dequantize()).abs() <= _fp8_bound(x64, s) * TOL)


def test_output_is_row_major_for_non_contiguous_input():
    x = _rand((64, 32), seed=5).t()  # (32, 64) non-contiguous
    for q in (quantize_activation(x), quantize_activation(x, symmetric=False), quantize_static(x, 0.01)):
        assert q.a.is_contiguous() and q.a.stride() == (64, 1)
    qw = quantize_weight(x)
    assert qw.w_q.is_contiguous() and qw.b.stride() == (1, 64)


# --------------------------------------------------------------------------- symmetric / asymmetric ends


@pytest.mark.parametrize("granularity", ["per_tensor", "per_token"])
def test_symmetric_tensor(granularity):
    y = _rand((16, 25), seed=6).abs() + 0.01
    x = torch.cat([y, -y], dim=1)  # every row symmetric: min == -max
    qs = quantize_activation(x, granularity=granularity, symmetric=True)
    assert qs.azp is None
    assert torch.equal(qs.a[:, 25:], -qs.a[:, :25])  # odd symmetry of the symmetric quantizer
    qa = quantize_activation(x, granularity=granularity, symmetric=False)
    assert torch.all(qa.azp == 0)  # asymmetric quantization of a symmetric tensor: zero zero point
    if granularity == "per_token":
        assert torch.all(qa.a.amax(dim=1) == 127) and torch.all(qa.a.amin(dim=1) == -128)
    else:
        assert qa.a.max() == 127 and qa.a.min() == -128


def test_asymmetric_min_max_hit_integer_ends_many_rows():
    g = _gen(7)
    m = 3000
    lo = -torch.rand(m, 1, generator=g, dtype=torch.float64) * torch.logspace(-3, 3, m).reshape(m, 1)
    hi = torch.rand(m, 1, generator=g, dtype=torch.float64) * torch.logspace(3, -3, m).reshape(m, 1)
    hi[::2] = -lo[::2]  # exactly symmetric rows: ties at +-127.5 steps need the scale nudge
    u = torch.rand(m, 31, generator=g, dtype=torch.float64)
    x = torch.cat([lo, lo + (hi - lo) * u, hi], dim=1).to(torch.float32)
    q = quantize_activation(x, granularity="per_token", symmetric=False)
    assert torch.all(q.a[:, 0] == -128)
    assert torch.all(q.a[:, -1] == 127)
    assert torch.all((q.azp >= -128) & (q.azp <= 127))
    # zero is exactly representable: q == azp dequantizes to 0
    assert torch.all(dequantize(q.azp.to(torch.int8), q.scale_a, q.azp) == 0)
    # the dequantized ends are within half a step of min and max (plus the few
    # float32 ulps by which the scale may have been nudged, ~1e-5 steps each)
    x64 = x.to(torch.float64)
    deq = q.dequantize()
    s = q.scale_a.to(torch.float64)
    assert torch.all((deq[:, 0] - x64[:, 0]).abs() <= s[:, 0] / 2 * (1 + 1e-4))
    assert torch.all((deq[:, -1] - x64[:, -1]).abs() <= s[:, 0] / 2 * (1 + 1e-4))


def test_asymmetric_per_tensor_ends():
    x = _rand((50, 60), seed=8, scale=2.0, shift=0.7)
    q = quantize_activation(x, granularity="per_tensor", symmetric=False)
    assert q.scale_a.dim() == 0 and q.azp.dim() == 0
    assert q.a.flatten()[x.argmin()] == -128
    assert q.a.flatten()[x.argmax()] == 127


def test_asymmetric_range_is_widened_to_contain_zero():
    pos = torch.rand(4, 50, generator=_gen(9)) + 1.0  # all in [1, 2)
    q = quantize_activation(pos, granularity="per_token", symmetric=False)
    assert torch.all(q.azp == -128)  # range [0, max]: 0 -> -128
    assert torch.all(q.a.amax(dim=1) == 127)
    neg = -pos
    q = quantize_activation(neg, granularity="per_token", symmetric=False)
    assert torch.all(q.azp == 127)  # range [min, 0]: 0 -> 127
    assert torch.all(q.a.amin(dim=1) == -128)


def test_all_zero_groups():
    x = torch.zeros(3, 8)
    x[1] = torch.linspace(-1, 1, 8)
    for sym in (True, False):
        q = quantize_activation(x, granularity="per_token", symmetric=sym)
        assert float(q.scale_a[0]) == 1.0 and float(q.scale_a[2]) == 1.0
        assert torch.all(q.a[0] == 0) and torch.all(q.a[2] == 0)
        assert torch.equal(q.dequantize()[0], torch.zeros(8, dtype=torch.float64))
        if not sym:
            assert int(q.azp[0]) == 0


def test_scale_helpers_match_dynamic_quantizers():
    x = _rand((10, 30), seed=10, shift=0.3)
    qs = quantize_activation(x, granularity="per_token")
    assert torch.equal(scale_from_amax(x.abs().amax(dim=1, keepdim=True)), qs.scale_a)
    qa = quantize_activation(x, granularity="per_token", symmetric=False)
    s, z = scale_azp_from_range(x.amin(dim=1, keepdim=True), x.amax(dim=1, keepdim=True))
    assert torch.equal(s, qa.scale_a) and torch.equal(z, qa.azp)
    # static quantization with the same parameters reproduces the dynamic result bit for bit
    assert torch.equal(quantize_static(x, s, z).a, qa.a)
    assert float(scale_from_amax(448.0, FP8)) == 1.0
    assert float(scale_from_amax(0.0)) == 1.0


def test_static_per_token_scales():
    x = _rand((5, 12), seed=11)
    s = torch.tensor([[0.01], [0.02], [0.03], [0.04], [0.05]])
    z = torch.tensor([[0], [1], [-1], [5], [-5]], dtype=torch.int32)
    q = quantize_static(x, s, z)
    expect = torch.clamp(torch.round(x / s) + z, -128, 127).to(torch.int8)
    assert torch.equal(q.a, expect)
    assert q.scale_a.shape == (5, 1) and q.azp.shape == (5, 1)


# --------------------------------------------------------------------------- per-block


def _np_per_block_asym(x, block):
    """The per-block seed's offset form, independently in numpy float64."""
    r, k = x.shape
    xb = x.reshape(r, k // block, block)
    mn, mx = xb.min(axis=2), xb.max(axis=2)
    scale = (mx - mn) / 255.0
    offset = mx - scale * 127.0
    pre = (xb - offset[..., None]) / scale[..., None]
    q = np.clip(np.rint(pre), -128, 127)
    return q.reshape(r, k), scale, offset, pre.reshape(r, k)


def _np_per_block_sym(x, block):
    r, k = x.shape
    xb = x.reshape(r, k // block, block)
    scale = np.abs(xb).max(axis=2) / 127.0
    pre = xb / scale[..., None]
    return np.clip(np.rint(pre), -128, 127).reshape(r, k), scale, pre.reshape(r, k)


def _assert_q_matches(q, q_ref, pre):
    diff = np.abs(q.astype(np.int64) - q_ref.astype(np.int64))
    assert diff.max() <= 1
    # float32 vs float64 arithmetic may only disagree right at a rounding tie
    near_tie = np.abs(np.abs(pre - np.floor(pre)) - 0.5) < 1e-3
    assert np.all(near_tie[diff == 1])
    assert (diff == 0).mean() > 0.999


@pytest.mark.parametrize("block", [16, 32, 128])
def test_per_block_asymmetric_matches_seed_formulas(block):
    x = _rand((24, 256), seed=12, scale=2.0, shift=0.5)
    bq = quantize_per_block(x, block, symmetric=False)
    xn = x.to(torch.float64).numpy()
    q_ref, s_ref, off_ref, pre = _np_per_block_asym(xn, block)
    assert bq.q.shape == (24, 256) and bq.q.dtype == torch.int8
    assert bq.scale.shape == (24, 256 // block) and bq.offset.shape == (24, 256 // block)
    assert bq.scale.dtype == torch.float32 and bq.offset.dtype == torch.float32
    np.testing.assert_allclose(bq.scale.numpy(), s_ref, rtol=2**-23, atol=0)
    np.testing.assert_allclose(bq.offset.numpy(), off_ref, rtol=0, atol=1e-5 * np.abs(off_ref).max() + 1e-6)
    _assert_q_matches(bq.q.numpy(), q_ref, pre)
    # max -> 127 and min -> -128 in every block
    qb = bq.q.reshape(24, -1, block)
    assert torch.all(qb.amax(dim=2) == 127) and torch.all(qb.amin(dim=2) == -128)
    # dequantization: scale * q + offset, within half a step
    deq = bq.dequantize()
    ref = (bq.q.to(torch.float64).reshape(24, -1, block) * torch.from_numpy(s_ref)[..., None]
           + torch.from_numpy(off_ref)[..., None]).reshape(24, 256)
    np.testing.assert_allclose(deq.numpy(), ref.numpy(), rtol=1e-6, atol=1e-6)
    step = bq.scale.to(torch.float64).repeat_interleave(block, dim=1)
    assert torch.all((deq - x.to(torch.float64)).abs() <= step / 2 * 1.001)


@pytest.mark.parametrize("block", [8, 64])
def test_per_block_symmetric_matches_numpy(block):
    w = _rand((40, 192), seed=13, scale=0.1)  # a weight (N, K)
    bq = quantize_per_block(w, block)
    q_ref, s_ref, pre = _np_per_block_sym(w.to(torch.float64).numpy(), block)
    assert bq.offset is None and bq.scale.shape == (40, 192 // block)
    np.testing.assert_allclose(bq.scale.numpy(), s_ref, rtol=2**-23, atol=0)
    _assert_q_matches(bq.q.numpy(), q_ref, pre)
    step = bq.scale.to(torch.float64).repeat_interleave(block, dim=1)
    assert torch.all((bq.dequantize() - w.to(torch.float64)).abs() <= step / 2 * 1.001)


def test_per_block_fp8_and_constant_blocks():
    x = _rand((4, 64), seed=14)
    x[1, :32] = 3.25  # a constant block
    bq = quantize_per_block(x, 32, symmetric=False)
    assert float(bq.scale[1, 0]) == 1.0 and float(bq.offset[1, 0]) == 3.25
    assert torch.all(bq.q[1, :32] == 0)
    assert torch.all(bq.dequantize()[1, :32] == 3.25)
    bf = quantize_per_block(x, 16, dtype=FP8)
    assert bf.q.dtype == FP8 and bf.scale.shape == (4, 4)
    s = bf.scale.to(torch.float64).repeat_interleave(16, dim=1)
    x64 = x.to(torch.float64)
    assert torch.all((bf.dequantize() - x64).abs() <= _fp8_bound(x64, s) * TOL)
    assert torch.equal(dequantize_per_block(bf.q, bf.scale, None, 16), bf.dequantize())


# --------------------------------------------------------------------------- azp helpers


def test_azp_adj_matches_brute_force():
    g = _gen(15)
    w_q = torch.randint(-128, 128, (37, 123), generator=g, dtype=torch.int8)
    w_q[0] = -128
    w_q[1] = 127
    adj = azp_adj(w_q)
    assert adj.dtype == torch.int32 and adj.shape == (1, 37)
    rows = w_q.tolist()
    expect = [sum(r) for r in rows]
    assert adj[0].tolist() == expect
    # "as the op sees it": column sums of b = w_q.t()
    b = w_q.t()
    assert adj[0].tolist() == [sum(b[k, n].item() for k in range(b.shape[0])) for n in range(b.shape[1])]


def test_azp_with_adj_matches_brute_force():
    w_q = torch.randint(-128, 128, (16, 300), generator=_gen(16), dtype=torch.int8)
    adj = azp_adj(w_q)
    for z in (0, 1, -7, 127, -128, torch.tensor(13, dtype=torch.int32), torch.tensor([[-5]], dtype=torch.int32)):
        out = azp_with_adj(z, adj)
        zi = int(z)
        assert out.dtype == torch.int32 and out.shape == (1, 16)
        assert out[0].tolist() == [zi * int(np.sum(r, dtype=np.int64)) for r in w_q.numpy()]


def test_azp_with_adj_overflow_raises():
    adj = torch.tensor([[2**30, -5]], dtype=torch.int32)
    assert azp_with_adj(1, adj)[0].tolist() == [2**30, -5]
    with pytest.raises(InvalidArgumentError) as ei:
        azp_with_adj(2, adj)
    assert ei.value.argument == "azp" and "overflow" in str(ei.value)
    with pytest.raises(InvalidArgumentError):
        azp_with_adj(-3, adj)
    # exactly representable extreme is fine
    assert azp_with_adj(-2, adj)[0, 0] == -(2**31)


def test_dequantize_helper():
    q = torch.tensor([[-128, 0, 127]], dtype=torch.int8)
    out = dequantize(q, torch.tensor(0.5), torch.tensor(2, dtype=torch.int32))
    assert out.dtype == torch.float64
    assert out.tolist() == [[-65.0, -1.0, 62.5]]


# ------------------------------------------------------------------ non-finite input rule (no host sync)
@pytest.mark.parametrize("bad", [float("nan"), float("inf"), float("-inf"), 1e39])
@pytest.mark.parametrize("dtype", [torch.int8, torch.float8_e4m3fn])
def test_nonfinite_rows_get_nan_scale_and_zero_q(bad, dtype):
    x = torch.randn(6, 32, dtype=torch.float64)
    x[2, 5] = bad  # 1e39 is finite in float64 but infinite once converted to float32
    qa = quantize_activation(x, dtype=dtype)
    assert torch.isnan(qa.scale_a[2]).all() and torch.isfinite(torch.cat([qa.scale_a[:2], qa.scale_a[3:]])).all()
    assert (qa.a[2].to(torch.float32) == 0).all()
    good = quantize_activation(torch.cat([x[:2], x[3:]]), dtype=dtype)
    assert torch.equal(torch.cat([qa.a[:2], qa.a[3:]]).view(torch.uint8), good.a.view(torch.uint8))
    pt = quantize_activation(x, dtype=dtype, granularity="per_tensor")
    assert torch.isnan(pt.scale_a) and (pt.a.to(torch.float32) == 0).all()


def test_nonfinite_rows_asymmetric_and_static():
    x = torch.randn(5, 32)
    x[1, 0] = float("nan")
    qa = quantize_activation(x, symmetric=False)
    assert torch.isnan(qa.scale_a[1]).all() and qa.azp[1].item() == 0 and (qa.a[1] == 0).all()
    assert torch.isfinite(qa.scale_a[[0, 2, 3, 4]]).all()
    st = quantize_static(x, 0.05, 3)
    assert (st.a[1] == 0).all() and (st.a[0] != 0).any()
    from cutlass_gemm.quant import static_row_scale
    rs = static_row_scale(x, st.scale_a)
    assert rs.shape == (5, 1) and torch.isnan(rs[1]).all() and (rs[[0, 2, 3, 4]] == torch.tensor(0.05)).all()


def test_check_finite_opt_in_raises():
    x = torch.zeros(2, 16)
    x[0, 0] = float("inf")
    with pytest.raises(InvalidArgumentError):
        quantize_activation(x, check_finite=True)
