"""The activation-quantization ops and `w8a8_linear` on CPU (their float reference path): shapes,
typed errors, opcheck, and tracing with torch.compile(fullgraph=True). The kernels' bit-equality with
this reference is tests/test_quant_ops_gpu.py."""
import pytest
import torch

import cutlass_gemm as cg
from cutlass_gemm.errors import InvalidArgumentError
from cutlass_gemm.quant import quantize_activation

FP8 = torch.float8_e4m3fn


def _x(*shape, dtype=torch.bfloat16, seed=0):
    g = torch.Generator().manual_seed(seed)
    return (torch.randn(*shape, generator=g) * 3).to(dtype)


@pytest.mark.parametrize("dtype", [torch.int8, FP8])
def test_per_token_shapes_and_reference(dtype):
    x = _x(2, 3, 48)
    q, s = cg.quantize_per_token(x, dtype)
    assert q.shape == x.shape and q.dtype == dtype and s.shape == (2, 3, 1) and s.dtype == torch.float32
    ref = quantize_activation(x.reshape(-1, 48), dtype=dtype)
    assert torch.equal(q.reshape(-1, 48).view(torch.uint8), ref.a.view(torch.uint8))
    assert torch.equal(s.reshape(-1, 1), ref.scale_a)


def test_scale_ub_clamps_absmax():
    x = _x(4, 32, dtype=torch.float32)
    ub = torch.tensor([0.5])
    q, s = cg.quantize_per_token(x, FP8, scale_ub=ub)
    assert torch.all(s <= 0.5 / 448 * (1 + 1e-6))
    assert q.to(torch.float32).abs().max() == 448  # values beyond the bound saturate


def test_asym_static_per_tensor_group_rms_shapes():
    x = _x(5, 128)
    q, s, z = cg.quantize_per_token_asym(x)
    assert (q.shape, s.shape, z.shape, z.dtype) == ((5, 128), (5, 1), (5, 1), torch.int32)
    q, s = cg.quantize_per_tensor(x, FP8)
    assert s.shape == () and q.dtype == FP8
    q, s = cg.quantize_static(x, torch.tensor([0.05]), torch.int8, torch.tensor([2], dtype=torch.int32))
    assert s.shape == (5, 1) and torch.all(s == 0.05)
    q, s = cg.quantize_per_group(x, 64)
    assert s.shape == (5, 2)
    w = _x(128, seed=1)
    q, s, r = cg.rms_norm_quantize(x, w, 1e-5, FP8, residual=x)
    assert r.shape == x.shape and r.dtype == x.dtype and torch.equal(r, (x.float() + x.float()).to(x.dtype))


def test_per_group_column_major_scale_same_values():
    x = _x(6, 256)
    q, s = cg.quantize_per_group(x, 128, FP8)
    qc, sc = cg.quantize_per_group(x, 128, FP8, column_major_scale=True)
    assert sc.shape == (6, 2) and sc.stride() == (1, 6)
    assert torch.equal(qc.view(torch.uint8), q.view(torch.uint8)) and torch.equal(sc, s)
    from torch._subclasses.fake_tensor import FakeTensorMode
    with FakeTensorMode():
        _, sf = cg.quantize_per_group(torch.empty(12, 256), 128, torch.int8, column_major_scale=True)
        assert sf.shape == (12, 2) and sf.stride() == (1, 12)


def test_rms_norm_quantize_matches_float64():
    x, w = _x(7, 256, dtype=torch.float32), _x(256, dtype=torch.float32, seed=3)
    q, s, _ = cg.rms_norm_quantize(x, w, 1e-6, torch.int8)
    x64 = x.double()
    y = w.double() * x64 * torch.rsqrt(x64.pow(2).mean(-1, keepdim=True) + 1e-6)
    deq = q.double() * s.double()
    assert ((deq - y).abs() <= 0.5 * s.double() + 1e-6 * y.abs()).all()


def test_nonfinite_rows_static_row_scale():
    x = _x(4, 32)
    x[2, 3] = float("inf")
    q, s = cg.quantize_static(x, torch.tensor([0.1]), torch.int8)
    assert torch.isnan(s[2]).all() and (q[2] == 0).all() and torch.isfinite(s[[0, 1, 3]]).all()


