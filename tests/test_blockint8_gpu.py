"""GPU: the per-block int8 GEMM kernel (runtime/csrc/bi8_gemm.cuh) through `scaled_mm_blockwise_int8` and
`Int8BlockLinear`: every output element against a float64 reference on random data (odd / unaligned shapes,
M across the small-M, medium and large tiles, split-K, both block sizes, fp16/bf16, bias, every activation,
outlier blocks, strided scales), outputs poisoned with NaN first; determinism; opcheck,
torch.compile(fullgraph=True), CUDA-graph replay, no host sync; typed device errors. `pytest -m gpu`.

Tolerance per element: |y - ref| <= u * |ref| + 2e-6 * sum_kb |term_kb| + 1e-3 (u = 2^-7 bf16, 2^-10
fp16: the one output rounding with margin; the second term covers fp32 accumulation across blocks with
1e4-spread scales; gelu_tanh adds 1e-3 * |pre-activation| for the hardware tanh.approx)."""
import pytest
import torch

from cutlass_gemm import scaled_mm_blockwise_int8
from cutlass_gemm.errors import InvalidArgumentError
from cutlass_gemm.nn import Int8BlockLinear, quantize_model
from cutlass_gemm.ops import blockwise_int8_backend
from cutlass_gemm.runtime import extension

from gpu_helpers import eager_without_sync, replays_match_eager

pytestmark = pytest.mark.gpu
MS = (1, 5, 16, 17, 64, 65, 128, 300)
SHAPES = [(192, 384), (100, 192), (320, 640), (72, 1152), (136, 2048)]  # N odd multiples / tails; K % 128 == 64


