"""GPU: every weight-only kernel variant (runtime/csrc/wo_launch.cuh kWoVariants: wo_gemm.cuh's CTA shapes,
wo_stream.cuh's per-warp pipelines and wo_direct.cuh's register-fed warps), called through `ext.wo_gemm(..., variant)`, against a float64 matmul
with the dequantized weight: random data, M from 1 to each variant's capacity (odd M included), the three
target N x K shapes (split-K engaged) and small odd ones (N not a multiple of the CTA width, K not of any
stage), every format on the small shapes, the mma kernels' row blocks above their rows (M up to 300), outputs
poisoned with NaN first, bitwise run-to-run determinism.
Tolerance as tests/test_weight_only_gpu.py (per-row relative 1e-2). Run with `pytest -m gpu`."""
import pytest
import torch

from cutlass_gemm.ops.wo_heuristics import VARIANTS
from cutlass_gemm.quant import prepack, quantize_weight_only, unpack
from cutlass_gemm.runtime import extension

pytestmark = pytest.mark.gpu
IDS = [0] + sorted(VARIANTS)


def _cap(v):
    return 64 if v == 0 else VARIANTS[v][1]


def _packed(n, k, bits, group, zp, dtype, seed=0):
    g = torch.Generator().manual_seed(seed)
    w = torch.randn(n, k, generator=g) * torch.logspace(-1, 0, n).unsqueeze(1)
    return prepack(quantize_weight_only(w, bits, group, zero_point=zp, scale_dtype=dtype), device="cuda")


def _run(ext, x, p, bias, v):
    torch.full((x.shape[0] * p.n,), float("nan"), dtype=x.dtype, device="cuda")  # poison the next block
    return ext.wo_gemm(x, p.qweight, p.scales, p.zeros, bias, p.bits, p.group_size or 0, p.n, 0, v)


def _check(y, x, p, bias, what, w64=None):
    w64 = unpack(p).dequantize(torch.float64) if w64 is None else w64
    ref = x.double() @ w64.t()
    if bias is not None:
        ref = ref + bias.double()
    y2 = y.double()
    assert torch.isfinite(y2).all(), f"{what}: non-finite output"
    err = ((y2 - ref).norm(dim=1) / ref.norm(dim=1).clamp_min(1e-30)).max().item()
    assert err <= 1e-2, f"{what}: row relative error {err:.3g}"


@pytest.fixture(scope="module")
def ext():
    e = extension.load()
    if e is None:
        pytest.skip("extension unavailable")
    return e


def test_variant_list_matches_the_extension(ext):
    assert {i: (name, rows) for i, name, rows in ext.wo_variants()} == VARIANTS


@pytest.mark.parametrize("v", IDS)
@pytest.mark.parametrize("bits,group,zp", [(4, 128, False), (4, 32, True), (4, None, False), (8, None, False),
                                           (8, 64, True)])
