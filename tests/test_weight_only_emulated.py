"""The weight-only small-M kernel's own source (runtime/csrc/wo_gemm.cuh), compiled as host C++ and run by
the emulator in tests/wo_emu/emu.cpp (one OS thread per CUDA thread; ldmatrix / mma.sync / cp.async /
lop3 / prmt emulated from the PTX ISA), on weights packed by `quant.prepack`: every format x dtype, the
CTA shapes the launcher picks by M and two more, split-K with the splits arriving in either order,
cp.async copies landing at issue or only at their wait. Needs g++ (C++20) and the CUDA headers, no GPU.

Checked: per-row relative error <= 1e-2 against float64 with the exact dequantized weight (the GPU
tests' bound), and much closer to x @ (the weight rounded as the kernel rounds it), which leaves only
fp32 summation order and the output rounding."""
import ctypes
import shutil
import subprocess
from pathlib import Path

import pytest
import torch

from cutlass_gemm.quant import dequantize_packed, prepack, quantize_weight_only, unpack
from cutlass_gemm.quant.prepack import LAYOUT

HERE = Path(__file__).resolve().parent
CUDA_INCLUDE = Path("/usr/local/cuda/include")
CONFIGS = {0: 16, 1: 32, 2: 64, 3: 16, 4: 64, 5: 16, 6: 32, 7: 32, 8: 32, 9: 48, 10: 64}  # emu.cpp's config index -> rows it serves


@pytest.fixture(scope="module")
def emu(tmp_path_factory):
    if shutil.which("g++") is None or not (CUDA_INCLUDE / "cuda_fp16.h").exists():
        pytest.skip("needs g++ and the CUDA headers")
    so = tmp_path_factory.mktemp("wo_emu") / "emu.so"
    cmd = ["g++", "-std=c++20", "-O1", "-shared", "-fPIC", "-pthread", "-DCG_WO_EMULATE", f"-I{CUDA_INCLUDE}", "-w",
           str(HERE / "wo_emu" / "emu.cpp"), "-o", str(so)]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode:
        pytest.fail(f"emulator build failed:\n{proc.stderr[-4000:]}")
    lib = ctypes.CDLL(str(so))
    lib.emu_run.restype = ctypes.c_int
    lib.emu_run.argtypes = [ctypes.c_int] * 6 + [ctypes.c_void_p, ctypes.c_long] + [ctypes.c_void_p] * 5 + [ctypes.c_int] * 5
    return lib


def _run(lib, p, x, bias=None, cfg=0, splits=1, eager=True, reverse=False, ldx=None):
    m, k = x.shape[0], p.k
    xs = x if ldx is None else torch.nn.functional.pad(x, (0, ldx - k))
    ldx = xs.stride(0) if m > 1 else k
    out = torch.full((m, p.n), float("nan"), dtype=x.dtype)
    scales = p.scales.to(x.dtype)
    zeros = None if p.zeros is None else p.zeros.to(x.dtype)
    shift = 30 if p.group_size is None else p.group_size.bit_length() - 1
    ptr = (lambda t: None if t is None else t.data_ptr())
    rc = lib.emu_run(cfg, int(x.dtype == torch.bfloat16), p.bits, int(p.zeros is not None), int(eager), int(reverse),
                     xs.data_ptr(), ldx, p.qweight.data_ptr(), scales.data_ptr(), ptr(zeros), ptr(bias),
                     out.data_ptr(), m, p.n, k, shift, splits)
    assert rc == 0, f"emulator returned {rc} (2: M too large, 3: split-K counters not reset, 4: out-of-bounds)"
    return out


def _packed(n, k, bits, group, zp, seed=0, dtype=torch.bfloat16):
    g = torch.Generator().manual_seed(seed)
    w = torch.randn(n, k, generator=g) * torch.logspace(-1, 0, n).unsqueeze(1)
    return prepack(quantize_weight_only(w, bits, group, zero_point=zp, scale_dtype=dtype))


def _check(y, x, p, bias=None, what=""):
    assert torch.isfinite(y).all(), f"{what}: NaN/inf in the output (an element not written, or a leak)"
    exact = x.double() @ unpack(p).dequantize(torch.float64).t()
    rounded = x.double() @ dequantize_packed(p, x.dtype).double().t()
    if bias is not None:
        exact, rounded = exact + bias.double(), rounded + bias.double()
    for ref, tol in ((exact, 1e-2), (rounded, 2 ** -7 if x.dtype == torch.bfloat16 else 2 ** -10)):
        err = ((y.double() - ref).norm(dim=1) / ref.norm(dim=1)).max().item()
        assert err <= tol, f"{what}: row relative error {err:.3g} > {tol:.3g}"


