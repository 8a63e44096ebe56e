"""GPU tests of the ops' row padding (runtime/rowpad.py): the extension's pad2d against torch on every access width,
and scaled_mm / scaled_mm_azp on a caller's unpadded rows run on whole M tiles: every element against float64 (outputs
poisoned), the Python path, the C++ fast path and `out=` alike, one pad launch beside the GEMM, the same bits as the
caller's own padding, under CUDA graphs, torch.compile and opcheck. The blockwise op's padding:
tests/test_blockwise_gpu.py test_mostly_empty_last_tiles_run_on_whole_tiles."""
import pytest
import torch

from cutlass_gemm.kernels import heuristics
from cutlass_gemm.ops import gemm as ops
from cutlass_gemm.ops import quantize as ops_quant
from cutlass_gemm.runtime import extension, rowpad

from gpu_helpers import assert_same_bits, capture, row_padding
from test_ops_gpu import (_cuda_kernels_of, check, compiled_matches_eager, make_problem, reference64,
                          replays_match_float64, run_op)

pytestmark = pytest.mark.gpu


@pytest.fixture(autouse=True)
def _sm90_padding():
    if ops.kernel_sm(torch.cuda.current_device()) != 90:
        pytest.skip("the ops pad on SM90 (heuristics.PAD_ROWS)")
    with row_padding(True):
        yield


def _ext():
    ext = extension.load()
    if ext is None:
        pytest.skip("the extension is unavailable")
    return ext


@pytest.mark.parametrize("dtype", [torch.int8, torch.float8_e4m3fn, torch.float32, torch.bfloat16, torch.int32])
def test_pad2d_matches_torch_at_every_width(dtype):
    """Sources at byte offsets 0..3 and odd widths (1-, 2-, 4-, 8- and 16-byte accesses), strided rows, up to four pairs
    in one launch, blocks larger than one pass of the grid: the corner equals the source bit for bit, everything else
    of the destination is zero."""
    ext = _ext()
    g = torch.Generator(device="cuda").manual_seed(1)
    # the last block is larger than one pass of the grid (660 CTAs x 256 threads x 4 words on 132 SMs)
    for rows, cols, pad_r, pad_c, offset in ((7, 40, 9, 0, 0), (130, 33, 126, 5, 1), (1, 16, 63, 0, 2),
                                             (64, 7, 0, 9, 3), (33, 256, 31, 16, 0), (2900, 1030, 172, 10, 1)):
        srcs, dsts = [], []
        for j in range(4):
            base = torch.randint(-100, 100, (rows, cols + offset + 8), device="cuda", generator=g).float().to(dtype)
            srcs.append(base[:, offset + j % 2:offset + j % 2 + cols])  # a row pitch beyond the row, offset start
            dst = torch.empty((rows + pad_r, cols + pad_c), dtype=dtype, device="cuda")
            dst.view(torch.uint8).fill_(0x5A)  # stale bytes the pad must overwrite with zeros
            dsts.append(dst)
        ext.pad2d(srcs, dsts)
        for src, dst in zip(srcs, dsts):
            got = dst.view(torch.uint8)
            want = torch.zeros_like(got)
            want[:rows, :src.shape[1] * dst.element_size()] = src.contiguous().view(torch.uint8).reshape(rows, -1)
            assert torch.equal(got, want), f"{dtype} {(rows, cols, pad_r, pad_c, offset)}"


def test_pad2d_refuses_what_it_cannot_copy():
    ext = _ext()
    a = torch.zeros(8, 16, device="cuda")
    with pytest.raises(RuntimeError, match="smaller"):
        ext.pad2d([a], [torch.zeros(4, 16, device="cuda")])
    with pytest.raises(RuntimeError, match="dtypes"):
        ext.pad2d([a], [torch.zeros(8, 16, device="cuda", dtype=torch.int32)])
    with pytest.raises(RuntimeError, match="unit last stride"):
        ext.pad2d([a.t()], [torch.zeros(16, 8, device="cuda")])


#: Where heuristics.op_padded_rows pads (heuristics.OP_PAD), odd N and K
SHAPES = [(140, 8200, 2064), (260, 4104, 4112), (395, 2056, 8208), (905, 4104, 4112)]


