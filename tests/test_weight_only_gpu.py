"""GPU: the weight-only small-M kernel (runtime/csrc/wo_gemm.cuh) against a float64 matmul with the
dequantized weight, for every format x group x dtype x M (1..64 on the kernel, 65 and 200 on its row blocks: the
shapes are narrow) on odd-but-allowed shapes, the dequantize fallback on a wide layer, the target shapes (split-K), strided / misaligned / batched x,
act-order, bias; opcheck, torch.compile(fullgraph=True), CUDA-graph replay, no host sync, determinism,
typed errors. Run with `pytest -m gpu`.

Tolerance: per output row, ||y - ref|| / ||ref|| <= 1e-2. The kernel rounds each dequantized weight
s * (q - z) once to fp16/bf16 (relative error <= 2^-11 / 2^-8, random in sign), accumulates in fp32
(K * 2^-24, negligible) and rounds the output once: normwise that is about sqrt(2) * u / sqrt(3)
(~3e-3 for bf16, u = 2^-8; ~4e-4 for fp16), so 1e-2 leaves a 3x margin for bf16 and catches any
misplaced element, column or row (those give errors of order 1)."""
import warnings

import pytest
import torch

from cutlass_gemm.errors import InvalidArgumentError
from cutlass_gemm.nn import WeightOnlyLinear, quantize_model
from cutlass_gemm.ops import WeightOnlyFallbackWarning, weight_only_backend, weight_only_linear
from cutlass_gemm.quant import prepack, quantize_weight_only, unpack
from cutlass_gemm.runtime import extension

from gpu_helpers import eager_without_sync, replays_match_eager

pytestmark = pytest.mark.gpu
MS = (1, 3, 16, 17, 33, 64, 65, 200)
FORMATS = [(bits, group, zp) for bits in (4, 8) for group in (None, 32, 64, 128) for zp in (False, True)]
SHAPES = [(96, 320), (256, 1152), (160, 2048)]  # N % 128 != 0, K % 256 != 0; long K (split-K)


def _packed(n, k, bits, group, zp, dtype, seed=0, device="cuda"):
    g = torch.Generator().manual_seed(seed)
    w = torch.randn(n, k, generator=g) * torch.logspace(-1, 0, n).unsqueeze(1)
    return prepack(quantize_weight_only(w, bits, group, zero_point=zp, scale_dtype=dtype), device=device)


def _poison(numel, dtype):
    """Fill the caching allocator's next block of this size with NaN, so an output element the kernel
    forgets to write shows up."""
    t = torch.full((numel,), float("nan"), dtype=dtype, device="cuda")
    del t


def _ref(x, p, bias=None, w=None):
    w = unpack(p).dequantize(torch.float64) if w is None else w
    y = x.reshape(-1, p.k).double() @ w.t()
    return y if bias is None else y + bias.double()


def _check(y, ref, what, tol=1e-2):
    y2 = y.reshape(ref.shape).double()
    assert torch.isfinite(y2).all(), f"{what}: non-finite output"
    err = ((y2 - ref).norm(dim=1) / ref.norm(dim=1).clamp_min(1e-30)).max().item()
    assert err <= tol, f"{what}: row relative error {err:.3g}"


@pytest.mark.parametrize("bits,group,zp", FORMATS)
@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
@pytest.mark.parametrize("n,k", SHAPES)
def test_matches_float64(bits, group, zp, dtype, n, k):
    if group and k % group:
        k += group - k % group
    p = _packed(n, k, bits, group, zp, dtype, seed=n + k + bits)
    bias = torch.randn(n, device="cuda").to(dtype)
    for m in MS:
        x = torch.randn(m, k, device="cuda").to(dtype)
        b = bias if m % 2 else None
        _poison(m * n, dtype)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", WeightOnlyFallbackWarning)
            y = weight_only_linear(x, p, b)
        assert y.shape == (m, n) and y.dtype == dtype
        _check(y, _ref(x, p, b), f"int{bits} g{group} zp={zp} {dtype} M={m} N={n} K={k}")