@pytest.mark.parametrize("bits,group,zp", [(b, g, z) for b in (4, 8) for g in (None, 32, 64, 128) for z in (False, True)])
@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_every_format_m_le_16(emu, bits, group, zp, dtype):
    k = 384 if group == 128 else 320  # 5-6 k64 tiles: the last stage of 4 is partial
    p = _packed(96, k, bits, group, zp, seed=bits + (group or 0), dtype=dtype)
    assert p.layout == LAYOUT
    x = torch.randn(3, k).to(dtype)
    bias = torch.randn(96).to(dtype)
    _check(_run(emu, p, x, bias, cfg=0), x, p, bias, f"int{bits} g{group} zp={zp} {dtype} M=3")
    x = torch.randn(9, k).to(dtype)  # the M <= 16 default CTA shape
    _check(_run(emu, p, x, None, cfg=5), x, p, None, f"int{bits} g{group} zp={zp} {dtype} M=9")


@pytest.mark.parametrize("cfg,m", [(0, 1), (0, 16), (5, 5), (5, 16), (1, 17), (1, 32), (2, 33), (2, 64), (3, 5),
                                   (4, 40), (6, 20), (7, 17), (7, 32), (8, 25), (9, 33), (9, 48), (10, 49), (10, 64)])
def test_cta_shapes_and_m_tiles(emu, cfg, m):
    p = _packed(160, 512, 4, 64, True, seed=m)  # 160 columns: the last CTA is partly past N for every width
    x = torch.randn(m, 512).bfloat16()
    _check(_run(emu, p, x, cfg=cfg, ldx=520), x, p, what=f"cfg {cfg} M={m}")


@pytest.mark.parametrize("cfg,m,splits,bits", [(2, 65, 1, 4), (2, 150, 3, 4), (1, 70, 2, 8), (5, 40, 1, 4),
                                               (9, 100, 2, 8), (8, 97, 1, 4), (10, 129, 1, 8)])
def test_row_blocks_beyond_the_cta_rows(emu, cfg, m, splits, bits):
    """M above the CTA's rows: the mma kernels run ceil(M / rows) row blocks (grid z), each a call of its own: its x
    and output rows, its slice of the split-K partials and its own counters (the blocks run in reverse order, the
    splits of odd tiles too); the last block is partial, x has a row stride."""
    p = _packed(96, 512, bits, 128 if bits == 4 else None, bits == 8, seed=m)
    x = torch.randn(m, 512).half()
    bias = torch.randn(96).half()
    y = _run(emu, p, x, bias, cfg=cfg, splits=splits, ldx=520, reverse=True)
    _check(y, x, p, bias, f"cfg {cfg} M={m} splits={splits} int{bits}")
    if splits > 1:
        assert torch.equal(y, _run(emu, p, x, bias, cfg=cfg, splits=splits, ldx=520))


@pytest.mark.parametrize("bits,zp,dtype", [(4, False, torch.bfloat16), (8, True, torch.float16)])
def test_split_k_is_ordered_and_resets_its_counters(emu, bits, zp, dtype):
    p = _packed(64, 1024, bits, 128 if bits == 4 else None, zp, seed=3, dtype=dtype)
    x = torch.randn(4, 1024).to(dtype)
    bias = torch.randn(64).to(dtype)
    one = _run(emu, p, x, bias, cfg=0, splits=1)
    _check(one, x, p, bias, "no split")
    three = _run(emu, p, x, bias, cfg=0, splits=3)
    _check(three, x, p, bias, "3 splits")
    assert torch.equal(_run(emu, p, x, bias, cfg=0, splits=3, reverse=True), three)  # arrival order: same bits
    _check(_run(emu, p, x, bias, cfg=2, splits=4), x, p, bias, "M-64 tile, 4 splits")
    assert torch.equal(_run(emu, p, x, bias, cfg=5, splits=5, reverse=True), _run(emu, p, x, bias, cfg=5, splits=5))


@pytest.mark.parametrize("cfg,m,splits,bits,eager", [(0, 4, 2, 4, True), (5, 16, 3, 8, True), (8, 40, 2, 4, False),
                                                      (9, 48, 2, 8, True), (2, 70, 2, 4, True), (10, 64, 3, 4, False)])
