"""GPU: the eager call of the per-block layers (`Int8BlockLinear`, `Fp8BlockLinear`) from one C++ call
(ops/block_linear.py -> the extension's `block_linear_fast`: per-group quantization + the block-scaled GEMV at
M <= 16; above, the per-block int8 kernel or the CUTLASS blockwise fp8 kernel the op would pick, launched from C++).
Every output element against float64 (computed from the quantizer's own q and scales, so the check covers the
kernels' arithmetic), outputs poisoned with NaN first; the same bits as the layer's Python path
(the fast path off) over M 1..1100 (each GEMV / CUTLASS row, both activation-scale layouts), leading dimensions,
bf16 / fp16 / fp32 inputs, bias or not, every activation; the fast path is taken (a spy on the extension call) and
declines what it must (fp8 above M 16 without a looked-up kernel, a strided last dimension, a misaligned bias, wrong
scale shapes), those calls still served correctly by the Python path; no host sync; CUDA-graph capture and replay.
`pytest -m gpu tests/test_block_linear_fast_gpu.py`.
"""
import pytest
import torch

import cutlass_gemm
from cutlass_gemm.kernels import activations
from cutlass_gemm.nn import Fp8BlockLinear, Int8BlockLinear
from cutlass_gemm.ops import block_linear
from cutlass_gemm.runtime import extension
from gpu_helpers import capture, without_sync
from test_blockint8_gpu import _check, _poison, _ref

pytestmark = pytest.mark.gpu
ACTS = (None,) + activations.PUBLIC


def _ext():
    ext = extension.load()
    if ext is None or not hasattr(ext, "block_linear_fast"):
        pytest.skip("extension without block_linear_fast")
    return ext


def _layer(kind, k, n, bias, act, dtype, seed):
    torch.manual_seed(seed)
    lin = torch.nn.Linear(k, n, bias=bias).cuda().to(dtype if dtype != torch.float32 else torch.bfloat16)
    if kind == "fp8":
        if torch.cuda.get_device_capability() != (9, 0):
            pytest.skip("Fp8BlockLinear is SM90 only")
        return Fp8BlockLinear.from_float(lin, activation=act), 128
    block = int(kind[4:])
    return Int8BlockLinear.from_float(lin, block_size=block, activation=act), block


def _float64(layer, x, block, fp8):
    """act(dequantized quant(x) @ dequantized W^T + bias) in float64, from the quantizer's own q and scales."""
    n, k = layer.out_features, layer.in_features
    q, s = cutlass_gemm.quantize_per_group(x.reshape(-1, k), block, torch.float8_e4m3fn if fp8 else torch.int8)
    sb = layer.weight_scale.repeat_interleave(128, 0)[:n] if fp8 else layer.weight_scale
    return _ref(q, layer.weight, s, sb, layer.bias, block)


class _Spy:
    """Counts the extension's block_linear_fast calls that returned a tensor (the fast path served them)."""

    def __init__(self, monkeypatch):
        self.served = 0
        ext = _ext()
        real = ext.block_linear_fast

        def spy(*args):
            out = real(*args)
            self.served += out is not None
            return out

        self.ext = type("E", (), {"block_linear_fast": staticmethod(spy)})()
        self.on(monkeypatch)

    def on(self, monkeypatch):
        monkeypatch.setattr(block_linear, "_ext", self.ext)

    def off(self, monkeypatch):
        monkeypatch.setattr(block_linear, "_ext", False)


@pytest.mark.parametrize("kind", ["fp8", "int8128", "int864"])
@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16, torch.float32])
def test_fast_path_every_element_vs_float64_and_same_bits_as_the_python_path(kind, dtype, monkeypatch):
    spy = _Spy(monkeypatch)
    # leading dims: M = 1, 3, 8, 16, 12 (GEMV); 17, 200, 600, 1100 (fp8: the 64x128 pingpong, 128x128 and 256x128
    # rows, the last two with column-major activation scales; int8: the tiled per-block kernel)
    shapes = [(1,), (3,), (2, 4), (16,), (2, 3, 2), (17,), (2, 100), (600,), (1100,)]
    n, k = 392, 2304  # N not a multiple of 128 (a partial weight block row), K / 128 odd
    for i, lead in enumerate(shapes):
        act = ACTS[i % len(ACTS)]
        layer, block = _layer(kind, k, n, bool(i % 2), act, dtype, seed=i)
        x = torch.randn(*lead, k, device="cuda", dtype=dtype)
        out_dtype = layer.dtype
        m = x.numel() // k
        _poison(m, n, out_dtype)
        before = spy.served
        y = layer(x)
        assert spy.served == before + 1, f"{kind} {lead}: the fast path did not serve the call"
        assert y.shape == (*lead, n) and y.dtype == dtype
        pre, absum = _float64(layer, x, block, kind == "fp8")
        what = f"{kind} {dtype} {lead} bias={layer.bias is not None} {act}"
        _check(y.reshape(m, n).to(out_dtype), pre, absum, out_dtype, act, what)
        spy.off(monkeypatch)  # the layer's Python path (what CUTLASS_GEMM_FAST_PATH=0 at start-up gives)
        _poison(m, n, out_dtype)
        y_py = layer(x)
        spy.on(monkeypatch)
        assert spy.served == before + 1, "the Python path took the fast path"
        assert torch.equal(y, y_py), what