@pytest.mark.parametrize("bits,group", [(4, 128), (8, None)])
@pytest.mark.parametrize("n,k", [(8192, 8192), (28672, 4096), (4096, 14336)])
def test_target_shapes_and_determinism(bits, group, n, k):
    p = _packed(n, k, bits, group, False, torch.bfloat16, seed=1)
    ext = extension.load()
    w64 = unpack(p).dequantize(torch.float64)
    for m in (1, 4, 16, 64):
        x = torch.randn(m, k, device="cuda").bfloat16()
        y = weight_only_linear(x, p)
        _check(y, _ref(x, p, w=w64), f"int{bits} M={m} {n}x{k}")
        assert torch.equal(y, weight_only_linear(x, p)), "split-K / reductions must be deterministic"
        rows, bn, splits, ctas = ext.wo_plan_info(m, n, k, bits, False, True)[:4]
        assert rows >= m and ctas >= torch.cuda.get_device_properties(0).multi_processor_count // 2
        if n == 4096:
            assert splits > 1  # 4096 columns alone leave SMs idle


def test_leading_dims_strides_and_misaligned_rows():
    n, k = 128, 512
    p = _packed(n, k, 4, 64, True, torch.bfloat16)
    big = torch.randn(40, k + 72, device="cuda").bfloat16()
    want = weight_only_linear(big[:, :k].contiguous(), p)
    _check(want, _ref(big[:, :k], p), "contiguous")
    assert torch.equal(weight_only_linear(big[:, :k], p), want)  # row stride k + 72 (16-byte aligned)
    assert torch.equal(weight_only_linear(big[:, 8:8 + k], p),
                       weight_only_linear(big[:, 8:8 + k].contiguous(), p))
    mis = big[:, 1:1 + k]  # 2-byte offset: copied once, same result
    assert torch.equal(weight_only_linear(mis, p), weight_only_linear(mis.contiguous(), p))
    x3 = big[:30, :k].reshape(2, 3, 5, k)
    y3 = weight_only_linear(x3, p)
    assert y3.shape == (2, 3, 5, n) and torch.equal(y3.reshape(30, n), weight_only_linear(big[:30, :k], p))
    assert weight_only_linear(big[:0, :k], p).shape == (0, n)


def test_act_order_and_scales_in_the_other_dtype():
    k, n = 512, 96
    g = torch.Generator().manual_seed(2)
    wq = quantize_weight_only(torch.randn(n, k, generator=g), 4, 128, zero_point=True, scale_dtype=torch.float16)
    wq = type(wq)(wq.q, wq.scale, wq.zero, 4, 128, torch.randperm(k, generator=g))
    p = prepack(wq, device="cuda")
    for dtype in (torch.float16, torch.bfloat16):  # bf16 x: the fp16 scales are converted per call
        x = torch.randn(5, k, device="cuda").to(dtype)
        ref = x.double() @ wq.dequantize().cuda().t()
        _check(weight_only_linear(x, p), ref, f"act-order {dtype}")


def test_fallback_warns_and_backends():
    wide = _packed(4096, 256, 8, 32, True, torch.bfloat16)  # 4096 outputs: the small-M kernels to 64 rows
    assert weight_only_backend(1, wide) == weight_only_backend(64, wide) == "mma_small_m"
    assert weight_only_backend(65, wide) == "dequant_fallback"
    assert weight_only_backend(65, wide.to("cpu")) == "cpu_reference"
    x = torch.randn(65, 256, device="cuda").bfloat16()
    with pytest.warns(WeightOnlyFallbackWarning, match="M = 65 > 64"):
        y = weight_only_linear(x, wide)
    _check(y, _ref(x, wide), "fallback")
    narrow = _packed(64, 256, 8, 32, True, torch.bfloat16)  # row blocks: up to max(256, 2^27 / (N * K)) rows
    assert weight_only_backend(8192, narrow) == "mma_small_m" and weight_only_backend(8193, narrow) == "dequant_fallback"
    x = torch.randn(3000, 256, device="cuda").bfloat16()
    with warnings.catch_warnings():
        warnings.simplefilter("error", WeightOnlyFallbackWarning)
        _check(weight_only_linear(x, narrow), _ref(x, narrow), "row blocks, 3000 rows")


