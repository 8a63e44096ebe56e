"""Weight-only formats (CPU): the reference quantizer against float64, and GPTQ / AWQ checkpoints written
here by independent packers (their documented bit layouts) and read back by the importers."""
import pytest
import torch

from cutlass_gemm.errors import InvalidArgumentError
from cutlass_gemm.quant.weight_only import (AWQ_PACK_ORDER, WeightOnlyQuant, from_awq, from_gptq,
                                            quantize_weight_only)


def _w(n, k, seed=0, dtype=torch.bfloat16):
    g = torch.Generator().manual_seed(seed)
    w = torch.randn(n, k, generator=g) * torch.logspace(-2, 1, n).unsqueeze(1)
    w[0, : k // 2] = 0.0  # zero groups
    return w.to(dtype)


@pytest.mark.parametrize("bits", [4, 8])
@pytest.mark.parametrize("group", [None, 32, 64, 128])
@pytest.mark.parametrize("zero_point", [False, True])
@pytest.mark.parametrize("scale_dtype", [torch.float16, torch.bfloat16])
def test_quantize_weight_only_within_half_a_step(bits, group, zero_point, scale_dtype):
    n, k = 24, 256
    w = _w(n, k, seed=bits)
    wq = quantize_weight_only(w, bits, group, zero_point=zero_point, scale_dtype=scale_dtype)
    g = group or k
    assert wq.q.shape == (n, k) and wq.scale.shape == (n, k // g) and wq.scale.dtype == scale_dtype
    if zero_point:
        assert wq.q.min() >= 0 and wq.q.max() <= 2 ** bits - 1 and wq.zero.shape == wq.scale.shape
    else:
        assert wq.zero is None and wq.q.min() >= -(2 ** (bits - 1)) and wq.q.max() <= 2 ** (bits - 1) - 1
    step = wq.scale.double().repeat_interleave(g, dim=1)
    err = (wq.dequantize() - w.double()).abs() / step
    # symmetric: half a step everywhere (the stored scale is rounded up, so nothing is clamped); a zero
    # point is itself rounded, which can push a group's extreme one step over the range: one step there
    assert err.max() <= (1.0 if zero_point else 0.5) + 1e-9, err.max()
    assert err.mean() < 0.26 and (err > 0.5 + 1e-9).float().mean() < 0.01
    assert torch.equal(wq.dequantize()[0, : k // 2], torch.zeros(k // 2, dtype=torch.float64))


def test_quantize_weight_only_errors_name_the_argument():
    w = _w(8, 96)
    for kwargs, arg in [({"bits": 3}, "bits"), ({"group_size": 64}, "group_size"), ({"group_size": 48}, "group_size"),
                        ({"group_size": 32, "scale_dtype": torch.float32}, "scale_dtype")]:
        with pytest.raises(InvalidArgumentError) as e:
            quantize_weight_only(w, **kwargs)
        assert e.value.argument == arg
    bad = w.clone()
    bad[3, 5] = float("nan")
    with pytest.raises(InvalidArgumentError, match="weight"):
        quantize_weight_only(bad, group_size=32)


# ------------------------------------------------------------------------------------ GPTQ
def _pack_rows(vals, bits):  # (K, N) unsigned -> (K*bits/32, N) int32, value k in bits (k % per)*bits of row k // per
    per = 32 // bits
    k, n = vals.shape
    out = torch.zeros(k // per, n, dtype=torch.int64)
    for i in range(per):
        out |= vals[i::per].to(torch.int64) << (bits * i)
    return torch.where(out >= 2 ** 31, out - 2 ** 32, out).to(torch.int32)


def _pack_cols(vals, bits, order=None):  # (R, N) unsigned -> (R, N*bits/32) int32 along N
    per = 32 // bits
    order = order or tuple(range(per))
    r, n = vals.shape
    out = torch.zeros(r, n // per, dtype=torch.int64)
    for slot in range(per):
        out |= vals[:, order[slot]::per].to(torch.int64) << (bits * slot)
    return torch.where(out >= 2 ** 31, out - 2 ** 32, out).to(torch.int32)


def _gptq_case(k, n, group, bits, seed):
    g = torch.Generator().manual_seed(seed)
    top = 2 ** bits
    q = torch.randint(0, top, (k, n), generator=g)
    zeros = torch.randint(1, top, (k // group, n), generator=g)  # effective zero points
    scales = (torch.rand(k // group, n, generator=g) * 0.02 + 0.001).half()
    return q, zeros, scales


def _expected(q_kn, zeros_gn, scales_gn, group_of_k):
    w = (q_kn.double() - zeros_gn.double()[group_of_k]) * scales_gn.double()[group_of_k]
    return w.t()  # (N, K)


@pytest.mark.parametrize("bits", [4, 8])
@pytest.mark.parametrize("fmt", ["gptq", "gptq_v2"])
def test_gptq_import_matches_its_formula(bits, fmt):
    k, n, group = 256, 64, 64
    q, zeros, scales = _gptq_case(k, n, group, bits, seed=bits)
    stored = (zeros - 1) if fmt == "gptq" else zeros
    qweight = _pack_rows(q, bits)
    qzeros = _pack_cols(stored & (2 ** bits - 1), bits)
    g_idx = torch.arange(k, dtype=torch.int32) // group
    wq = from_gptq(qweight, qzeros, scales, g_idx, bits=bits, checkpoint_format=fmt)
    assert wq.group_size == group and wq.perm is None and wq.bits == bits
    assert torch.equal(wq.dequantize(), _expected(q, zeros, scales, torch.arange(k) // group))


def test_gptq_act_order_permutes_so_groups_are_contiguous():
    k, n, group = 256, 32, 64
    q, zeros, scales = _gptq_case(k, n, group, 4, seed=7)
    g_idx = (torch.arange(k) // group)[torch.randperm(k, generator=torch.Generator().manual_seed(1))]
    wq = from_gptq(_pack_rows(q, 4), _pack_cols(zeros - 1, 4), scales, g_idx.to(torch.int32))
    assert wq.perm is not None
    want = _expected(q, zeros, scales, g_idx)
    assert torch.equal(wq.dequantize(), want)
    # what a layer does with it: the activations gathered by perm meet the contiguous-group weight
    x = torch.randn(3, k, dtype=torch.float64)
    inner = (wq.q.double() - wq.zero.double().repeat_interleave(group, 1)) * wq.scale.double().repeat_interleave(group, 1)
    assert torch.allclose(x[:, wq.perm] @ inner.t(), x @ want.t(), rtol=1e-12, atol=1e-12)


def test_gptq_errors_name_the_argument():
    q, zeros, scales = _gptq_case(128, 32, 64, 4, seed=3)
    qw, qz = _pack_rows(q, 4), _pack_cols(zeros - 1, 4)
    cases = [
        (lambda: from_gptq(qw.float(), qz, scales), "qweight"),
        (lambda: from_gptq(qw, qz[:, :2], scales), "qzeros"),
        (lambda: from_gptq(qw, qz, scales.float()), "scales"),
        (lambda: from_gptq(qw, qz, scales[:, :8]), "scales"),
        (lambda: from_gptq(qw, qz, scales, torch.zeros(128, dtype=torch.int32)), "g_idx"),
        (lambda: from_gptq(qw, qz, scales, bits=3), "bits"),
        (lambda: from_gptq(qw, qz, scales, checkpoint_format="exl2"), "checkpoint_format"),
    ]
    for call, arg in cases:
        with pytest.raises(InvalidArgumentError) as e:
            call()
        assert e.value.argument == arg


# ------------------------------------------------------------------------------------ AWQ
def test_awq_import_undoes_the_nibble_order():
    k, n, group = 256, 64, 128
    q, zeros, scales = _gptq_case(k, n, group, 4, seed=11)
    qweight = _pack_cols(q, 4, AWQ_PACK_ORDER)
    qzeros = _pack_cols(zeros, 4, AWQ_PACK_ORDER)
    wq = from_awq(qweight, qzeros, scales)
    assert isinstance(wq, WeightOnlyQuant) and wq.group_size == group and wq.perm is None
    assert torch.equal(wq.dequantize(), _expected(q, zeros, scales, torch.arange(k) // group))
    # read as if unordered, the columns come out permuted: the order matters
    plain = from_awq(_pack_cols(q, 4), qzeros, scales)
    assert not torch.equal(plain.q, wq.q)
