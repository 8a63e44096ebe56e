"""GPU: the activation-quant kernels equal the float reference (cutlass_gemm.quant) bit for bit, on
random data, odd and unaligned shapes, every input/output dtype, with non-finite rows; the ops pass
opcheck, trace under torch.compile(fullgraph=True), replay in CUDA graphs and never sync the host;
`w8a8_linear` matches float64 for every activation scheme. Run with `pytest -m gpu`."""
import pytest
import torch

import cutlass_gemm as cg
from cutlass_gemm.errors import InvalidArgumentError

from gpu_helpers import eager_without_sync, replays_match_eager

pytestmark = pytest.mark.gpu
FP8 = torch.float8_e4m3fn
IN_DTYPES = [torch.float32, torch.float16, torch.bfloat16]
# (rows, K): vector path, odd K (scalar path); few rows (<= 256: 2 vectors per thread), more rows (4 per
# thread), long rows (8 per thread), rows too long to hold (re-read); per-tensor: one to many CTAs
SHAPES = [(1, 16), (7, 100), (33, 4096), (5, 8192), (3, 20000), (2, 70000), (300, 256), (257, 4096), (260, 8192)]


def _x(shape, dtype, seed=0, bad_rows=()):
    g = torch.Generator(device="cuda").manual_seed(seed)
    rows = torch.logspace(-3, 3, shape[0], device="cuda").reshape(-1, *([1] * (len(shape) - 1)))
    x = torch.randn(shape, device="cuda", generator=g) * rows
    x[..., 0] = x[..., 0] + 0.5  # break exact symmetry
    if shape[0] > 2:
        x[1] = 0.0  # an all-zero row
    for r, v in bad_rows:
        x[r, ..., min(3, shape[-1] - 1)] = v
    return x.to(dtype)


def _bits(t):
    return t.view(torch.uint8) if t.dtype == FP8 else t


def _same(gpu, cpu, what):
    assert gpu.shape == cpu.shape and gpu.dtype == cpu.dtype, f"{what}: {gpu.shape}/{gpu.dtype} vs {cpu.shape}/{cpu.dtype}"
    g, c = _bits(gpu).cpu(), _bits(cpu)
    if g.is_floating_point():
        ok = torch.equal(torch.isnan(g), torch.isnan(c)) and torch.equal(g.nan_to_num(0.0), c.nan_to_num(0.0))
    else:
        ok = torch.equal(g, c)
    if not ok:
        diff = (g.double() - c.double()).abs().nan_to_num(1e30)
        raise AssertionError(f"{what}: {int((diff > 0).sum())} elements differ, max {diff.max().item()}")


def _both(fn, x, *args, **kw):
    """The op on the GPU and on the CPU (the reference path), outputs as tuples."""
    out_gpu = fn(x, *args, **kw)
    cpu_args = [a.cpu() if isinstance(a, torch.Tensor) else a for a in args]
    cpu_kw = {k: (v.cpu() if isinstance(v, torch.Tensor) else v) for k, v in kw.items()}
    out_cpu = fn(x.cpu(), *cpu_args, **cpu_kw)
    return out_gpu, out_cpu


def _compare(fn, x, what, *args, **kw):
    g, c = _both(fn, x, *args, **kw)
    for i, (a, b) in enumerate(zip(g, c)):
        if a is None:
            assert b is None
            continue
        _same(a, b, f"{what} output {i}")


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("in_dtype", IN_DTYPES)
@pytest.mark.parametrize("qtype", [torch.int8, FP8])
def test_per_token_and_per_tensor_bit_exact(shape, in_dtype, qtype):
    bad = [(0, float("nan")), (shape[0] - 1, float("inf"))] if shape[0] > 3 else []
    x = _x(shape, in_dtype, bad_rows=bad)
    _compare(cg.quantize_per_token, x, "per_token", qtype)
    _compare(cg.quantize_per_tensor, _x(shape, in_dtype, seed=1), "per_tensor", qtype)
    _compare(cg.quantize_static, x, "static", torch.tensor([0.037], device="cuda"), qtype)
    if qtype == torch.int8:
        _compare(cg.quantize_per_token_asym, x, "asym")
        _compare(cg.quantize_static, x, "static azp", torch.tensor([0.02], device="cuda"), qtype,
                 torch.tensor([-7], dtype=torch.int32, device="cuda"))
    else:
        _compare(cg.quantize_per_token, x, "scale_ub", qtype, scale_ub=torch.tensor([0.5], device="cuda"))