@pytest.mark.parametrize("fp8", [False, True])
@pytest.mark.parametrize("variant", ["scaled", "scaled_bias", "scaled_azp", "scaled_azp_per_token"])
def test_mostly_empty_last_tiles_run_padded_on_every_path(variant, fp8):
    """Every element against float64 on the Python path (first call), the C++ fast path (second) and `out=`, per-token
    and per-tensor scales; the plan runs on heuristics.op_padded_rows rows; the output is (m, n), contiguous and no
    larger (the kernel stores m rows); `out=` a view with strided rows inside a poisoned buffer, whose rows and columns
    past the view stay untouched; the bits equal the caller's own padding to those rows."""
    if fp8 and variant.startswith("scaled_azp"):
        pytest.skip("zero points are int8 only")
    dtype = torch.float8_e4m3fn if fp8 else torch.int8
    ab = "e4m3" if fp8 else "int8"
    for m, n, k in SHAPES:
        for scalar in (False, True):
            p = make_problem(variant, m, n, k, torch.bfloat16, seed=m + n, fp8=fp8, scalar_a=scalar)
            rows = heuristics.op_padded_rows(90, m, n, ab, variant, "none", k)
            assert rows > m
            ref = reference64(p)
            outs = []
            for call in range(2):
                y = run_op(variant, p, None)
                assert y.shape == (m, n) and y.is_contiguous() and y.untyped_storage().nbytes() == m * n * 2
                check(y, ref, f"{variant} {ab} {(m, n, k)} scalar {scalar} call {call}", abs_frac=1e-2 if fp8 else 2e-3)
                big = torch.full((m + 70, n + 24), float("nan"), dtype=torch.bfloat16, device="cuda")
                out = big[:m, :n]  # rows n + 24 apart: the padded rows' stores must stop at m, the columns at n
                assert run_op(variant, p, out) is out
                assert torch.isnan(big[m:]).all() and torch.isnan(big[:, n:]).all(), f"{variant} {(m, n, k)}: wrote past out"
                outs += [y, out]
            assert all(torch.equal(o, outs[0]) for o in outs), f"{variant} {(m, n, k)}: paths differ"
            sa = "tensor" if scalar else "token"
            plan = ops._plans[ops.plan_key(torch.cuda.current_device(), variant, dtype, torch.bfloat16, sa, "channel",
                                             m, n, k)]
            assert plan[-1] == rows
            own = dict(p)
            own["a"] = torch.zeros((rows, k), dtype=torch.int8, device="cuda").view(dtype)
            own["a"][:m] = p["a"]
            if not scalar:
                own["scale_a"] = torch.zeros((rows, 1), device="cuda")
                own["scale_a"][:m] = p["scale_a"]
            if "azp" in p:
                own["azp"] = torch.zeros(rows, dtype=torch.int32, device="cuda")
                own["azp"][:m] = p["azp"]
            assert torch.equal(run_op(variant, own, None)[:m], outs[0]), f"{variant} {(m, n, k)}: not the padded bits"


def test_one_pad_launch_beside_the_gemm():
    """The padded call adds exactly one launch (pad2d: A, scale_a and azp together) on the Python path and the C++ fast
    path, with `out=` too (the kernel stores into it); a whole-tile M adds none."""
    p = make_problem("scaled_azp_per_token", 140, 8200, 2064, torch.bfloat16, seed=3)
    run_op("scaled_azp_per_token", p, None)  # plans it (and the profiler's first session starts)
    _cuda_kernels_of(lambda: run_op("scaled_azp_per_token", p, None))
    saved, ops._fast_ready = ops._fast_ready, False
    try:
        python = _cuda_kernels_of(lambda: run_op("scaled_azp_per_token", p, None))
    finally:
        ops._fast_ready = saved
    fast = _cuda_kernels_of(lambda: run_op("scaled_azp_per_token", p, None))
    for path, names in (("python", python), ("fast", fast)):
        assert len(names) == 2 and sum("pad_kernel" in n for n in names) == 1, (path, names)
    out = torch.empty((140, 8200), dtype=torch.bfloat16, device="cuda")
    for fast_path in (False, True):
        saved, ops._fast_ready = ops._fast_ready, ops._fast_ready if fast_path else False
        try:
            names = _cuda_kernels_of(lambda: run_op("scaled_azp_per_token", p, out))
        finally:
            ops._fast_ready = saved
        assert len(names) == 2 and sum("pad_kernel" in n for n in names) == 1, (fast_path, names)
    whole = make_problem("scaled_azp_per_token", 256, 8200, 2064, torch.bfloat16, seed=3)
    run_op("scaled_azp_per_token", whole, None)
    assert len(_cuda_kernels_of(lambda: run_op("scaled_azp_per_token", whole, None))) == 1