@pytest.mark.parametrize("bits,group,zp", FORMATS)
@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
@pytest.mark.parametrize("n,k", [(160, 1152), (2048, 4224)])
def test_dequant_kernel_equals_the_reference_dequantization(bits, group, zp, dtype, n, k):
    """The dequantization kernel (the large-M fallback's and the conv's dequant + cuDNN route) writes exactly the
    weight the reference forms (every element, both dtypes, every format), over memory poisoned with NaN first: one
    32 x 64 tile per CTA (160 x 1152: 90 tiles), and four (2048 x 4224: 4224 tiles, the last stage of each row block
    two tiles wide)."""
    from cutlass_gemm.quant.prepack import dequantize_packed
    p = _packed(n, k, bits, group, zp, dtype, seed=3)
    _poison(n * k, dtype)
    w = extension.load().wo_dequant(p.qweight, p.scales, p.zeros, bits, group or 0, n, k)
    assert w.dtype == dtype and w.shape == (n, k)
    assert torch.equal(w, dequantize_packed(p, dtype))


def test_opcheck_cuda():
    p = _packed(64, 256, 4, 128, False, torch.float16)
    bias = torch.randn(64, device="cuda").half()
    for m in (3, 100):  # 100 rows of this narrow layer: the row blocks
        x = torch.randn(m, 256, device="cuda").half()
        torch.library.opcheck(torch.ops.cutlass_gemm.weight_only_mm.default, (x, p.qweight, p.scales, None, bias, None),
                              {"layout": p.layout, "bits": 4, "group_size": 128, "n": 64})


@pytest.mark.parametrize("rows", [1, 200])
def test_layer_compile_cuda_graph_no_sync(rows):
    """One row (split-K) and 200 (the row blocks of this narrow layer): no host sync, fullgraph compile, graph replays."""
    torch.manual_seed(0)
    lin = torch.nn.Linear(8192, 256, device="cuda", dtype=torch.bfloat16)  # 256 columns, K 8192: split-K
    layer = WeightOnlyLinear.from_float(lin, bits=4, group_size=128)
    x = torch.randn(rows, 8192, device="cuda").bfloat16()
    eager = eager_without_sync(layer, x)
    compiled = torch.compile(layer, fullgraph=True)
    assert torch.equal(compiled(x), eager)
    # three replays: they reuse the split-K counters, which must be back at zero each time
    replays_match_eager(layer, x.clone(), [torch.randn(rows, 8192, device="cuda").bfloat16() for _ in range(3)])


def test_layer_built_on_cpu_then_moved_equals_built_on_gpu():
    torch.manual_seed(1)
    lin = torch.nn.Linear(512, 192).half()
    on_cpu = WeightOnlyLinear.from_float(lin, bits=8, group_size=None, zero_point=True).to("cuda")
    on_gpu = WeightOnlyLinear.from_float(lin.cuda(), bits=8, group_size=None, zero_point=True)
    for name, buf in on_cpu.state_dict().items():
        assert torch.equal(buf, on_gpu.state_dict()[name]), name
    x = torch.randn(4, 512, device="cuda").half()
    assert torch.equal(on_cpu(x), on_gpu(x))
    _check(on_gpu(x), _ref(x, on_gpu.packed, on_gpu.bias), "layer")
    model = torch.nn.Sequential(torch.nn.Linear(256, 128), torch.nn.Linear(128, 40)).cuda().bfloat16()
    report = quantize_model(model, "w4a16")
    assert report.quantized == ["0"] and "1" in report.skipped
    assert model(torch.randn(2, 256, device="cuda").bfloat16()).shape == (2, 40)