@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_small_odd_shapes_every_format(ext, v, bits, group, zp, dtype):
    for n, k in ((96, 320), (160, 2048)):
        k = k if not group or k % group == 0 else k + group - k % group
        p = _packed(n, k, bits, group, zp, dtype, seed=n + bits)
        bias = torch.randn(n, device="cuda").to(dtype)
        for m in sorted({1, 3, _cap(v) // 2 + 1, _cap(v)}):
            if m > _cap(v):
                continue
            x = torch.randn(m, k, device="cuda").to(dtype)
            b = bias if m % 2 else None
            _check(_run(ext, x, p, b, v), x, p, b, f"v{v} int{bits} g{group} zp={zp} {dtype} M={m} {n}x{k}")


@pytest.mark.parametrize("bits,group", [(4, 128), (8, None)])
@pytest.mark.parametrize("n,k", [(8192, 8192), (28672, 4096), (4096, 14336)])
def test_target_shapes_every_variant(ext, bits, group, n, k):
    p = _packed(n, k, bits, group, False, torch.bfloat16, seed=1)
    w64 = unpack(p).dequantize(torch.float64)
    for v in IDS:
        for m in (1, 4, 7, 16, 33, 64):
            if m > _cap(v):
                continue
            x = torch.randn(m, k, device="cuda").bfloat16()
            y = _run(ext, x, p, None, v)
            _check(y, x, p, None, f"v{v} int{bits} M={m} {n}x{k}", w64)
            assert torch.equal(y, _run(ext, x, p, None, v)), f"v{v}: split-K / reductions must be deterministic"


MMA_IDS = [0] + [v for v in sorted(VARIANTS) if VARIANTS[v][0].startswith("mma")]


@pytest.mark.parametrize("v", MMA_IDS)
@pytest.mark.parametrize("bits,group,zp", [(4, 128, False), (4, 64, True), (8, None, False)])
def test_mma_variants_serve_more_rows_as_row_blocks(ext, v, bits, group, zp):
    """M above an mma variant's rows: ceil(M / rows) row blocks (grid z), the last one partial, each with its own
    split-K partials and counters where K is long (160 x 2048), x with a row stride: every element against float64,
    bitwise the same run to run."""
    for n, k in ((96, 320), (160, 2048)):
        k = k if not group or k % group == 0 else k + group - k % group
        p = _packed(n, k, bits, group, zp, torch.float16, seed=n + bits + v)
        w64 = unpack(p).dequantize(torch.float64)
        bias = torch.randn(n, device="cuda").half()
        for m in sorted({_cap(v) + 1, 3 * _cap(v) - 5, 300}):
            x = torch.randn(m, k + 64, device="cuda").half()[:, :k]  # row stride k + 64
            y = _run(ext, x, p, bias, v)
            _check(y, x, p, bias, f"v{v} int{bits} g{group} zp={zp} M={m} {n}x{k}", w64)
            assert torch.equal(y, _run(ext, x, p, bias, v)), f"v{v} M={m}: row blocks must be deterministic"


@pytest.fixture
def cluster_reduce(ext):
    """Sets the most splits the extension adds in a cluster (0: none) for one test and puts the setting back."""
    before = ext.wo_set_cluster_reduce(-1)
    yield lambda most: ext.wo_set_cluster_reduce(int(most))
    ext.wo_set_cluster_reduce(before)


def test_cluster_split_k_default_is_two_splits(ext):
    """The default (kDefaultClusterSplits): 2-split launches were faster as clusters at 51 of 53 settings measured (1.3%
    slower at worst), 4- and 8-split ones 1.4-1.8x slower on linear layers (session41/call1)."""
    assert ext.wo_set_cluster_reduce(-1) == 2


@pytest.mark.parametrize("v", MMA_IDS)
@pytest.mark.parametrize("bits,group,zp", [(4, 128, False), (8, 64, True)])
def test_mma_split_k_in_a_cluster_equals_the_workspace_path(ext, cluster_reduce, v, bits, group, zp):
    """Split-K of an mma variant through a thread block cluster (its splits' sums added in distributed shared memory,
    SM90) against float64 and bit for bit against the global-workspace path, at forced split counts 2..8 (the cluster
    sizes; 16 stays on the workspace) with one and several row blocks; the plan reports the cluster where it takes it
    (clusters allowed up to 8 splits here; the default takes 2 only)."""
    if torch.cuda.get_device_capability()[0] < 9:
        pytest.skip("thread block clusters need SM90")
    n, k = 160, 4096
    p = _packed(n, k, bits, group, zp, torch.float16, seed=v + bits)
    w64 = unpack(p).dequantize(torch.float64)
    bias = torch.randn(n, device="cuda").half()
    for m in sorted({1, _cap(v), 2 * _cap(v) + 3}):
        x = torch.randn(m, k, device="cuda").half()
        for splits in (2, 3, 8, 16):
            args = (x, p.qweight, p.scales, p.zeros, bias, bits, group, n, splits, v)
            cluster_reduce(0)
            y_ws = ext.wo_gemm(*args)
            cluster_reduce(8)
            y_cl = ext.wo_gemm(*args)
            what = f"v{v} int{bits} M={m} splits={splits}"
            _check(y_cl, x, p, bias, what, w64)
            assert torch.equal(y_cl, y_ws), f"{what}: the cluster and workspace sums differ"
            assert torch.equal(y_cl, ext.wo_gemm(*args)), f"{what}: not deterministic"
        cluster_reduce(8)
        splits, on = ext.wo_plan_info(m, n, k, bits, zp, False, v)[2::4]
        cluster_reduce(0)
        assert on == (2 <= splits <= 8) and ext.wo_plan_info(m, n, k, bits, zp, False, v)[6] == 0, (splits, on)


@pytest.mark.parametrize("v", [v for v in IDS if VARIANTS.get(v, ("",))[0].startswith("direct")])
def test_direct_variants_at_long_k(ext, v):
    """Direct kernels stage their CTA's x in at most 96 KB of shared memory: K = 16384 needs more splits than the
    plan's own at 16 x rows (the plan adds them), K = 65536 more than 16 at 16 x rows (wo_select serves the call with
    the default kernel instead). Either way the answer is right."""
    for k in (16384, 65536):
        p = _packed(64, k, 4, 128, False, torch.bfloat16, seed=k)
        w64 = unpack(p).dequantize(torch.float64)
        for m in sorted({1, _cap(v)}):
            x = torch.randn(m, k, device="cuda").bfloat16()
            _check(_run(ext, x, p, None, v), x, p, None, f"v{v} M={m} 64x{k}", w64)


_REFUSE = '''
import torch
from cutlass_gemm.quant import prepack, quantize_weight_only
from cutlass_gemm.runtime import extension
ext = extension.load()
w = torch.randn(64, 256)
p = prepack(quantize_weight_only(w, 4, 64, zero_point=False, scale_dtype=torch.bfloat16), device="cuda")
x = torch.randn(2, 256, device="cuda").bfloat16()
for variant in (5, 999):  # stream x1 serves M = 1 only; 999 is no variant
    try:
        ext.wo_gemm(x, p.qweight, p.scales, None, None, 4, 64, 64, 0, variant)
    except RuntimeError as exc:
        assert "does not serve" in str(exc), exc
    else:
        raise SystemExit(f"variant {variant} ran for M = 2")
print("REFUSED")
'''


def test_variant_above_its_capacity_is_refused(ext):
    """The raw binding's TORCH_CHECK, in a child process: on the H100 (session7/call3) this call killed the
    pytest process with SIGSEGV, so a crash here fails this test only. (The op never asks for it:
    wo_heuristics.select_variant returns only variants that serve M.)"""
    import os
    import subprocess
    import sys
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in (root, os.environ.get("PYTHONPATH", "")) if p))
    proc = subprocess.run([sys.executable, "-c", _REFUSE], env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0 and "REFUSED" in proc.stdout, (proc.returncode, proc.stderr[-2000:])
