"""GPU (SM90): int8 activation chaining between convolutions. The int8-output conv kernels (every element of
`conv2d_int8_igemm(..., out_dtype=torch.int8)`, output memory poisoned first, against the op's float64 reference:
within one int8 step, exact but for float32-vs-float64 rounding ties), opcheck on the GPU, and a ResNet-50
(random weights; torchvision's if installed) with BatchNorm folded, quantized w8a8-int8-static and chained by
`chain_int8`: the 32 bottleneck links made, relative error vs fp32 and vs the unchained model, NaN input -> NaN
output, no host sync in the chained forward, CUDA-graph replay and torch.compile(fullgraph=True) against eager. Run with `pytest -m gpu`.

Kernels: `python3 tools/conv_kernels_needed.py chain` (the ResNet-50 set with its int8-output twins, bf16)."""
import copy
import sys
from pathlib import Path

import pytest
import torch

import cutlass_gemm.nn as cnn
from cutlass_gemm.ops.conv_igemm import conv2d_int8_igemm, reference

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))
from gpu_helpers import capture, without_sync  # noqa: E402
from resnet50 import resnet50  # noqa: E402

pytestmark = pytest.mark.gpu
CL = torch.channels_last


def _sm90():
    if not torch.cuda.is_available() or torch.cuda.get_device_capability() != (9, 0):
        pytest.skip("the int8 implicit-GEMM conv kernels are SM90 only")


CASES = [  # (n, h, w, ci, co, (kh, kw), stride, padding) — every tile of the table, 1x1 and 3x3, odd sizes
    (2, 15, 13, 64, 64, (3, 3), (1, 1), (1, 1)),       # narrow N tile, tile K 64
    (1, 9, 11, 128, 144, (3, 3), (2, 2), (1, 1)),      # small M tile, a partial N tile
    (8, 28, 28, 128, 128, (3, 3), (1, 1), (1, 1)),     # wide tile
    (4, 14, 14, 256, 512, (1, 1), (1, 1), (0, 0)),     # 1x1 on the implicit GEMM (a chain's conv1 / conv3)
]


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("activation", [None, "relu"])
def test_int8_output_kernel(case, activation):
    _sm90()
    n, h, w, ci, co, k, st, pad = case
    g = torch.Generator(device="cuda").manual_seed(sum(case[:5]))
    x = torch.randint(-128, 128, (n, h, w, ci), dtype=torch.int8, device="cuda", generator=g)
    wt = torch.randint(-127, 128, (co, *k, ci), dtype=torch.int8, device="cuda", generator=g)
    sx = torch.tensor([0.01], device="cuda")
    sw = torch.rand(co, device="cuda", generator=g) * 2e-3 + 1e-4
    b = torch.randn(co, device="cuda", generator=g)
    # a scale that puts the output's spread over the int8 range, some of it saturating
    yf = conv2d_int8_igemm(x, wt, sx, sw, b.bfloat16(), st, pad, (1, 1), activation, torch.bfloat16)
    inv = (140.0 / yf.float().abs().amax()).reshape(1)
    pz = torch.full((n * h * w * co * 4 + 4096,), 0x5A, dtype=torch.uint8, device="cuda")  # poison: 90 everywhere
    del pz
    q = conv2d_int8_igemm(x, wt, sx, sw, b, st, pad, (1, 1), activation, torch.int8, scale_out=inv)
    ref = reference(x.cpu(), wt.cpu(), sx.cpu(), sw.cpu(), b.cpu(), st, pad, (1, 1), activation, torch.int8,
                    inv.cpu())
    diff = (q.cpu().int() - ref.int()).abs()
    assert q.dtype == torch.int8 and q.shape == ref.shape
    assert diff.max().item() <= 1, f"max int8 difference {diff.max().item()}"
    assert diff.float().mean().item() < 1e-3, f"{int((diff > 0).sum())} of {diff.numel()} elements one step off"
    assert ((ref == 127) | (ref == -128)).any()  # the saturating end of the range is exercised


