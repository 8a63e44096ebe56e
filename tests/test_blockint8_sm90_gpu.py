"""GPU (SM90): the CUTLASS per-block int8 kernels (BlockwiseConfig in_dtype "s8") and their routing in
`scaled_mm_blockwise_int8`. Every candidate kernel, every output element against a float64 reference on
random data (odd M, N multiples of 8 but not of the tile, K several blocks), outlier blocks (scales 1e4
apart), outputs poisoned with NaN before each run; bias, every activation, fp16/bf16; determinism; the
routed op equals the named kernel bit for bit, including strided / offset views; opcheck,
torch.compile(fullgraph=True), CUDA-graph capture and no host sync on the routed path. `pytest -m gpu`.
Tolerance: as tests/test_blockint8_gpu.py (its helpers)."""
import pytest
import torch

from cutlass_gemm import scaled_mm_blockwise_int8
from cutlass_gemm.kernels.blockwise import int8_candidate_configs, int8_default_configs, select_int8_config
from cutlass_gemm.ops import _blockwise_int8_sm90 as sm90
from cutlass_gemm.ops.blockwise_int8 import blockwise_int8_backend

from test_blockint8_gpu import _check, _operands, _poison, _ref

pytestmark = [pytest.mark.gpu, pytest.mark.skipif(
    not torch.cuda.is_available() or torch.cuda.get_device_capability() != (9, 0), reason="needs an SM90 GPU")]
SHAPES = [(17, 136, 384), (333, 264, 1152), (1000, 1000, 640), (129, 8, 128), (4099, 520, 2048)]
_OUT = {"bf16": torch.bfloat16, "f16": torch.float16}


def _run(cfg, a, b, sa, sb, bias, out_dtype):
    _poison(a.shape[0], b.shape[0], out_dtype)
    return sm90.run_config(cfg, a, b, sa, sb, bias, out_dtype)


@pytest.mark.parametrize("cfg", int8_candidate_configs("bf16") + [c for c in int8_default_configs() if c.out_dtype == "f16"],
                         ids=lambda c: c.name)
def test_every_candidate_matches_float64(cfg):
    out_dtype = _OUT[cfg.out_dtype]
    for i, (m, n, k) in enumerate(SHAPES):
        a, b, sa, sb = _operands(m, n, k, 128, seed=m + n + k)
        bias = (torch.randn(n, device="cuda") * 0.1).to(out_dtype) if i % 2 else None
        y = _run(cfg, a, b, sa, sb, bias, out_dtype)
        pre, absum = _ref(a, b, sa, sb, bias, 128)
        _check(y, pre, absum, out_dtype, None, f"{cfg.name} M={m} N={n} K={k}")
        assert torch.equal(y, _run(cfg, a, b, sa, sb, bias, out_dtype)), f"{cfg.name} not deterministic"


@pytest.mark.parametrize("activation", ["relu", "relu6", "gelu_tanh", "silu"])
def test_activation_kernels(activation):
    cfgs = [c for c in int8_default_configs() if c.activation == activation]
    assert cfgs
    for cfg in cfgs:
        for m, n, k in [(200, 264, 768), (2048, 136, 512)]:
            a, b, sa, sb = _operands(m, n, k, 128, seed=m * 7 + k)
            sb = sb * 300  # pre-activation values across the functions' interesting range
            bias = torch.randn(n, device="cuda").bfloat16()
            pre, absum = _ref(a, b, sa, sb, bias, 128)
            _check(_run(cfg, a, b, sa, sb, bias, torch.bfloat16), pre, absum, torch.bfloat16, activation,
                   f"{cfg.name} M={m}")


def test_extreme_block_sums_convert_exactly():
    """All -128 / 127 operands: block sums at +-2^21, the edge of the exact int32 -> float conversion."""
    m, n, k = 130, 136, 1024
    a = torch.full((m, k), -128, dtype=torch.int8, device="cuda")
    a[1::2] = 127
    b = torch.full((n, k), -128, dtype=torch.int8, device="cuda")
    sa = torch.ones(m, k // 128, device="cuda")
    sb = torch.ones(n, k // 128, device="cuda") * 2 ** -14
    for cfg in (select_int8_config("bf16", 4096), select_int8_config("bf16", 100)):
        pre, absum = _ref(a, b, sa, sb, None, 128)
        _check(_run(cfg, a, b, sa, sb, None, torch.bfloat16), pre, absum, torch.bfloat16, None, cfg.name)


def test_routing_and_views_take_one_kernel():
    assert blockwise_int8_backend("cuda", 4096) == "cutlass_sm90"
    assert blockwise_int8_backend("cuda", 16) == "cuda_kernel"
    m, n, k = 300, 264, 640
    a, b, sa, sb = _operands(m, n, k, 128, seed=5)
    bias = torch.randn(n, device="cuda").half()
    cfg = select_int8_config("f16", m, "silu")
    want = _run(cfg, a, b, sa, sb, bias, torch.float16)
    _poison(m, n, torch.float16)
    assert torch.equal(scaled_mm_blockwise_int8(a, b, sa, sb, bias, torch.float16, "silu"), want)
    # strided scales, an offset a view and a misaligned one: the same kernel (copies), the same bits
    sa_wide = torch.zeros(m, 2 * (k // 128), device="cuda")
    sa_wide[:, ::2] = sa
    big = torch.zeros(m, k + 48, dtype=torch.int8, device="cuda")
    for off in (16, 1):
        big[:, off:off + k] = a
        y = scaled_mm_blockwise_int8(big[:, off:off + k], b, sa_wide[:, ::2], sb.t().contiguous().t(), bias,
                                     torch.float16, "silu")
        assert torch.equal(y, want), off


def test_opcheck_compile_graph_no_sync_on_the_sm90_path():
    m, n, k = 64, 256, 1024
    a, b, sa, sb = _operands(m, n, k, 128, seed=9)
    bias = torch.randn(n, device="cuda").bfloat16()
    assert blockwise_int8_backend("cuda", m) == "cutlass_sm90"
    op = torch.ops.cutlass_gemm.scaled_mm_blockwise_int8.default
    torch.library.opcheck(op, (a, b, sa, sb, bias, torch.bfloat16, "silu", 128))
    eager = scaled_mm_blockwise_int8(a, b, sa, sb, bias, activation="silu")
    torch.cuda.synchronize()
    torch.cuda.set_sync_debug_mode("error")
    try:
        assert torch.equal(scaled_mm_blockwise_int8(a, b, sa, sb, bias, activation="silu"), eager)
    finally:
        torch.cuda.set_sync_debug_mode("default")
    fn = torch.compile(lambda *t: scaled_mm_blockwise_int8(*t, activation="silu"), fullgraph=True)
    assert torch.equal(fn(a, b, sa, sb, bias), eager)
    static_a = a.clone()
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        scaled_mm_blockwise_int8(static_a, b, sa, sb, bias, activation="silu")
    torch.cuda.current_stream().wait_stream(s)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        static_y = scaled_mm_blockwise_int8(static_a, b, sa, sb, bias, activation="silu")
    for seed in range(3):
        a2 = _operands(m, n, k, 128, seed=100 + seed)[0]
        static_a.copy_(a2)
        graph.replay()
        assert torch.equal(static_y, scaled_mm_blockwise_int8(a2, b, sa, sb, bias, activation="silu"))
