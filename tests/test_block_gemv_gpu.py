"""GPU: the block-scaled decode GEMV (runtime/csrc/gemv_w8a8.cuh with kBC > 0), which serves M <= 16 of the per-block
int8 op (`scaled_mm_blockwise_int8`) and of the blockwise fp8 op (`scaled_mm_blockwise`): every output element against
float64 on random data (M 1..16 across both m8 tiles, N with a partial 16-row tile, K of 1 to 112 blocks, blocks 64 /
128, fp16 / bf16, bias, every activation, outlier blocks, strided scales), outputs poisoned with NaN first; the same
calls through the tiled kernels (CUTLASS_GEMM_GEMV=0) agree within the same bound; either step depth (2 or 4 chunks)
gives the same bits; a NaN scale makes its row NaN; the plan splits K in whole blocks; fp8 layer under torch.compile and a
CUDA graph with no host sync. `pytest -m gpu tests/test_block_gemv_gpu.py`.
"""
import pytest
import torch

import cutlass_gemm
from cutlass_gemm.kernels import activations
from cutlass_gemm.nn import Fp8BlockLinear, Int8BlockLinear
from cutlass_gemm.runtime import extension
from gpu_helpers import capture, without_sync
from test_blockint8_gpu import _check as _check_int8
from test_blockint8_gpu import _operands, _poison, _ref

pytestmark = pytest.mark.gpu
MS = (1, 2, 7, 8, 9, 15, 16)
INT8_SHAPES = [(72, 1152), (100, 192), (1000, 4096), (136, 2048), (24, 14336)]  # N % 16 != 0 in most; K / B odd too


def _ext():
    ext = extension.load()
    if ext is None or not hasattr(ext, "block_gemv"):
        pytest.skip("extension without the block-scaled GEMV")
    return ext


@pytest.mark.parametrize("block", [64, 128])
@pytest.mark.parametrize("out_dtype", [torch.bfloat16, torch.float16])
@pytest.mark.parametrize("n,k", INT8_SHAPES)
def test_int8_decode_every_element_vs_float64_and_tiled(block, out_dtype, n, k, monkeypatch):
    _ext()
    if k % block:
        pytest.skip("K not a multiple of the block")
    for i, m in enumerate(MS):
        a, b, sa, sb = _operands(m, n, k, block, seed=3 * m + n + k + block)
        bias = (torch.randn(n, device="cuda") * 0.1).to(out_dtype) if i % 2 else None
        act = (None, "relu", "silu", "gelu_tanh", "relu6")[i % 5]
        pre, absum = _ref(a, b, sa, sb, bias, block)
        _poison(m, n, out_dtype)
        y = cutlass_gemm.scaled_mm_blockwise_int8(a, b, sa, sb, bias, out_dtype=out_dtype, block_size=block,
                                                  activation=act)
        what = f"GEMV M={m} N={n} K={k} B={block} {out_dtype} {act}"
        _check_int8(y, pre, absum, out_dtype, act, what)
        assert torch.equal(y, cutlass_gemm.scaled_mm_blockwise_int8(a, b, sa, sb, bias, out_dtype=out_dtype,
                                                                    block_size=block, activation=act)), what
        monkeypatch.setenv("CUTLASS_GEMM_GEMV", "0")
        _poison(m, n, out_dtype)
        tiled = cutlass_gemm.scaled_mm_blockwise_int8(a, b, sa, sb, bias, out_dtype=out_dtype, block_size=block,
                                                      activation=act)
        monkeypatch.delenv("CUTLASS_GEMM_GEMV")
        _check_int8(tiled, pre, absum, out_dtype, act, "tiled " + what)