@pytest.mark.parametrize("case", CASES[:2])
@pytest.mark.parametrize("out_dtype", [torch.int8, torch.bfloat16])
def test_scale_guard_in_the_kernel(case, out_dtype):
    """The epilogue's scale_x + 0 * guard (the chain's NaN carrier): a finite guard gives the same bits as none,
    a NaN or infinite one a NaN scale (bf16: NaN everywhere; int8: 0, the conversion's NaN rule), output poisoned."""
    _sm90()
    n, h, w, ci, co, k, st, pad = case
    g = torch.Generator(device="cuda").manual_seed(7)
    x = torch.randint(-128, 128, (n, h, w, ci), dtype=torch.int8, device="cuda", generator=g)
    wt = torch.randint(-127, 128, (co, *k, ci), dtype=torch.int8, device="cuda", generator=g)
    sx = torch.tensor([0.01], device="cuda")
    sw = torch.rand(co, device="cuda", generator=g) * 2e-3 + 1e-4
    b = torch.randn(co, device="cuda", generator=g)
    kw = dict(scale_out=torch.tensor([20.0], device="cuda")) if out_dtype == torch.int8 else {}
    bias = b if out_dtype == torch.int8 else b.bfloat16()

    def run(guard):
        pz = torch.full((n * h * w * co * 4 + 4096,), 0x5A, dtype=torch.uint8, device="cuda")  # poison
        del pz
        return conv2d_int8_igemm(x, wt, sx, sw, bias, st, pad, (1, 1), "relu", out_dtype, scale_guard=guard, **kw)

    plain = run(None)
    assert (plain != 0).any()
    for v in (0.37, 3e38):
        assert torch.equal(run(torch.tensor([v], device="cuda")), plain), v
    for v in (float("nan"), float("inf")):
        void = run(torch.tensor([v], device="cuda"))
        assert (void == 0).all() if out_dtype == torch.int8 else torch.isnan(void).all(), v


def test_int8_output_opcheck_on_gpu():
    _sm90()
    g = torch.Generator(device="cuda").manual_seed(3)
    x = torch.randint(-128, 128, (1, 9, 10, 64), dtype=torch.int8, device="cuda", generator=g)
    wt = torch.randint(-127, 128, (64, 3, 3, 64), dtype=torch.int8, device="cuda", generator=g)
    args = (x, wt, torch.tensor([0.02], device="cuda"), torch.rand(64, device="cuda") * 1e-3,
            torch.randn(64, device="cuda"), [1, 1], [1, 1], [1, 1], "relu", torch.int8,
            torch.tensor([5.0], device="cuda"))
    torch.library.opcheck(torch.ops.cutlass_gemm.conv2d_int8_igemm, args)
    torch.library.opcheck(torch.ops.cutlass_gemm.conv2d_int8_igemm, args + (torch.tensor([0.1], device="cuda"),))


def test_resnet50_int8_chain():
    _sm90()
    base, source = resnet50()
    base = base.cuda().to(memory_format=CL)
    x = torch.randn(8, 3, 224, 224, device="cuda").contiguous(memory_format=CL)
    xb = x.bfloat16()
    with torch.no_grad():
        ref = base(x).double()
        folded = cnn.fold_batchnorm(copy.deepcopy(base).bfloat16().eval())
        cnn.quantize_model(folded, "w8a8-int8-static", calibration=cnn.calibrate(folded, [xb]))
        plain = copy.deepcopy(folded)
        chained, report = cnn.chain_int8(folded)
        y = chained(xb).double()
        y_plain = plain(xb).double()
    assert len(report.chained) == 32, str(report)  # conv1 -> conv2 -> conv3 in each of the 16 bottlenecks
    err = ((y - ref).norm() / ref.norm()).item()
    err_plain = ((y_plain - ref).norm() / ref.norm()).item()
    drift = ((y - y_plain).norm() / y_plain.norm()).item()
    print(f"ResNet-50 ({source}) int8 chain: rel. error vs fp32 {err:.3e} (unchained static {err_plain:.3e}, "
          f"chain vs unchained {drift:.3e})")
    assert torch.isfinite(y).all() and err < 0.15 and err < 1.5 * err_plain + 1e-2
    bad = xb.clone()
    bad[0, 1, 100, 100] = float("nan")
    with torch.no_grad():
        assert torch.isnan(chained(bad)).all()  # int8 has no NaN: the chain's guard carries it to the end
    # no host synchronisation on the chained forward; CUDA graph: replay on new input = eager on it (the same
    # kernels; cuDNN's float stem may differ run to run)
    static_x = xb.clone()
    with torch.no_grad():
        without_sync(lambda: chained(static_x))
        graph, out = capture(chained, static_x)
        x2 = torch.randn_like(static_x)
        static_x.copy_(x2)
        graph.replay()
        again = chained(x2).double()
        assert ((out.double() - again).norm() / again.norm()).item() < 1e-2
        compiled = torch.compile(chained, fullgraph=True)
        yc = compiled(x2).double()
        assert ((yc - again).norm() / again.norm()).item() < 2e-2