BAD = {
    "x-int": (lambda: cg.quantize_per_token(torch.ones(2, 16, dtype=torch.int32)), "x"),
    "x-f64": (lambda: cg.quantize_per_token(torch.ones(2, 16, dtype=torch.float64)), "x"),
    "x-strided": (lambda: cg.quantize_per_token(_x(16, 4).t()), "x"),
    "x-empty-k": (lambda: cg.quantize_per_token(torch.ones(2, 0)), "x"),
    "x-list": (lambda: cg.quantize_per_token([[1.0]]), "x"),
    "dtype": (lambda: cg.quantize_per_token(_x(2, 16), torch.float16), "dtype"),
    "scale-ub-shape": (lambda: cg.quantize_per_token(_x(2, 16), FP8, scale_ub=torch.ones(2)), "scale_ub"),
    "static-scale-f64": (lambda: cg.quantize_static(_x(2, 16), torch.tensor([1.0], dtype=torch.float64)), "scale"),
    "static-scale-vector": (lambda: cg.quantize_static(_x(2, 16), torch.ones(2)), "scale"),
    "static-azp-fp8": (lambda: cg.quantize_static(_x(2, 16), torch.ones(1), FP8, torch.zeros(1, dtype=torch.int32)),
                       "azp"),
    "static-azp-int64": (lambda: cg.quantize_static(_x(2, 16), torch.ones(1), torch.int8,
                                                    torch.zeros(1, dtype=torch.int64)), "azp"),
    "group-32": (lambda: cg.quantize_per_group(_x(2, 64), 32), "group_size"),
    "group-k": (lambda: cg.quantize_per_group(_x(2, 96), 64), "x"),
    "group-colmajor-3d": (lambda: cg.quantize_per_group(_x(2, 128).reshape(1, 2, 128), 64, column_major_scale=True),
                          "column_major_scale"),
    "group-colmajor-notbool": (lambda: cg.quantize_per_group(_x(2, 128), 64, column_major_scale=1),
                               "column_major_scale"),
    "rms-weight-shape": (lambda: cg.rms_norm_quantize(_x(2, 16), _x(8)), "weight"),
    "rms-weight-dtype": (lambda: cg.rms_norm_quantize(_x(2, 16), _x(16, dtype=torch.float32)), "weight"),
    "rms-eps": (lambda: cg.rms_norm_quantize(_x(2, 16), _x(16), -1.0), "eps"),
    "rms-residual": (lambda: cg.rms_norm_quantize(_x(2, 16), _x(16), residual=_x(3, 16)), "residual"),
    "linear-act": (lambda: cg.w8a8_linear(_x(2, 16), torch.zeros(8, 16, dtype=torch.int8), torch.ones(1, 8),
                                          act="bogus"), "act"),
    "linear-k": (lambda: cg.w8a8_linear(_x(2, 32), torch.zeros(8, 16, dtype=torch.int8), torch.ones(1, 8)), "x"),
    "linear-static-no-scale": (lambda: cg.w8a8_linear(_x(2, 16), torch.zeros(8, 16, dtype=torch.int8),
                                                      torch.ones(1, 8), act="static"), "input_scale"),
    "linear-asym-no-adj": (lambda: cg.w8a8_linear(_x(2, 16), torch.zeros(8, 16, dtype=torch.int8),
                                                  torch.ones(1, 8), act="dynamic_asym"), "azp_adj"),
    "linear-asym-fp8": (lambda: cg.w8a8_linear(_x(2, 16), torch.zeros(8, 16, dtype=FP8), torch.ones(1, 8),
                                               act="dynamic_asym", azp_adj=torch.zeros(1, 8, dtype=torch.int32)),
                        "act"),
}


BAD["pad-negative"] = (lambda: cg.quantize_per_token(_x(2, 16), pad_rows=-1), "pad_rows")
BAD["pad-float"] = (lambda: cg.quantize_static(_x(2, 16), torch.tensor([0.1]), pad_rows=4.0), "pad_rows")