def test_padded_calls_replay_in_a_cuda_graph():
    m, n, k = 140, 8200, 2064
    p = make_problem("scaled_bias", m, n, k, torch.bfloat16, seed=9)
    static = {key: v.clone() if isinstance(v, torch.Tensor) else v for key, v in p.items()}
    graph, y = capture(lambda: run_op("scaled_bias", static, None))
    replays_match_float64(graph, static, y, lambda seed: make_problem("scaled_bias", m, n, k, torch.bfloat16, seed=seed),
                          (10, 11))


def test_pad_launched_early_reads_operands_written_just_before():
    """The pad kernel is a programmatic dependent (pad_rows.cu): it may be resident while the kernel ahead runs. A chain
    of padded calls, each one's A quantized by the kernel right before it from the previous call's output: the first
    output against float64, and the whole chain the same bits with the extension's early launches off and on, eager and
    replayed from a CUDA graph (many replays: a stale read would depend on which CTAs share an SM)."""
    ext = _ext()
    if not hasattr(ext, "pdl_set"):
        pytest.skip("extension without programmatic dependent launches")
    m, width, depth = 140, 4112, 4
    assert heuristics.op_padded_rows(90, m, width, "int8", "scaled", "none", width) > m
    g = torch.Generator(device="cuda").manual_seed(12)
    ws = [torch.randint(-127, 128, (width, width), device="cuda", dtype=torch.int8, generator=g).t()
          for _ in range(depth)]
    sbs = [torch.rand(1, width, device="cuda", generator=g) * 2e-4 + 1e-4 for _ in range(depth)]

    def chain(x):
        outs = []
        for w, sb in zip(ws, sbs):
            q, sa = ops_quant.quantize_per_token(x, torch.int8)
            x = ops.scaled_mm(q, w, sa, sb, torch.bfloat16)
            outs.append(x)
        return torch.stack(outs)

    x = torch.randn(m, width, device="cuda", generator=g).bfloat16()
    q, sa = ops_quant.quantize_per_token(x, torch.int8)
    first = {"a": q, "b": ws[0], "scale_a": sa, "scale_b": sbs[0]}
    check(ops.scaled_mm(q, ws[0], sa, sbs[0], torch.bfloat16), reference64(first), "first padded call")
    before = ext.pdl_set(-1)
    try:
        ext.pdl_set(0)
        plain = chain(x)
        ext.pdl_set(1)
        for i in range(3):
            assert_same_bits(chain(x), plain, f"eager chain {i} with the pad launched early")
        static = x.clone()
        graph, y = capture(chain, static)
        for i in range(20):
            graph.replay()
            assert_same_bits(y, plain, f"graph replay {i}")
    finally:
        ext.pdl_set(before)


def test_padded_calls_compile_and_opcheck():
    p = make_problem("scaled_azp_per_token", 140, 8200, 2064, torch.bfloat16, seed=4)
    args = (p["a"], p["b"], p["scale_a"], p["scale_b"], torch.bfloat16, p["azp_adj"], p["azp"], p["bias"])
    torch.library.opcheck(torch.ops.cutlass_gemm.scaled_mm_azp.default, args)
    q = make_problem("scaled_bias", 140, 8200, 2064, torch.bfloat16, seed=5)
    torch.library.opcheck(torch.ops.cutlass_gemm.scaled_mm.default,
                          (q["a"], q["b"], q["scale_a"], q["scale_b"], torch.bfloat16, q["bias"]))
    compiled_matches_eager(q)


def test_switched_off_runs_unpadded():
    p = make_problem("scaled_bias", 140, 8200, 2064, torch.bfloat16, seed=6)
    with row_padding(False):
        assert not rowpad.enabled()
        y = run_op("scaled_bias", p, None)
        check(y, reference64(p), "unpadded")
        plan = ops._plans[ops.plan_key(torch.cuda.current_device(), "scaled_bias", torch.int8, torch.bfloat16,
                                         "token", "channel", 140, 8200, 2064)]
        assert plan[-1] == 140
        assert len(_cuda_kernels_of(lambda: run_op("scaled_bias", p, None))) == 1
