"""GPU (SM90): the per-block int8 GEMM through CUTLASS (kernels/cxx/blockwise_int8.hpp: int8 wgmma per 128-deep K
block, each block sum exact in int32, read as a float by I2FP and scaled into a float32 running sum), as
`scaled_mm_blockwise_int8` and `Int8BlockLinear` serve it from M = 17 with block 128. Every output element against
the float64 reference on random data with outlier scales (tolerance of tests/test_blockint8_gpu.py), outputs poisoned
first: odd M and N, one to many K blocks (both ends of the two-temporary loop), bias, fp16/bf16, every activation,
both scale_a layouts (bitwise equal), the calls that fall back (misaligned rows, N % 8, block 64) still right;
determinism; the layer's C++ call equal to the op; torch.library.opcheck on this route; torch.compile and CUDA-graph
replay. `pytest -m gpu`."""
import os
from unittest import mock

import pytest
import torch

from cutlass_gemm import quantize_per_group, scaled_mm_blockwise_int8
from cutlass_gemm.kernels.blockwise_heuristics import (S8_MIN_M, default_configs, layer_sfa_major, relayout_sfa,
                                                       select_config)
from cutlass_gemm.nn import Int8BlockLinear
from cutlass_gemm.ops import block_linear as block_linear_module
from cutlass_gemm.ops import blockwise as bops
from cutlass_gemm.ops.blockwise_int8 import CUTLASS_ENV, sm90_route
from gpu_helpers import replays_match_eager, without_sync
from test_blockint8_gpu import _check, _operands, _poison, _ref

pytestmark = [pytest.mark.gpu,
              pytest.mark.skipif(not torch.cuda.is_available() or torch.cuda.get_device_capability() != (9, 0),
                                 reason="the int8 CUTLASS path is SM90's")]


def _run(m, n, k, out_dtype=torch.bfloat16, bias=True, activation=None, seed=0, major="k"):
    a, b, sa, sb = _operands(m, n, k, 128, seed=seed)
    if major == "mn":
        sa = sa.t().contiguous().t()
    assert sm90_route(a, b, sa, sb, None, 128) is not None and sm90_route(a, b, sa, sb, None, 128)[2] == major
    g = torch.Generator("cuda").manual_seed(seed)
    bias_t = (torch.randn(n, device="cuda", generator=g) * 0.1).to(out_dtype) if bias else None
    _poison(m, n, out_dtype)
    y = scaled_mm_blockwise_int8(a, b, sa, sb, bias_t, out_dtype=out_dtype, activation=activation)
    pre, absum = _ref(a, b, sa, sb, bias_t, 128)
    _check(y, pre, absum, out_dtype, activation, f"M={m} N={n} K={k} {out_dtype} {activation} {major}")
    return y, (a, b, sa, sb, bias_t)


#: (M, N, K) of test_matches_float64; the last two make enough 256-row tiles for the per-atom kernel (WIDE_MIN_TILES),
#: one of them a single K block, (1000, 520, 1152) and (2049, 264, 2048) too few (the 128-row tile serves them).
SHAPES = [(17, 8, 128), (64, 264, 256), (129, 1032, 384), (300, 136, 640), (1000, 520, 1152), (2049, 264, 2048),
          (517, 8200, 128), (1029, 4104, 640)]
#: test_activations_and_scale_layouts: the pingpong tile, and the per-atom one ("mn" needs M % 4 == 0).
ACT_SHAPES = [(96, 392, 768), (1024, 4104, 768)]
ACTIVATIONS = [None, "relu", "relu6", "gelu_tanh", "silu"]


@pytest.mark.parametrize("m,n,k", SHAPES)
@pytest.mark.parametrize("out_dtype", [torch.bfloat16, torch.float16])
def test_matches_float64(m, n, k, out_dtype):
    atom = select_config("bf16", m, ab="s8", n=n).mainloop == "atom"
    assert atom == ((m, n, k) in SHAPES[-2:])  # the shapes reach the kernels named above
    y, (a, b, sa, sb, bias) = _run(m, n, k, out_dtype, bias=m % 2 == 1, seed=m + n + k)
    assert torch.equal(y, scaled_mm_blockwise_int8(a, b, sa, sb, bias, out_dtype=out_dtype))  # deterministic


@pytest.mark.parametrize("m,n,k", ACT_SHAPES)
@pytest.mark.parametrize("activation", ACTIVATIONS)
def test_activations_and_scale_layouts(m, n, k, activation):
    y_k, _ = _run(m, n, k, activation=activation, seed=5)
    y_mn, _ = _run(m, n, k, activation=activation, seed=5, major="mn")
    assert torch.equal(y_k, y_mn)  # the same kernel arithmetic whichever layout the scales come in