@pytest.mark.parametrize("case", sorted(BAD))
def test_bad_input_typed_error(case):
    fn, name = BAD[case]
    with pytest.raises(InvalidArgumentError) as ei:
        fn()
    assert ei.value.argument == name


def _op_samples():
    x = _x(3, 64)
    w = _x(64, seed=2)
    ops = torch.ops.cutlass_gemm
    return [
        (ops.quantize_per_token, (x, torch.int8, None)),
        (ops.quantize_per_token, (x, FP8, torch.tensor([1.0]))),
        (ops.quantize_per_token_asym, (x,)),
        (ops.quantize_per_tensor, (x, FP8)),
        (ops.quantize_static, (x, torch.tensor([0.05]), torch.int8, torch.tensor([1], dtype=torch.int32))),
        (ops.quantize_per_group, (x, 64, torch.int8)),
        (ops.rms_norm_quantize, (x, w, 1e-6, torch.int8)),
        (ops.add_rms_norm_quantize, (x, x.clone(), w, 1e-6, FP8)),
        (ops.quantize_per_group, (x, 64, torch.int8, True)),
        (ops.quantize_per_token, (x, torch.int8, None, 8)),
        (ops.quantize_per_token_asym, (x, 5)),
        (ops.quantize_per_tensor, (x, FP8, 4)),
        (ops.quantize_static, (x, torch.tensor([0.05]), torch.int8, None, 6)),
        (ops.quantize_per_group, (x, 64, FP8, True, 8)),
        (ops.quantize_per_group, (x, 64, torch.int8, False, 5)),
    ]


@pytest.mark.parametrize("i", range(15))
def test_opcheck_cpu(i):
    op, args = _op_samples()[i]
    torch.library.opcheck(op, args)


def test_w8a8_linear_traces_fullgraph():
    w = torch.randint(-127, 128, (24, 64), dtype=torch.int8)
    ws = torch.rand(1, 24) * 0.01
    bias = _x(24, seed=5)

    def layer(x):
        return cg.w8a8_linear(x, w, ws, bias) + cg.w8a8_linear(x, w, ws, bias, act="dynamic_per_tensor")

    x = _x(2, 3, 64)
    compiled = torch.compile(layer, fullgraph=True, backend="aot_eager")
    assert torch.equal(compiled(x), layer(x))


@pytest.mark.parametrize("pad", [0, 4, 6, 9])
def test_pad_rows_appends_zero_rows_to_the_same_quantization(pad):
    """pad_rows: 2-D outputs of max(rows, pad_rows) rows; x's rows exactly the unpadded ones, the rest zero."""
    x = _x(2, 3, 32)
    z = torch.tensor([3], dtype=torch.int32)
    cases = {
        "token": (lambda **kw: cg.quantize_per_token(x, FP8, **kw)),
        "asym": (lambda **kw: cg.quantize_per_token_asym(x, **kw)),
        "tensor": (lambda **kw: cg.quantize_per_tensor(x, **kw)),
        "static": (lambda **kw: cg.quantize_static(x, torch.tensor([0.02]), torch.int8, z, **kw)),
    }
    xg = _x(6, 128, seed=4)
    cases["group"] = lambda **kw: cg.quantize_per_group(xg, 64, FP8, **kw)
    cases["group_cm"] = lambda **kw: cg.quantize_per_group(xg, 64, torch.int8, column_major_scale=True, **kw)
    for name, fn in cases.items():
        plain, padded = fn(), fn(pad_rows=pad)
        rows = max(6, pad) if pad else None
        for p, q in zip(plain, padded):
            if not pad or q.dim() == 0:  # no padding asked, or the per-tensor scale
                assert torch.equal(p.view(torch.int8) if p.dtype == FP8 else p,
                                   q.view(torch.int8) if q.dtype == FP8 else q), name
                continue
            assert q.shape == (rows, p.shape[-1]), (name, q.shape)
            bits = (lambda t: t.view(torch.int8) if t.dtype == FP8 else t)
            assert torch.equal(bits(q[:6]), bits(p.reshape(6, -1))), name
            assert (bits(q[6:]) == 0).all(), name