def test_int8_strided_scales_unroll_variant_and_plan():
    ext = _ext()
    m, n, k, block = 6, 200, 4096, 128
    a, b, sa, sb = _operands(m, n, k, block, seed=21)
    y = cutlass_gemm.scaled_mm_blockwise_int8(a, b, sa, sb)
    sa_wide = torch.zeros(m, 2 * (k // block), device="cuda")
    sa_wide[:, ::2] = sa
    assert torch.equal(cutlass_gemm.scaled_mm_blockwise_int8(a, b, sa_wide[:, ::2], sb.t().contiguous().t()), y)
    warps, ctas, threads, unroll = ext.gemv_w8a8_plan(m, n, k, block)
    # the rule at M <= 8: 4 chunks; 16 warps for these 13 CTAs, no more than half the SMs (session 37)
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    assert ctas == -(-n // 16) and threads == 32 * warps and warps == (16 if 2 * ctas <= sms else 8) and unroll == 4
    assert ext.gemv_w8a8_plan(12, n, k, block)[3] == 4 and ext.gemv_w8a8_plan(12, 28672, k, block)[3] == 2
    for forced in (2, 4):  # other loads in flight per step, the same blocks folded in the same order: the same bits
        try:
            ext.gemv_set_step(forced)
            assert ext.gemv_w8a8_plan(m, n, k, block)[3] == forced
            assert torch.equal(cutlass_gemm.scaled_mm_blockwise_int8(a, b, sa, sb), y)
            a16, b16, sa16, sb16 = _operands(16, n, k, block, seed=22)
            y16 = cutlass_gemm.scaled_mm_blockwise_int8(a16, b16, sa16, sb16)
            pre, absum = _ref(a16, b16, sa16, sb16, None, block)
            _check_int8(y16, pre, absum, torch.bfloat16, None, f"M=16 unroll {forced}")
        finally:
            ext.gemv_set_step(0)


@pytest.mark.parametrize("op", ["int8", "fp8"])
def test_nan_scale_makes_its_row_nan(op):
    _ext()
    m, n, k = 5, 136, 512
    if op == "int8":
        a, b, sa, sb = _operands(m, n, k, 128, seed=8)
        sa[3, 2] = float("nan")
        y = cutlass_gemm.scaled_mm_blockwise_int8(a, b, sa, sb, activation="relu").cpu()
    else:
        c = _fp8_case(m, n, k, seed=8)[0]
        c["scale_a"][3, 2] = float("nan")
        y = cutlass_gemm.scaled_mm_blockwise(**c, activation="relu").cpu()
    assert torch.isnan(y[3]).all()
    assert not torch.isnan(torch.cat([y[:3], y[4:]])).any()


# ---------------------------------------------------------------------------------------------- fp8 blockwise
def _sm90():
    if torch.cuda.get_device_capability() != (9, 0):
        pytest.skip("scaled_mm_blockwise is SM90 only")


def _fp8_case(m, n, k, seed=0, bias=True, out_dtype=torch.bfloat16):
    from test_blockwise_gpu import _case
    return _case(m, n, k, seed=seed, bias=bias, out_dtype=out_dtype)


@pytest.mark.parametrize("out_dtype", [torch.bfloat16, torch.float16])
@pytest.mark.parametrize("n,k", [(8, 128), (136, 384), (392, 2048), (1032, 7168)])
def test_fp8_decode_every_element_vs_float64_and_cutlass(out_dtype, n, k, monkeypatch):
    _ext()
    _sm90()
    from test_blockwise_gpu import _bounds, _check
    for i, m in enumerate(MS):
        act = (None,) + activations.PUBLIC
        act = act[i % len(act)]
        c, (aq, wq, b) = _fp8_case(m, n, k, seed=m + n + k, bias=bool(i % 2), out_dtype=out_dtype)
        pre, bound = _bounds(aq, wq, b, out_dtype)
        ref = pre if act is None else activations.torch_activation(act)(pre).double()
        if act is not None:
            bound = 1.2 * bound + 2.0 ** -9 * pre.abs() + 2.0 ** -8 * ref.abs()
        _poison(m, n, out_dtype)
        y = cutlass_gemm.scaled_mm_blockwise(**c, out_dtype=out_dtype, activation=act)
        assert y.shape == (m, n) and y.dtype == out_dtype
        what = f"GEMV {m}x{n}x{k} {out_dtype} {act}"
        _check(y, ref, bound, what)
        if m % 4 == 0:  # column-major scale_a (the op takes it where M % 4 == 0): read through its strides, same bits
            c2 = dict(c, scale_a=c["scale_a"].t().contiguous().t())
            assert torch.equal(cutlass_gemm.scaled_mm_blockwise(**c2, out_dtype=out_dtype, activation=act), y), what
        if act is None:  # CUTLASS's decode tile (activation kernels outside the default set would build here)
            monkeypatch.setenv("CUTLASS_GEMM_GEMV", "0")
            _poison(m, n, out_dtype)
            _check(cutlass_gemm.scaled_mm_blockwise(**c, out_dtype=out_dtype), ref, bound, "CUTLASS " + what)
            monkeypatch.delenv("CUTLASS_GEMM_GEMV")


def test_fp8_layer_decode_compile_graph_no_sync_opcheck():
    _ext()
    _sm90()
    torch.manual_seed(0)
    lin = torch.nn.Linear(2048, 392).cuda().bfloat16()
    layer = Fp8BlockLinear.from_float(lin, activation="silu")
    x = torch.randn(4, 2048, device="cuda", dtype=torch.bfloat16)
    y = layer(x)
    ref = torch.nn.functional.silu(lin(x).float())
    assert float((y.float() - ref).norm() / ref.norm()) < 0.05
    assert torch.equal(without_sync(lambda: layer(x)), y)
    assert torch.equal(torch.compile(layer, fullgraph=True)(x), y)
    static_x = x.clone()
    graph, static_y = capture(layer, static_x)
    x2 = torch.randn_like(x)
    static_x.copy_(x2)
    graph.replay()
    assert torch.equal(static_y, layer(x2))
    c, _ = _fp8_case(7, 136, 384)
    torch.library.opcheck(torch.ops.cutlass_gemm.scaled_mm_blockwise.default,
                          (c["a"], c["b"], c["scale_a"], c["scale_b"], c["bias"], torch.bfloat16, "gelu_tanh"),
                          test_utils=("test_autograd_registration", "test_faketensor", "test_aot_dispatch_dynamic"))


def test_int8_layer_decode_close_to_the_float_layer():
    _ext()
    torch.manual_seed(2)
    lin = torch.nn.Linear(4096, 1000).cuda().half()
    layer = Int8BlockLinear.from_float(lin, block_size=128)
    x = torch.randn(16, 4096, device="cuda", dtype=torch.float16)
    ref = lin(x).float()
    assert float((layer(x).float() - ref).norm() / ref.norm()) < 0.02