def test_per_atom_and_overlapped_kernels_give_the_same_bits():
    """The 256 x 128 per-atom kernel and the 128 x 128 overlapped one promote each element and K block with the same
    I2FP, FMUL and FFMA, in the same K order: their outputs are bitwise equal (and each matches float64 above)."""
    m, n, k = 1029, 4104, 640
    a, b, sa, sb = _operands(m, n, k, 128, seed=21)
    assert select_config("bf16", m, ab="s8", n=n).mainloop == "atom"
    y = scaled_mm_blockwise_int8(a, b, sa, sb)
    narrow = select_config("bf16", m, ab="s8", n=n).replace(tile=(128, 128, 128), cluster=(2, 1, 1), mainloop="overlap")
    with mock.patch.object(bops, "select_config", lambda *a_, **kw: narrow):
        bops._plans.clear()
        try:
            y_ovl = scaled_mm_blockwise_int8(a, b, sa, sb)
        finally:
            bops._plans.clear()
    assert torch.equal(y, y_ovl)


@pytest.mark.parametrize("cfg", [c for c in default_configs() if c.ab == "s8"], ids=lambda c: c.name)
def test_every_default_kernel_every_element(cfg):
    """Each int8 kernel of the blockwise family's default set forced for the call, on the output dtype, activation
    and scale_a layout it was built for (session 58's suite run: 5 of them ran in no test)."""
    out_dtype = {"bf16": torch.bfloat16, "f16": torch.float16}[cfg.out_dtype]
    act = None if cfg.activation == "none" else cfg.activation
    with mock.patch.object(bops, "select_config", lambda *a_, **kw: cfg):
        bops._plans.clear()
        try:
            for m, n, k in ((300, 136, 640), (1024, 4104, 768)):  # M % 4 == 0 for the column-major scale_a
                _run(m, n, k, out_dtype, activation=act, seed=m + k, major=cfg.sfa_major)
        finally:
            bops._plans.clear()


def test_opcheck_on_the_cutlass_route():
    """torch.library.opcheck of the op on a call the CUTLASS kernel serves (M >= 17, block 128): schema, fake impl
    against the real call, and the registrations."""
    a, b, sa, sb = _operands(48, 136, 512, 128, seed=11)
    assert sm90_route(a, b, sa, sb, None, 128) is not None
    bias = torch.randn(136, device="cuda").bfloat16()
    torch.library.opcheck(torch.ops.cutlass_gemm.scaled_mm_blockwise_int8.default,
                          (a, b, sa, sb, bias, torch.bfloat16, "silu", 128))


def test_large_m_against_the_tiled_kernel():
    """2048 x 4096 x 4096 (32 K blocks): float64 on a row sample, and the extension's mma.sync kernel on the same call
    (CUTLASS_GEMM_BI8_CUTLASS=0) within the tolerance of each."""
    m, n, k = 2048, 4096, 4096
    a, b, sa, sb = _operands(m, n, k, 128, seed=7)
    y = scaled_mm_blockwise_int8(a, b, sa, sb)
    rows = torch.arange(0, m, 61, device="cuda")
    pre, absum = _ref(a[rows], b, sa[rows], sb, None, 128)
    _check(y[rows], pre, absum, torch.bfloat16, None, "2048x4096x4096 sampled rows")
    with mock.patch.dict(os.environ, {CUTLASS_ENV: "0"}):
        assert sm90_route(a, b, sa, sb, None, 128) is None
        y_tiled = scaled_mm_blockwise_int8(a, b, sa, sb)
    assert ((y.float() - y_tiled.float()).abs() <= 2 ** -6 * y_tiled.float().abs() + 1e-3).all()


def test_cutlass_route_serves_without_the_extension():
    """The CUTLASS kernels are libraries of their own: without the torch extension (not built, JIT off) they still
    serve M >= 17 (no fallback warning, every element against float64, the same bits as with it); M <= 16 (the
    extension's GEMV) takes the torch reference, announced."""
    import warnings
    from cutlass_gemm.ops import blockwise_int8 as bi8
    m, n, k = 300, 1032, 640
    a, b, sa, sb = _operands(m, n, k, 128, seed=31)
    pre, absum = _ref(a, b, sa, sb, None, 128)
    want = scaled_mm_blockwise_int8(a, b, sa, sb)
    with mock.patch.object(bi8.extension, "load", lambda: None):
        with warnings.catch_warnings():
            warnings.simplefilter("error", bi8.BlockwiseInt8FallbackWarning)
            _poison(m, n, torch.bfloat16)
            got = scaled_mm_blockwise_int8(a, b, sa, sb)
        with pytest.warns(bi8.BlockwiseInt8FallbackWarning):
            small = scaled_mm_blockwise_int8(a[:16], b, sa[:16], sb)
    _check(got, pre, absum, torch.bfloat16, None, "no extension, M = 300")
    assert torch.equal(got, want)
    _check(small, pre[:16], absum[:16], torch.bfloat16, None, "no extension, M = 16")