def test_device_errors_name_the_argument():
    p = _packed(64, 128, 4, 64, False, torch.bfloat16)
    x = torch.randn(2, 128, device="cuda").bfloat16()
    for call, arg in [(lambda: weight_only_linear(x, p.to("cpu")), "qweight"),
                      (lambda: weight_only_linear(x.cpu(), p), "qweight"),
                      (lambda: weight_only_linear(x, p, torch.zeros(64).bfloat16()), "bias")]:
        with pytest.raises(InvalidArgumentError) as e:
            call()
        assert e.value.argument == arg


@pytest.mark.parametrize("bits,group,zp", [(4, 128, False), (4, 64, True), (8, None, False)])
def test_layer_eager_fast_path_equals_the_op(bits, group, zp):
    """WeightOnlyLinear's eager call goes through one C++ entry (ops.weight_only.layer_fast_call); it must give
    the op's bytes on every M it serves (1..64, leading dims, bias), stand aside (None) for what it does not
    serve, and leave bad input to the typed errors of the Python path. 1..64 rows and, on this narrow layer, 300 as
    row blocks."""
    from cutlass_gemm.ops.weight_only import layer_fast_call
    torch.manual_seed(0)
    lin = torch.nn.Linear(384, 160, bias=True).to("cuda", torch.bfloat16)
    # the small-M copy only: with the mixed-input copy (the "auto" default on SM90) the layer hands M >= 33 to it (N >= 4096; 65 below)
    lay = WeightOnlyLinear.from_float(lin, bits=bits, group_size=group, zero_point=zp, large_m_backend="dequant")
    args = (lay.qweight, lay.scales, lay.zeros, lay.bias, lay.bits, lay.group_size, lay.out_features)
    for shape in ((1, 384), (17, 384), (64, 384), (2, 3, 384), (4, 16, 384)):
        x = torch.randn(*shape, device="cuda", dtype=torch.bfloat16)
        _poison(x.numel() // 384 * 160, torch.bfloat16)
        y = layer_fast_call(x, *args)
        assert y is not None and y.shape == shape[:-1] + (160,), shape
        ref = torch.ops.cutlass_gemm.weight_only_mm(x, lay.qweight, lay.scales, lay.zeros, lay.bias, None,
                                                    layout="wo_mma_sm80_v1", bits=bits, group_size=group or 0, n=160)
        assert torch.equal(y, ref), shape
        assert torch.equal(lay(x), ref), shape
        _check(y, _ref(x, lay.packed, lay.bias), f"fast path {shape}")
    big = torch.randn(3, 100, 384, device="cuda", dtype=torch.bfloat16)  # 300 rows of a narrow layer: row blocks
    y = layer_fast_call(big, *args)
    assert y is not None and torch.equal(y, weight_only_linear(big, lay.packed, lay.bias))
    _check(y, _ref(big, lay.packed, lay.bias), "fast path, 300 rows")
    wide = WeightOnlyLinear.from_float(torch.nn.Linear(384, 4096).to("cuda", torch.bfloat16), bits=bits,
                                       group_size=group, zero_point=zp, large_m_backend="dequant")
    assert layer_fast_call(big[0, :65], wide.qweight, wide.scales, wide.zeros, wide.bias, bits, group,
                           4096) is None  # 65 rows of a wide layer: the Python path's backends
    odd = torch.randn(3, 394, device="cuda", dtype=torch.bfloat16)[:, 1:385]  # misaligned rows: stands aside
    assert layer_fast_call(odd, *args) is None
    _check(lay(odd), _ref(odd, lay.packed, lay.bias), "misaligned rows through the Python path")
    with pytest.raises(InvalidArgumentError):
        lay(torch.randn(2, 256, device="cuda", dtype=torch.bfloat16))  # wrong K: typed error, not a crash
    x4 = torch.randn(4, 384, device="cuda", dtype=torch.bfloat16)
    replays_match_eager(lay, x4.clone(), [x4, torch.randn_like(x4)])  # capturable: no host sync on the fast path