def test_split_k_in_a_cluster_equals_the_workspace_path(emu, cfg, m, splits, bits, eager):
    """The mma kernels' split-K through a thread block cluster (wo_gemm.cuh, WoArgs::cluster_splits; the splits of a
    column tile run at once, split 0 adding the others' sums from their shared memory in split order): every element
    against float64 and bit for bit the workspace path's, one and several row blocks, copies landing eagerly or at
    their wait."""
    emu.emu_set_cluster.argtypes = [ctypes.c_int]
    p = _packed(96, 1024, bits, 128 if bits == 4 else None, bits == 8, seed=cfg + m)
    x = torch.randn(m, 1024).half()
    bias = torch.randn(96).half()
    try:
        emu.emu_set_cluster(0)
        ws = _run(emu, p, x, bias, cfg=cfg, splits=splits, eager=eager)
        emu.emu_set_cluster(8)
        cl = _run(emu, p, x, bias, cfg=cfg, splits=splits, eager=eager)
    finally:
        emu.emu_set_cluster(0)
    _check(cl, x, p, bias, f"cfg {cfg} M={m} splits={splits} int{bits} cluster")
    assert torch.equal(cl, ws), "the cluster and workspace sums differ"


@pytest.mark.parametrize("cfg,m,bits,dtype", [(0, 3, 4, torch.float16), (2, 45, 8, torch.bfloat16),
                                               (3, 9, 4, torch.bfloat16), (8, 100, 4, torch.float16),
                                               (10, 64, 8, torch.float16)])
def test_bias_staged_by_16_or_4_byte_copies_gives_the_same_bits(emu, cfg, m, bits, dtype):
    """The mma kernels stage the bias in shared memory with the first pipeline stage: a 16-byte aligned one by 16-byte
    copies, any other (4-byte aligned) one by 4-byte copies. The same values either way, every element against
    float64, rows not a multiple of 16, one and several row blocks. A bias staged at the wrong columns, or a row's
    column pairs stored at the wrong place, fails here."""
    p = _packed(160, 256, bits, 64 if bits == 4 else None, bits == 4, seed=cfg + m, dtype=dtype)
    x = torch.randn(m, 256).to(dtype)
    aligned = torch.randn(160).to(dtype)
    shifted = torch.empty(162, dtype=dtype)[2:]  # 4-byte but not 16-byte aligned
    shifted.copy_(aligned)
    assert aligned.data_ptr() % 16 == 0 and shifted.data_ptr() % 16 != 0
    staged = _run(emu, p, x, aligned, cfg=cfg)
    _check(staged, x, p, aligned, f"cfg {cfg} M={m} int{bits}")
    assert torch.equal(staged, _run(emu, p, x, shifted, cfg=cfg)), "the 16-byte and 4-byte staged biases differ"