def test_calls_it_does_not_serve_fall_back_right():
    m, n, k = 40, 264, 640
    a, b, sa, sb = _operands(m, n, k, 128, seed=9)
    pre, absum = _ref(a, b, sa, sb, None, 128)
    big = torch.zeros(m, k + 16, dtype=torch.int8, device="cuda")
    big[:, 1:k + 1] = a  # rows not 16-byte aligned: the extension's kernel (it copies)
    assert sm90_route(big[:, 1:k + 1], b, sa, sb, None, 128) is None
    _check(scaled_mm_blockwise_int8(big[:, 1:k + 1], b, sa, sb), pre, absum, torch.bfloat16, None, "misaligned a")
    assert sm90_route(a[:S8_MIN_M - 1], b, sa[:S8_MIN_M - 1], sb, None, 128) is None  # decode M: the GEMV
    a2, b2, sa2, sb2 = _operands(m, 100, k, 128, seed=10)  # N % 8 != 0: no TMA store
    assert sm90_route(a2, b2, sa2, sb2, None, 128) is None
    pre2, absum2 = _ref(a2, b2, sa2, sb2, None, 128)
    _check(scaled_mm_blockwise_int8(a2, b2, sa2, sb2), pre2, absum2, torch.bfloat16, None, "N = 100")


#: test_layer_fast_path_compile_and_graph's leading dims: M = 30 and 66 (the pingpong tile, row-major and column-major
#: activation scales: SFA_MN_MIN_M_S8) and M = 200 (the 128 x 128 tile, column-major).
LAYER_LEADS = [(2, 15), (2, 33), (2, 100)]


@pytest.mark.parametrize("lead", LAYER_LEADS)
def test_layer_fast_path_compile_and_graph(lead):
    torch.manual_seed(3)
    lin = torch.nn.Linear(1024, 520, device="cuda", dtype=torch.bfloat16)
    layer = Int8BlockLinear.from_float(lin, block_size=128)
    x = torch.randn(*lead, 1024, device="cuda").bfloat16()
    m = x.numel() // 1024
    major = layer_sfa_major(m, "s8")
    y = layer(x)
    q, s = quantize_per_group(x.reshape(-1, 1024), 128, torch.int8, column_major_scale=major == "mn")
    op = scaled_mm_blockwise_int8(q, layer.weight, s, layer.weight_scale, layer.bias)
    assert torch.equal(y.reshape(-1, 520), op)  # the layer's one C++ call runs the op's kernel on the same values
    ref = lin(x).float()
    assert ((y.float() - ref).norm() / ref.norm()) < 0.02
    # the Python path (the layer op's own, when the C++ call declines) asks the quantizer for the layout the C++ call does
    asked = []
    real_quantize = block_linear_module.quantize_per_group

    def spy(*args, **kwargs):
        asked.append(kwargs.get("column_major_scale", False))
        return real_quantize(*args, **kwargs)
    with mock.patch.object(block_linear_module, "block_linear_fast", return_value=None), \
            mock.patch.object(block_linear_module, "quantize_per_group", spy):
        py = layer(x)
    assert asked == [major == "mn"] and torch.equal(py, y)
    assert torch.equal(without_sync(lambda: layer(x)), y)
    assert torch.equal(torch.compile(layer, fullgraph=True)(x), y)
    replays_match_eager(layer, x.clone(),
                        [torch.randn(*lead, 1024, device="cuda", generator=torch.Generator("cuda").manual_seed(seed))
                         .bfloat16() for seed in range(2)])


def kernels_needed():
    """The int8 kernels these tests run (so that a session can build exactly those before running them)."""
    def pick(out, m, n, k, act="none", major="k"):
        if major == "k" and relayout_sfa(m, k, "s8", n):
            major = "mn"
        return select_config(out, m, act, major, "s8", n).name
    names = {pick(out, m, n, k) for m, n, k in SHAPES for out in ("bf16", "f16")}
    names |= {pick("bf16", m, n, k, act or "none", major) for m, n, k in ACT_SHAPES for act in ACTIVATIONS
              for major in ("k", "mn")}
    names |= {pick("bf16", 48, 136, 512, "silu"), pick("bf16", 2048, 4096, 4096), pick("bf16", 40, 264, 640),
              *(pick("bf16", m, 520, 1024, major=layer_sfa_major(m, "s8")) for m in (a * b for a, b in LAYER_LEADS)),
              select_config("bf16", 1029, ab="s8", n=4104).replace(tile=(128, 128, 128), cluster=(2, 1, 1),
                                                                  mainloop="overlap").name}
    names |= {c.name for c in default_configs() if c.ab == "s8"}  # test_every_default_kernel_every_element
    return sorted(names)


if __name__ == "__main__":
    print("\n".join(kernels_needed()))