@pytest.mark.parametrize("kind", ["fp8", "int8128"])
def test_fast_path_declines_what_it_cannot_serve_and_the_python_path_serves_it(kind, monkeypatch):
    spy = _Spy(monkeypatch)
    layer, block = _layer(kind, 1024, 264, True, None, torch.bfloat16, seed=7)
    ext = _ext()
    fp8 = kind == "fp8"
    sb_shift = 7 if fp8 else 0
    x = torch.randn(17, 1024, device="cuda", dtype=torch.bfloat16)
    call = lambda x_, w=layer.weight, ws=layer.weight_scale, b=layer.bias, od=torch.bfloat16: ext.block_linear_fast(
        x_, w, ws, b, block, sb_shift, od, 0, 16, 0, 0, False, 0)
    assert call(x[:16]) is not None
    # M = 17: int8 runs the extension's tiled kernel; fp8 needs the CUTLASS launcher the caller looks up (0: none)
    assert (call(x) is None) == fp8
    wide = torch.randn(4, 2048, device="cuda", dtype=torch.bfloat16)
    assert call(wide[:, ::2]) is None  # last stride 2
    assert call(x[:4].to(torch.float64)) is None
    assert call(x[:4], od=torch.float32) is None
    assert call(x[:4], ws=layer.weight_scale[:-1]) is None
    assert call(x[:4], w=layer.weight.to(torch.float16)) is None
    store = torch.zeros(layer.out_features + 1, device="cuda", dtype=torch.bfloat16)
    assert call(x[:4], b=store[1:]) is None  # 2-byte offset: not 16-byte aligned
    assert call(x[:4].cpu()) is None
    # the layer serves each declined case through its Python path, same numbers as a fresh contiguous input
    for xi in (wide[:, ::2],):
        served = spy.served
        y = layer(xi)
        assert spy.served == served
        m = xi.numel() // 1024
        pre, absum = _float64(layer, xi.contiguous(), block, fp8)
        _check(y.reshape(m, -1), pre, absum, torch.bfloat16, None, f"{kind} declined {tuple(xi.shape)}")


@pytest.mark.parametrize("m", [5, 40])
@pytest.mark.parametrize("kind", ["fp8", "int864"])
def test_fast_path_no_host_sync_and_cuda_graph(kind, m, monkeypatch):
    spy = _Spy(monkeypatch)
    layer, _ = _layer(kind, 2048, 392, True, "silu", torch.bfloat16, seed=3)
    x = torch.randn(m, 2048, device="cuda", dtype=torch.bfloat16)
    layer(x)  # the first call plans (fp8 above M 16: looks up the CUTLASS kernel)
    served = spy.served
    y = layer(x)
    assert torch.equal(without_sync(lambda: layer(x)), y)
    static_x = x.clone()
    graph, static_y = capture(layer, static_x)
    x2 = torch.randn_like(x)
    static_x.copy_(x2)
    graph.replay()
    assert torch.equal(static_y, layer(x2))
    assert spy.served > served  # the fast path served the calls timed for syncs and captured


PAD_MS = (100, 132, 200, 600)


@pytest.mark.parametrize("m", PAD_MS)
def test_fp8_whole_tile_rows_same_bits_as_unpadded(m, monkeypatch):
    """Fp8BlockLinear quantizes into whole M tiles (kernels/blockwise_heuristics.py padded_rows) and keeps the first M rows: the
    C++ call and the Python path give the bits of the unpadded call (same tile; the scale layout of the padded rows)."""
    from cutlass_gemm.kernels import blockwise_heuristics as blockwise
    spy = _Spy(monkeypatch)
    layer, _ = _layer("fp8", 2304, 392, True, None, torch.bfloat16, seed=m)
    x = torch.randn(m, 2304, device="cuda", dtype=torch.bfloat16)
    assert blockwise.padded_rows(m, "e4m3", 392) > m
    before = spy.served
    y = layer(x)
    assert spy.served == before + 1 and y.shape == (m, 392) and y.is_contiguous()
    spy.off(monkeypatch)
    y_py = layer(x)
    spy.on(monkeypatch)
    monkeypatch.setattr(blockwise, "PAD_ROWS_E4M3", (1, 0))
    assert blockwise.padded_rows(m, "e4m3", 392) == m
    y_plain = layer(x)
    assert torch.equal(y, y_py) and torch.equal(y, y_plain)


def kernels_needed():
    """The CUTLASS kernels the tiled rows of these tests run (so that a session can build exactly those first): the
    fp8 blockwise and SM90 per-block int8 kernels of test_fast_path_every_element_vs_float64_and_same_bits_as_the_
    python_path, whose Python path asks the activation-scale layout its C++ call does (fp8: at the whole-tile rows it
    runs on), and of test_fp8_whole_tile_rows_same_bits_as_unpadded, padded and not."""
    from cutlass_gemm.kernels.blockwise_heuristics import layer_sfa_major, padded_rows, select_config
    shapes = [(1,), (3,), (2, 4), (16,), (2, 3, 2), (17,), (2, 100), (600,), (1100,)]
    names = set()
    for i, lead in enumerate(shapes):
        m = 1
        for d in lead:
            m *= d
        if m <= 16:
            continue
        act = activations.canonical(ACTS[i % len(ACTS)])
        for ab in ("e4m3", "s8"):
            rows = padded_rows(m, ab, 392)
            for out in ("bf16", "f16"):
                names.add(select_config(out, rows, act, layer_sfa_major(rows, ab), ab, 392).name)
    for m in PAD_MS:
        for rows in (m, padded_rows(m, "e4m3", 392)):
            names.add(select_config("bf16", rows, "none", layer_sfa_major(rows), "e4m3", 392).name)
    rows = padded_rows(40, "e4m3", 392)  # test_fast_path_no_host_sync_and_cuda_graph[fp8-40]
    names.add(select_config("bf16", rows, "silu", layer_sfa_major(rows), "e4m3", 392).name)
    return sorted(names)


if __name__ == "__main__":
    print("\n".join(kernels_needed()))