@pytest.mark.parametrize("cfg", [0, 2, 4, 5, 7, 8, 9])
def test_deferred_copies_expose_no_pipeline_hazard(emu, cfg):
    """cp.async data landing only at the wait that covers its group: a stage read before its wait, or a
    slot refilled while still being read, would give wrong results here."""
    p = _packed(128, 1024, 4, 32, False, seed=5)
    x = torch.randn(CONFIGS[cfg] // 2 + 1, 1024).half()
    eager = _run(emu, p, x, cfg=cfg)
    deferred = _run(emu, p, x, cfg=cfg, eager=False)
    _check(deferred, x, p, what=f"deferred cfg {cfg}")
    assert torch.equal(eager, deferred)


# ------------------------------------------------------------------------------------ stream and direct kernels
# wo_stream.cuh and wo_direct.cuh, as 100 + their variant id of wo_launch.cuh's kWoVariants -> the M capacity served.
STREAM = {105: 1, 106: 4, 107: 8, 108: 8, 109: 8, 110: 16, 111: 16, 112: 32, 113: 64}
DIRECT = {114: 1, 115: 1, 116: 8, 117: 8, 118: 16, 119: 8, 120: 16, 121: 16, 122: 16, 123: 1, 124: 16, 125: 8, 126: 1}
# (cfg, M) pairs of each family run on every format
FORMAT_RUNS = {"stream": ((105, 1), (107, 5), (110, 13)), "direct": ((114, 1), (115, 1), (117, 5), (119, 8), (118, 13),
                                                                        (121, 16), (123, 1), (124, 11), (125, 7))}


@pytest.mark.parametrize("bits,group,zp", [(4, 128, False), (4, 32, True), (4, None, True), (8, None, False),
                                           (8, 64, True)])
@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
@pytest.mark.parametrize("family", sorted(FORMAT_RUNS))
def test_stream_and_direct_every_format(emu, family, bits, group, zp, dtype):
    k = 384 if group == 128 else 320  # 5-6 k64 tiles: the last stage / double-buffer step is partial
    p = _packed(96, k, bits, group, zp, seed=bits + (group or 0), dtype=dtype)  # 96: a CTA partly past N
    bias = torch.randn(96).to(dtype)
    for cfg, m in FORMAT_RUNS[family]:
        x = torch.randn(m, k).to(dtype)
        _check(_run(emu, p, x, bias if m % 2 else None, cfg=cfg), x, p, bias if m % 2 else None,
               f"{family} {cfg} int{bits} g{group} zp={zp} {dtype} M={m}")


@pytest.mark.parametrize("cfg", sorted(STREAM) + sorted(DIRECT))
def test_stream_and_direct_shapes_m_and_splits(emu, cfg):
    rows = {**STREAM, **DIRECT}[cfg]
    k = 512 if cfg in STREAM else 1152  # direct: 18 k64 tiles, splits of unequal length, partial last stages
    p = _packed(160, k, 4, 64, True, seed=cfg)  # 160 columns: the last CTA is partly past N for every width
    for m in sorted({1, max(1, rows // 2 + 1), rows}):
        x = torch.randn(m, k).bfloat16()
        one = _run(emu, p, x, cfg=cfg, ldx=k + 8)
        _check(one, x, p, what=f"{cfg} M={m}")
    three = _run(emu, p, x, cfg=cfg, splits=3)
    _check(three, x, p, what=f"{cfg} M={m} 3 splits")
    assert torch.equal(_run(emu, p, x, cfg=cfg, splits=3, reverse=True), three)  # ordered split-K reduction


@pytest.mark.parametrize("cfg", [105, 107, 109, 110])
def test_stream_deferred_copies_expose_no_pipeline_hazard(emu, cfg):
    """Copies landing only at their wait: a slot read before its wait or refilled while the warp still
    reads it (the __syncwarp placement) would change the result."""
    p = _packed(128, 1024, 4, 32, False, seed=5)
    x = torch.randn(STREAM[cfg] // 2 + 1, 1024).half()
    eager = _run(emu, p, x, cfg=cfg)
    deferred = _run(emu, p, x, cfg=cfg, eager=False)
    _check(deferred, x, p, what=f"deferred stream {cfg}")
    assert torch.equal(eager, deferred)


def test_stream_refuses_m_above_its_rows(emu):
    p = _packed(64, 256, 4, 64, False)
    x = torch.randn(2, 256).bfloat16()
    rc = emu.emu_run(105, 1, 4, 0, 1, 0, x.data_ptr(), 256, p.qweight.data_ptr(), p.scales.bfloat16().data_ptr(),
                     None, None, torch.empty(2, 64).bfloat16().data_ptr(), 2, 64, 256, 6, 1)
    assert rc == 2


@pytest.mark.parametrize("cfg", [114, 116, 118, 120])
def test_direct_deferred_x_copies(emu, cfg):
    """The x rows' copies landing only at their wait: a tile read before the CTA's wait and barrier would differ."""
    p = _packed(128, 1024, 4, 32, False, seed=5)
    x = torch.randn(DIRECT[cfg] // 2 + 1, 1024).half()
    eager = _run(emu, p, x, cfg=cfg)
    deferred = _run(emu, p, x, cfg=cfg, eager=False)
    _check(deferred, x, p, what=f"deferred direct {cfg}")
    assert torch.equal(eager, deferred)


@pytest.mark.parametrize("bits", [4, 8])
def test_direct_equals_stream_of_the_same_shape(emu, bits):
    """direct x8 4x2 and stream x8 2x2 (two warps along K each) give every warp the same tiles in the same order and share the tile math
    (wo_warp.cuh): at M = 1 their outputs are the same bits, with and without split-K."""
    p = _packed(256, 768, bits, 128, False, seed=11)
    x = torch.randn(1, 768).bfloat16()
    for splits in (1, 3):
        assert torch.equal(_run(emu, p, x, cfg=116, splits=splits), _run(emu, p, x, cfg=109, splits=splits))


def test_direct_refuses_m_above_its_rows(emu):
    p = _packed(64, 256, 4, 64, False)
    x = torch.randn(2, 256).bfloat16()
    rc = emu.emu_run(114, 1, 4, 0, 1, 0, x.data_ptr(), 256, p.qweight.data_ptr(), p.scales.bfloat16().data_ptr(),
                     None, None, torch.empty(2, 64).bfloat16().data_ptr(), 2, 64, 256, 6, 1)
    assert rc == 2


@pytest.mark.parametrize("cfg,bits", [(114, 4), (116, 8), (118, 4), (119, 4)])
def test_direct_prefetch_stays_inside_the_weight(emu, cfg, bits):
    """Launched as a programmatic dependent, a direct kernel's warps send their first weight tiles to L2 before the
    grid-dependency wait (pdl.cuh): every prefetched line must lie inside the packed weight (the emulator returns
    6 otherwise), also for a CTA partly past N and a count above a warp's tiles, and the result is unchanged."""
    emu.emu_prefetch_count.restype = ctypes.c_long
    p = _packed(160, 1152, bits, 64 if bits == 4 else None, False, seed=cfg)  # the last CTA partly past N
    x = torch.randn(DIRECT[cfg], 1152).bfloat16()
    emu.emu_set_prefetch(0)
    plain = _run(emu, p, x, cfg=cfg, splits=3)
    assert emu.emu_prefetch_count() == 0
    try:
        for tiles in (1, 3, 64):  # 64: more than any warp's tiles
            emu.emu_set_prefetch(tiles)
            assert torch.equal(_run(emu, p, x, cfg=cfg, splits=3), plain)
            assert emu.emu_prefetch_count() > 0
    finally:
        emu.emu_set_prefetch(0)


@pytest.mark.parametrize("ctas,per_sm", [(224, 3), (256, 3), (132, 8), (133, 8), (384, 3), (396, 3), (1024, 8),
                                         (448, 4), (1, 2), (264, 2)])
@pytest.mark.parametrize("smem", [0, 45056, 67584])
def test_spread_smem_caps_ctas_per_sm(emu, ctas, per_sm, smem):
    """The launcher's spread (wo_spread.h, H100 figures: 132 SMs, 228 KB per SM, 1 KB reserved per CTA, 16 bytes of
    static shared memory): with the returned dynamic shared memory at most ceil(CTAs / SMs) CTAs fit on an SM where
    the kernel could hold more, never fewer than that, and the kernel's own request is never cut."""
    emu.emu_spread_smem.argtypes = [ctypes.c_long] + [ctypes.c_int] * 6
    sms, smem_sm, reserved, static = 132, 228 * 1024, 1024, 16
    dyn = emu.emu_spread_smem(ctas, sms, per_sm, smem_sm, reserved, static, smem)
    want = -(-ctas // sms)
    resident = min(per_sm, smem_sm // (dyn + reserved + static))
    if want >= per_sm:
        assert dyn == smem  # nothing to spread: the kernel's request unchanged
    elif smem_sm // (smem + reserved + static) <= want:
        assert dyn == smem  # the kernel's own shared memory already keeps it at `want` or fewer per SM
    else:
        assert dyn > smem and dyn % 128 == 0 and dyn <= 227 * 1024
        assert resident == want


@pytest.mark.parametrize("bf16", [0, 1])
def test_int8_dequantizer_rounds_once_for_every_byte_and_zero_point(emu, bf16):
    """wo_common.cuh's dequant_int8 (no conversion instruction since session 32: prmt-made halves for fp16, the upper
    halves of exact floats for bf16) equals (u - z) * s rounded once to the activation dtype, bit for bit, for every
    stored byte and zero point and 300 scales of both signs."""
    emu.emu_dequant_int8_mismatches.restype = ctypes.c_long
    assert emu.emu_dequant_int8_mismatches(bf16, 300) == 0


@pytest.mark.parametrize("tiles", [1, 4])
@pytest.mark.parametrize("bits,group,zp", [(4, 128, False), (4, 32, True), (8, None, False), (8, 64, True)])
@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_dequant_kernel_writes_the_reference_weight(emu, tiles, bits, group, zp, dtype):
    """wo_dequant.cuh's kernel (the weight the dequantize + cuBLAS / cuDNN routes use) with one and four 32 x 64 tiles
    per CTA: every element equals the reference dequantization bit for bit, over an output poisoned with NaN and shared
    memory filled with 0xFF (K = 384: six tiles, so the four-tile CTAs end with a two-tile stage; two 32-row blocks)."""
    n, k = 64, 384
    p = _packed(n, k, bits, group, zp, dtype=dtype)
    out = torch.full((n, k), float("nan"), dtype=dtype)
    shift = 30 if group is None else group.bit_length() - 1
    emu.emu_dequant.argtypes = [ctypes.c_int] * 3 + [ctypes.c_void_p] * 4 + [ctypes.c_int] * 3
    rc = emu.emu_dequant(tiles, int(dtype == torch.bfloat16), bits, p.qweight.data_ptr(), p.scales.data_ptr(),
                         None if p.zeros is None else p.zeros.data_ptr(), out.data_ptr(), n, k, shift)
    assert rc == 0
    assert torch.equal(out, dequantize_packed(p, dtype))