def _operands(m, n, k, block, seed, device="cuda", outliers=True):
    g = torch.Generator().manual_seed(seed)
    a = torch.randint(-127, 128, (m, k), generator=g, dtype=torch.int8)
    b = torch.randint(-127, 128, (n, k), generator=g, dtype=torch.int8)
    sa = torch.rand(m, k // block, generator=g) * 1e-2 + 1e-3
    sb = torch.rand(n, k // block, generator=g) * 1e-3 + 1e-4
    if outliers:
        sb[::7, 0] *= 1e4
        sa[::3, -1] *= 1e-4
    return tuple(t.to(device) for t in (a, b, sa, sb))


def _ref(a, b, sa, sb, bias, block):
    """float64: per-block exact integer sums, their weighted sum, |terms| summed for the tolerance."""
    m, k = a.shape
    y = torch.zeros(m, b.shape[0], dtype=torch.float64, device=a.device)
    absum = torch.zeros_like(y)
    for kb in range(k // block):
        sl = slice(kb * block, (kb + 1) * block)
        t = (a[:, sl].double() @ b[:, sl].double().t()) * sa[:, kb:kb + 1].double() * sb[:, kb].double()[None]
        y += t
        absum += t.abs()
    return (y if bias is None else y + bias.double()), absum


def _act64(x, activation):
    f = {None: lambda v: v, "relu": torch.relu, "relu6": lambda v: v.clamp(0, 6),
         "gelu_tanh": lambda v: 0.5 * v * (1 + torch.tanh(0.7978845608028654 * (v + 0.044715 * v ** 3))),
         "silu": lambda v: v * torch.sigmoid(v)}
    return f[activation](x)


def _check(y, pre, absum, out_dtype, activation, what):
    u = 2 ** -7 if out_dtype == torch.bfloat16 else 2 ** -10
    ref = _act64(pre, activation)
    tol = u * ref.abs() + 2e-6 * absum + 1e-3
    if activation == "gelu_tanh":
        tol = tol + 1e-3 * pre.abs()
    err = (y.double() - ref).abs()
    bad = ~(err <= tol)
    assert not bad.any(), f"{what}: {int(bad.sum())} elements off, first at {bad.nonzero()[0].tolist()}"


def _poison(m, n, dtype):
    t = torch.full((m * n,), float("nan"), dtype=dtype, device="cuda")
    del t


@pytest.mark.parametrize("block", [64, 128])
@pytest.mark.parametrize("out_dtype", [torch.bfloat16, torch.float16])
@pytest.mark.parametrize("n,k", SHAPES)
def test_matches_float64(block, out_dtype, n, k):
    if k % block:
        pytest.skip("K not a multiple of the block")
    for i, m in enumerate(MS):
        a, b, sa, sb = _operands(m, n, k, block, seed=m + n + k + block)
        bias = (torch.randn(n, device="cuda") * 0.1).to(out_dtype) if i % 2 else None
        _poison(m, n, out_dtype)
        y = scaled_mm_blockwise_int8(a, b, sa, sb, bias, out_dtype=out_dtype, block_size=block)
        assert y.shape == (m, n) and y.dtype == out_dtype
        pre, absum = _ref(a, b, sa, sb, bias, block)
        _check(y, pre, absum, out_dtype, None, f"M={m} N={n} K={k} B={block} {out_dtype}")


@pytest.mark.parametrize("activation", [None, "relu", "relu6", "gelu_tanh", "silu"])
def test_activations_split_k_and_strided_scales(activation):
    ext = extension.load()
    for m, n, k, block in [(16, 320, 4096, 128), (3, 136, 1344, 64), (200, 264, 768, 128)]:
        a, b, sa, sb = _operands(m, n, k, block, seed=m * 7 + k)
        sb = sb * 300
        bias = torch.randn(n, device="cuda").bfloat16()
        pre, absum = _ref(a, b, sa, sb, bias, block)
        y = scaled_mm_blockwise_int8(a, b, sa, sb, bias, activation=activation, block_size=block)
        _check(y, pre, absum, torch.bfloat16, activation, f"{activation} M={m}")
        # forced splits through the extension directly: same values within tolerance, each run bitwise equal
        code = {None: 0, "relu": 1, "relu6": 2, "gelu_tanh": 3, "silu": 4}[activation]
        for split in (1, 3, 7):
            ys = ext.bi8_gemm(a, b, sa, sb, bias, torch.bfloat16, block, code, split)
            _check(ys, pre, absum, torch.bfloat16, activation, f"{activation} M={m} split={split}")
            assert torch.equal(ys, ext.bi8_gemm(a, b, sa, sb, bias, torch.bfloat16, block, code, split))
        # a transposed weight-scale table and a strided scale_a view: no copy, same bits
        sa_wide = torch.zeros(m, 2 * (k // block), device="cuda")
        sa_wide[:, ::2] = sa
        y2 = scaled_mm_blockwise_int8(a, b, sa_wide[:, ::2], sb.t().contiguous().t(), bias, activation=activation,
                                      block_size=block)
        assert torch.equal(y, y2)


def test_target_shapes_small_m_split_and_determinism():
    ext = extension.load()
    for n, k in [(4096, 4096), (8192, 8192), (4096, 14336)]:
        a, b, sa, sb = _operands(16, n, k, 128, seed=n + k, outliers=False)
        y = scaled_mm_blockwise_int8(a, b, sa, sb)
        pre, absum = _ref(a, b, sa, sb, None, 128)
        _check(y, pre, absum, torch.bfloat16, None, f"16x{n}x{k}")
        assert torch.equal(y, scaled_mm_blockwise_int8(a, b, sa, sb))
        bm, bn, splits, ctas = ext.bi8_plan_info(16, n, k, 128, True, 0)
        assert bm == 16 and ctas >= torch.cuda.get_device_properties(0).multi_processor_count


def test_large_m_and_misaligned_views():
    a, b, sa, sb = _operands(2048, 264, 640, 64, seed=11)
    pre, absum = _ref(a, b, sa, sb, None, 64)
    y = scaled_mm_blockwise_int8(a, b, sa, sb, block_size=64)
    _check(y, pre, absum, torch.bfloat16, None, "2048x264x640")
    big = torch.zeros(2048, 640 + 48, dtype=torch.int8, device="cuda")
    big[:, 16:656] = a  # row stride 688 (16-byte multiple), offset 16: used in place
    assert torch.equal(scaled_mm_blockwise_int8(big[:, 16:656], b, sa, sb, block_size=64), y)
    big[:, 1:641] = a  # offset 1: copied once, same result
    assert torch.equal(scaled_mm_blockwise_int8(big[:, 1:641], b, sa, sb, block_size=64), y)
    assert scaled_mm_blockwise_int8(a[:0], b, sa[:0], sb, block_size=64).shape == (0, 264)


def test_backend_opcheck_compile_graph_no_sync():
    assert blockwise_int8_backend("cuda") == "cuda_kernel"
    a, b, sa, sb = _operands(5, 96, 512, 128, seed=3)
    bias = torch.randn(96, device="cuda").half()
    torch.library.opcheck(torch.ops.cutlass_gemm.scaled_mm_blockwise_int8.default,
                          (a, b, sa, sb, bias, torch.float16, "silu", 128))
    torch.manual_seed(0)
    lin = torch.nn.Linear(8192, 256, device="cuda", dtype=torch.bfloat16)  # N 256, K 8192: split-K at M = 1
    layer = Int8BlockLinear.from_float(lin, block_size=128)
    x = torch.randn(1, 8192, device="cuda").bfloat16()
    eager = eager_without_sync(layer, x)
    ref = lin(x).float()
    assert ((eager.float() - ref).norm() / ref.norm()) < 0.02
    compiled = torch.compile(layer, fullgraph=True)
    assert torch.equal(compiled(x), eager)
    # three replays: they reuse the split-K counters, which must be back at zero each time
    replays_match_eager(layer, x.clone(), [torch.randn(1, 8192, device="cuda").bfloat16() for _ in range(3)])


def test_layer_cpu_vs_gpu_and_quantize_model():
    torch.manual_seed(1)
    lin = torch.nn.Linear(512, 192).half()
    on_cpu = Int8BlockLinear.from_float(lin, block_size=64).to("cuda")
    on_gpu = Int8BlockLinear.from_float(lin.cuda(), block_size=64)
    for name, buf in on_cpu.state_dict().items():
        assert torch.equal(buf, on_gpu.state_dict()[name]), name
    x = torch.randn(4, 512, device="cuda").half()
    y = on_gpu(x)
    y_cpu = on_cpu.cpu()(x.cpu())  # the CPU reference path of the same layer
    assert ((y.float().cpu() - y_cpu.float()).abs() <= 2 ** -9 * y_cpu.float().abs() + 1e-3).all()
    model = torch.nn.Sequential(torch.nn.Linear(256, 128), torch.nn.Linear(128, 40)).cuda().bfloat16()
    report = quantize_model(model, "w8a8-int8-block128")
    assert report.quantized == ["0", "1"]
    assert model(torch.randn(2, 256, device="cuda").bfloat16()).shape == (2, 40)


def test_device_errors_name_the_argument():
    a, b, sa, sb = _operands(2, 64, 256, 128, seed=4)
    for kwargs, arg in [(dict(b=b.cpu()), "b"), (dict(scale_a=sa.cpu()), "scale_a"), (dict(scale_b=sb.cpu()), "scale_b"),
                        (dict(bias=torch.zeros(64).bfloat16()), "bias")]:
        call = dict(a=a, b=b, scale_a=sa, scale_b=sb)
        call.update(kwargs)
        with pytest.raises(InvalidArgumentError) as e:
            scaled_mm_blockwise_int8(**call)
        assert e.value.argument == arg