@pytest.mark.parametrize("in_dtype", IN_DTYPES)
@pytest.mark.parametrize("shape", [(3, 4096), (300, 4096), (260, 8192), (3, 20000), (7, 101)])
def test_asym_saturates_a_range_of_256_steps(in_dtype, shape):
    """Rows whose rounded range spans 256 steps: +-127.5 (scale 1: rint gives -128 and 128, so the 127.5 must
    saturate to 127, not wrap to -128) and power-of-two multiples of it, between random rows, on every row-kernel
    path (few rows, many rows, long rows: re-read for float32 at K = 20000, the scalar path at odd K); bit-exact
    with the reference."""
    rows, k = shape
    x = _x(shape, torch.float32, seed=5)
    pattern = torch.tensor([127.5, -127.5, 3.0, 0.5, -0.5, 126.5, -126.5, 1.5], device="cuda")
    tiled = pattern.repeat(k // 8 + 1)[:k]
    for r, mult in ((0, 1.0), (rows // 2, 2.0 ** -9), (rows - 1, 2.0 ** 6)):
        x[r] = tiled * mult
    x = x.to(in_dtype)
    q, s, z = cg.quantize_per_token_asym(x)
    assert int(q[0, 0]) == 127 and int(q[0, 1]) == -128, "the tie row saturates to 127"
    _compare(cg.quantize_per_token_asym, x, f"asym saturation {shape}")


@pytest.mark.parametrize("in_dtype", IN_DTYPES)
@pytest.mark.parametrize("qtype", [torch.int8, FP8])
def test_many_rows_bit_exact(in_dtype, qtype):
    """1536 rows of 4096 (12-24 MiB): several CTAs per SM, more than one wave."""
    x = _x((1536, 4096), in_dtype, bad_rows=[(3, float("nan"))])
    _compare(cg.quantize_per_token, x, "per_token (many rows)", qtype)
    _compare(cg.quantize_static, x, "static (many rows)", torch.tensor([0.037], device="cuda"), qtype)
    _compare(cg.quantize_per_group, x, "group (many rows)", 128, qtype)
    if qtype == torch.int8:
        _compare(cg.quantize_per_token_asym, x, "asym (many rows)")
    r = _x((1536, 4096), in_dtype, seed=3) * 0.1
    w = (torch.rand(4096, device="cuda") + 0.5).to(in_dtype)
    q, s, h = cg.rms_norm_quantize(x, w, 1e-6, qtype, residual=r)
    qc, sc, hc = cg.rms_norm_quantize(x.cpu(), w.cpu(), 1e-6, qtype, residual=r.cpu())
    _same(h, hc, "residual_out (many rows)")
    assert torch.allclose(s.cpu(), sc, rtol=1e-5, atol=0, equal_nan=True)


@pytest.mark.parametrize("qtype", [torch.int8, FP8])
def test_per_tensor_larger_than_the_grid_holds_bit_exact(qtype):
    """The per-tensor kernel holds ~17 MB in registers across its grid barrier and reads the rest again:
    a 48 MB float32 tensor, contiguous and as a row-strided view, both paths."""
    x = _x((3072, 4096), torch.float32, seed=4)
    _compare(cg.quantize_per_tensor, x, "per_tensor (re-read)", qtype)
    _compare(cg.quantize_per_tensor, x[:, 8:4008], "per_tensor (strided rows)", qtype)
    x[2000, 17] = float("inf")  # in the part read again
    q, s = cg.quantize_per_tensor(x, qtype)
    assert torch.isnan(s) and (q.view(torch.uint8) == 0).all()


@pytest.mark.parametrize("qtype", [torch.int8, FP8])
@pytest.mark.parametrize("shape, bad_row", [((8, 1024), None), ((9, 1024), 4), ((1024, 4096), 1000), ((1025, 4096), None),
                                            ((100, 4104), 99)])
def test_per_tensor_each_form_bit_exact(qtype, shape, bad_row):
    """bf16 inputs on either side of the per-tensor forms' bounds (quant_launch.cuh): up to 16 KiB one CTA,
    to 8 MiB two passes (absmax, then a programmatic dependent that quantizes), beyond one cooperative
    kernel; a row of infinities makes the scale NaN and every q zero in the two-pass form too."""
    x = _x(shape, torch.bfloat16, seed=6)
    _compare(cg.quantize_per_tensor, x, f"per_tensor {shape}", qtype)
    if bad_row is not None:
        x[bad_row, 3] = float("inf")
        q, s = cg.quantize_per_tensor(x, qtype)
        assert torch.isnan(s) and (q.view(torch.uint8) == 0).all()


def test_per_tensor_nonfinite_poisons_all():
    x = _x((64, 512), torch.bfloat16, bad_rows=[(40, float("-inf"))])
    q, s = cg.quantize_per_tensor(x, torch.int8)
    assert torch.isnan(s) and (q == 0).all()


@pytest.mark.parametrize("in_dtype", IN_DTYPES)
@pytest.mark.parametrize("qtype", [torch.int8, FP8])
@pytest.mark.parametrize("group", [64, 128])
def test_per_group_bit_exact(in_dtype, qtype, group):
    x = _x((37, 1024), in_dtype, bad_rows=[(5, float("nan"))])
    _compare(cg.quantize_per_group, x, "group", group, qtype)
    _compare(cg.quantize_per_group, x[:, group:], "group (unaligned view)", group, qtype)  # rows not 16B-aligned
    _compare(cg.quantize_per_group, _x((2, 3, 256), in_dtype), "group 3-D", group, qtype)
    q, s = cg.quantize_per_group(x, group, qtype)
    qc, sc = cg.quantize_per_group(x, group, qtype, column_major_scale=True)  # the kernel's strided scale write
    assert sc.stride() == (1, x.shape[0])
    assert torch.equal(torch.nan_to_num(sc, 7.0), torch.nan_to_num(s, 7.0))  # row 5 holds a NaN: scale NaN
    assert torch.equal(qc.view(torch.uint8), q.view(torch.uint8))


@pytest.mark.parametrize("in_dtype", IN_DTYPES)
def test_leading_dims_strides_and_unaligned_views(in_dtype):
    big = _x((9, 2064), in_dtype)
    _compare(cg.quantize_per_token, big[:, 8:2056], "strided rows", torch.int8)      # ld 2064, aligned start
    _compare(cg.quantize_per_token, big[:, 1:2049], "misaligned start", torch.int8)  # scalar path
    _compare(cg.quantize_per_token_asym, _x((2, 3, 4, 96), in_dtype), "4-D")
    _compare(cg.quantize_per_token, _x((0, 64), in_dtype), "no rows", torch.int8)


@pytest.mark.parametrize("in_dtype", IN_DTYPES)
@pytest.mark.parametrize("qtype", [torch.int8, FP8])
# 300 rows (> kFewRows in quant_launch.cuh) at K = 4096 / 8192: the many-row kernels (every slot filled: the
# exact variant)
@pytest.mark.parametrize("rows,k", [(13, 4096), (13, 100), (13, 20000), (300, 4096), (300, 8192)])
def test_rms_norm_quantize(in_dtype, qtype, rows, k):
    g = torch.Generator(device="cuda").manual_seed(k)
    x = (torch.randn(rows, k, device="cuda", generator=g) * 3).to(in_dtype)
    r = (torch.randn(rows, k, device="cuda", generator=g) * 0.3).to(in_dtype)
    w = (torch.rand(k, device="cuda") + 0.5).to(in_dtype)
    for residual in (None, r):
        q, s, h = cg.rms_norm_quantize(x, w, 1e-6, qtype, residual=residual)
        qc, sc, hc = cg.rms_norm_quantize(x.cpu(), w.cpu(), 1e-6, qtype, residual=None if residual is None else r.cpu())
        if residual is not None:
            _same(h, hc, "residual_out")  # x + residual rounded once: exact
        # the sum of squares is reduced in another order: scales agree to float32 rounding, q to one step
        assert torch.allclose(s.cpu(), sc, rtol=1e-5, atol=0), (s.cpu() - sc).abs().max()
        dq = (q.cpu().to(torch.float64) - qc.to(torch.float64)).abs()
        step = 1.0 if qtype == torch.int8 else 0.125 * qc.to(torch.float64).abs().clamp_min(1.0)
        assert (dq <= step + 1e-9).all() and (dq > 0).float().mean() < 0.01
        h64 = (x.double() + (0 if residual is None else r.double()))
        y = w.double() * h64 * torch.rsqrt(h64.pow(2).mean(-1, keepdim=True) + 1e-6)
        deq = q.double() * s.double()
        rel = ((deq - y).norm() / y.norm()).item()
        assert rel < (2e-2 if qtype == torch.int8 else 5e-2), rel


def _op_samples():
    x = _x((5, 256), torch.bfloat16)
    w = _x((256,), torch.bfloat16, seed=2)
    ops = torch.ops.cutlass_gemm
    one = torch.tensor([0.05], device="cuda")
    return [
        (ops.quantize_per_token, (x, torch.int8, None)),
        (ops.quantize_per_token, (x, FP8, torch.tensor([1.0], device="cuda"))),
        (ops.quantize_per_token_asym, (x,)),
        (ops.quantize_per_tensor, (x, FP8)),
        (ops.quantize_static, (x, one, torch.int8, torch.tensor([1], dtype=torch.int32, device="cuda"))),
        (ops.quantize_per_group, (x, 128, FP8)),
        (ops.rms_norm_quantize, (x, w, 1e-6, torch.int8)),
        (ops.add_rms_norm_quantize, (x, x.clone(), w, 1e-6, FP8)),
        (ops.quantize_per_group, (x, 128, FP8, True)),
        (ops.quantize_per_token, (x, FP8, None, 64)),
        (ops.quantize_per_token_asym, (x, 7)),
        (ops.quantize_per_tensor, (x, torch.int8, 16)),
        (ops.quantize_static, (x, one, FP8, None, 9)),
        (ops.quantize_per_group, (x, 128, FP8, True, 64)),
        (ops.quantize_per_group, (x, 128, torch.int8, False, 8)),
    ]


@pytest.mark.parametrize("i", range(15))
def test_opcheck_cuda(i):
    op, args = _op_samples()[i]
    torch.library.opcheck(op, args)


# ------------------------------------------------------------------------------------ w8a8_linear
def _layer(n, k, qtype, seed=0):
    g = torch.Generator(device="cuda").manual_seed(seed)
    w = torch.randn(n, k, device="cuda", generator=g) * 0.05
    amax = w.abs().amax(1, keepdim=True)
    qmax = 127.0 if qtype == torch.int8 else 448.0
    ws = (amax / qmax).float()
    wq = (w / ws).round().clamp(-128, 127).to(torch.int8) if qtype == torch.int8 else (w / ws).to(FP8)
    return wq, ws.reshape(1, n).contiguous(), wq.to(torch.int64).sum(1).to(torch.int32).reshape(1, n) if qtype == torch.int8 else None


ACT_CASES = [("dynamic", torch.int8), ("dynamic_asym", torch.int8), ("dynamic_per_tensor", torch.int8),
             ("static", torch.int8), ("static_azp", torch.int8), ("dynamic", FP8), ("static", FP8)]


_STATIC = {}


def _static_params(device):
    """Made once per device: creating a CUDA tensor from a Python list copies from the host (a sync)."""
    if device not in _STATIC:
        _STATIC[device] = (torch.tensor([0.03], device=device), torch.tensor([5], dtype=torch.int32, device=device))
    return _STATIC[device]


def _call(act, x, wq, ws, bias, adj, out_dtype=None):
    kw = {}
    if act.startswith("static"):
        scale, zp = _static_params(x.device)
        kw["input_scale"] = scale
        if act == "static_azp":
            kw["input_zero_point"] = zp
        act = "static"
    if act == "dynamic_asym" or "input_zero_point" in kw:
        kw["azp_adj"] = adj
    return cg.w8a8_linear(x, wq, ws, bias, act=act, out_dtype=out_dtype, **kw)


@pytest.mark.parametrize("act,qtype", ACT_CASES)
@pytest.mark.parametrize("m", [1, 16, 37, 200, 260])
@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16])
def test_w8a8_linear_matches_reference(act, qtype, m, dtype):
    n, k = 264, 512
    wq, ws, adj = _layer(n, k, qtype)
    bias = torch.randn(n, device="cuda").to(dtype)
    x = (torch.randn(m, k, device="cuda") * 2).to(dtype)
    outs = [_call(act, x, wq, ws, bias, adj) for _ in range(2)]  # 1st: Python plan; 2nd: C++ fast path
    cpu = _call(act, x.cpu(), wq.cpu(), ws.cpu(), bias.cpu(), None if adj is None else adj.cpu())  # float64 GEMM
    for out in outs:
        assert out.shape == (m, n) and out.dtype == dtype and not torch.isnan(out).any()
        o, c = out.double().cpu(), cpu.double()
        assert ((o - c).abs() <= 1e-2 * c.abs() + 2e-3 * c.abs().max()).all()
    assert torch.equal(outs[0], outs[1])
    # a row holding a NaN comes out NaN (per-tensor scales: the whole output), every other row finite
    x[m // 2, 7] = float("nan")
    out = _call(act, x, wq, ws, bias, adj)
    nan_rows = torch.isnan(out).all(dim=1)
    expect = torch.ones(m, dtype=torch.bool, device="cuda") if act == "dynamic_per_tensor" else \
        torch.arange(m, device="cuda") == m // 2
    assert torch.equal(nan_rows, expect) and not torch.isnan(out[~nan_rows]).any()


@pytest.mark.parametrize("act,qtype", ACT_CASES)
def test_w8a8_linear_padded_rows_equal_unpadded(act, qtype, monkeypatch):
    """The layer call quantizes into whole M tiles (heuristics.padded_rows) and keeps the first M rows: the same
    bits as the unpadded call (the same kernel: the padded M selects the tile M does), eager (Python plan, then
    C++) and compiled; the padded quantizer's extra rows are zero."""
    from cutlass_gemm.kernels import heuristics
    from cutlass_gemm.ops import linear

    n, k = 264, 512
    wq, ws, adj = _layer(n, k, qtype, seed=3)
    bias = torch.randn(n, device="cuda").bfloat16()
    ms = (17, 37, 132, 200, 260, 520)
    xs = [(torch.randn(m, k, device="cuda") * 2).bfloat16() for m in ms]
    rows = [linear.padded_rows_for(x, wq) for x in xs]
    assert all(r > m for r, m in zip(rows, ms)) and rows[:2] == [64, 64], rows  # SM90 pads all of these
    padded = [[_call(act, x, wq, ws, bias, adj) for _ in range(2)] for x in xs]
    compiled = torch.compile(lambda x: _call(act, x, wq, ws, bias, adj), fullgraph=True)
    padded_compiled = [compiled(x) for x in xs[:2]]
    monkeypatch.setattr(heuristics, "PAD_ROWS", {})
    linear._rows_cache.clear()
    try:
        assert linear.padded_rows_for(xs[0], wq) == ms[0]
        plain = [_call(act, x, wq, ws, bias, adj) for x in xs]
    finally:
        linear._rows_cache.clear()
    for m, (first, second), ref in zip(ms, padded, plain):
        assert first.shape == (m, n) and first.is_contiguous()
        assert torch.equal(first, ref) and torch.equal(second, ref), m
    for got, ref in zip(padded_compiled, plain):
        assert torch.equal(got, ref)
    q, s = cg.quantize_per_token(xs[2], qtype, pad_rows=rows[2])
    q0, s0 = cg.quantize_per_token(xs[2], qtype)
    assert q.shape == (rows[2], k) and torch.equal(_bits(q[:ms[2]]), _bits(q0)) and torch.equal(s[:ms[2]], s0)
    assert (_bits(q[ms[2]:]) == 0).all() and (s[ms[2]:] == 0).all()


@pytest.mark.parametrize("qtype", [torch.int8, FP8])
def test_w8a8_linear_long_k_rows_take_the_wide_tile(qtype):
    """heuristics.WAVES from K = 8192: 1000 rows x 2560 x 8192 run padded to 1024 rows on the 256 x 128 c1x2 tile (one
    wave against the 128 x 128 tile's two), 300 rows on the 128 x 128 one (384 rows); both match the float64 GEMM on
    the CPU, eager (Python plan, then the C++ call, K in its plan key) and under torch.compile."""
    from cutlass_gemm.kernels import heuristics
    from cutlass_gemm.ops import linear
    n, k = 2560, 8192
    ab = "int8" if qtype == torch.int8 else "e4m3"
    wq, ws, _ = _layer(n, k, qtype, seed=5)
    compiled = torch.compile(lambda x: cg.w8a8_linear(x, wq, ws), fullgraph=True)
    for m, rows, tile in ((1000, 1024, (256, 128, 128)), (300, 384, (128, 128, 128))):
        x = (torch.randn(m, k, device="cuda") * 2).bfloat16()
        assert linear.padded_rows_for(x, wq) == rows
        assert heuristics.choose_tile(90, rows, n, ab, k).tile == tile
        outs = [cg.w8a8_linear(x, wq, ws) for _ in range(2)] + [compiled(x)]
        ref = cg.w8a8_linear(x.cpu(), wq.cpu(), ws.cpu()).double()
        # fp8: CUTLASS's fast accumulation, whose error grows with K: 1% of the largest output (as test_ops_gpu)
        atol = (2e-3 if qtype == torch.int8 else 1e-2) * ref.abs().max()
        for out in outs:
            assert out.shape == (m, n) and torch.equal(out, outs[0])
            assert ((out.double().cpu() - ref).abs() <= 1e-2 * ref.abs() + atol).all()


def test_w8a8_linear_float32_input_and_3d():
    wq, ws, _ = _layer(128, 256, torch.int8)
    x = torch.randn(2, 3, 256, device="cuda")
    y = cg.w8a8_linear(x, wq, ws)
    assert y.shape == (2, 3, 128) and y.dtype == torch.float32
    ref = cg.w8a8_linear(x.cpu(), wq.cpu(), ws.cpu())
    assert torch.allclose(y.cpu(), ref, rtol=1e-2, atol=1e-2 * ref.abs().max().item())


def test_no_host_sync_compile_and_cuda_graph():
    wq, ws, adj = _layer(256, 512, torch.int8)
    w8, ws8, _ = _layer(256, 512, FP8, seed=1)
    bias = torch.randn(256, device="cuda").bfloat16()
    nw = torch.rand(512, device="cuda").bfloat16() + 0.5
    x = torch.randn(8, 512, device="cuda").bfloat16()

    def step(x):
        q, s, h = cg.rms_norm_quantize(x, nw, 1e-6, torch.int8, residual=x)
        x40 = x.repeat(5, 1)  # 40 rows: the layer calls below quantize into 64 (padded_rows)
        return (q, s, h, _call("dynamic", h, wq, ws, bias, adj), _call("dynamic_asym", x40, wq, ws, bias, adj),
                _call("static", x, wq, ws, bias, adj), _call("static_azp", x40, wq, ws, bias, adj),
                _call("dynamic", x40, w8, ws8, bias, None), _call("dynamic_per_tensor", x, wq, ws, bias, adj),
                *cg.quantize_per_group(x, 128, FP8), *cg.quantize_per_tensor(x),  # one CTA
                *cg.quantize_per_tensor(x.repeat(2, 16)),  # 16 x 8192: two passes, the second a dependent launch
                *cg.quantize_per_tensor(x.repeat(256, 16)))  # 2048 x 8192: cooperative grid

    def same(a, b):
        return all(torch.equal(_bits(u), _bits(v)) for u, v in zip(a, b))

    eager = eager_without_sync(step, x, same=same)
    compiled = torch.compile(step, fullgraph=True)
    assert same(compiled(x), eager)  # the ops are opaque to Inductor: the same kernels, the same bits
    replays_match_eager(step, x.clone(), [torch.randn(8, 512, device="cuda").bfloat16()], same=same)


def test_quant_on_other_stream_and_device_errors():
    x = _x((4, 256), torch.bfloat16)
    s = torch.cuda.Stream()
    with torch.cuda.stream(s):
        q, sc = cg.quantize_per_token(x)
    s.synchronize()
    _same(q, cg.quantize_per_token(x.cpu())[0], "side stream")
    with pytest.raises(InvalidArgumentError) as ei:
        cg.quantize_static(x, torch.tensor([0.1]))  # scale on the CPU
    assert ei.value.argument == "scale"
    with pytest.raises(InvalidArgumentError) as ei:
        cg.rms_norm_quantize(x, torch.ones(256, dtype=torch.bfloat16))  # weight on the CPU
    assert ei.value.argument == "weight"


def kernels_needed():
    """The GEMM kernels this file runs on an SM90 GPU (`python test_quant_ops_gpu.py` prints them, for a session that
    builds them first): the w8a8_linear calls at N = 264 / 256 with a bias, at the tiles their (padded) rows select, and
    the long-K ones at 2560 x 8192 without; M <= 16 takes the extension's GEMV."""
    from cutlass_gemm.kernels import heuristics
    kinds = {"dynamic": ("scaled_bias", "token"), "dynamic_asym": ("scaled_azp_per_token", "token"),
             "dynamic_per_tensor": ("scaled_bias", "tensor"), "static": ("scaled_bias", "token"),
             "static_azp": ("scaled_azp", "token")}
    names = set()
    for act, qtype in ACT_CASES:
        variant, sa = kinds[act]
        ab = "int8" if qtype == torch.int8 else "e4m3"
        for n, ms in ((264, (17, 37, 132, 200, 260, 520)), (256, (40,))):
            for m in ms:
                for rows in (m, heuristics.padded_rows(90, m, n, ab)):
                    choice = heuristics.choose_tile(90, rows, n, ab)
                    for out in ("bf16", "f16"):
                        names.add(heuristics.make_config(90, variant, out, choice, a_dtype=ab, scale_a=sa).name)
    for ab in ("int8", "e4m3"):
        for m in (300, 1000):
            choice = heuristics.choose_tile(90, heuristics.padded_rows(90, m, 2560, ab, k=8192), 2560, ab, 8192)
            names.add(heuristics.make_config(90, "scaled", "bf16", choice, a_dtype=ab).name)
    return sorted(names)


if __name__ == "__main__":
    print("\n".join(kernels_needed()))
