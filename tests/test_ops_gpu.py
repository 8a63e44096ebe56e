"""GPU correctness of the public ops: every variant x output dtype against a float64 reference,
on random data, with the output poisoned by NaN before every run. Run with `pytest -m gpu`."""
import pytest
import torch

import cutlass_gemm
from cutlass_gemm.ops import gemm as ops

from gpu_helpers import capture, refill, row_padding

pytestmark = pytest.mark.gpu

OUT_DTYPES = [torch.bfloat16, torch.float16]
VARIANTS = ["scaled", "scaled_bias", "scaled_azp", "scaled_azp_per_token"]


def make_problem(variant, m, n, k, out_dtype, *, scalar_a=False, scalar_b=False, seed=0, fp8=False):
    g = torch.Generator(device="cuda").manual_seed(seed)
    dev = "cuda"
    if fp8:
        a = (torch.randn((m, k), device=dev, generator=g) * 8).to(torch.float8_e4m3fn)
        w = (torch.randn((n, k), device=dev, generator=g) * 8).to(torch.float8_e4m3fn)
    else:
        a = torch.randint(-128, 128, (m, k), dtype=torch.int8, device=dev, generator=g)
        w = torch.randint(-128, 128, (n, k), dtype=torch.int8, device=dev, generator=g)
    sa = (torch.rand((1,) if scalar_a else (m, 1), device=dev, generator=g) + 0.5) * 1e-2
    sb = (torch.rand((1,) if scalar_b else (1, n), device=dev, generator=g) + 0.5) * 1e-2
    p = dict(a=a, b=w.t(), scale_a=sa, scale_b=sb, out_dtype=out_dtype)
    if variant != "scaled":
        p["bias"] = torch.randn(n, device=dev, generator=g).to(out_dtype)
    if variant == "scaled_azp_per_token":
        p["azp"] = torch.randint(-20, 20, (m,), dtype=torch.int32, device=dev, generator=g)
        p["azp_adj"] = w.sum(dim=1, dtype=torch.int32)
    elif variant == "scaled_azp":
        p["azp_adj"] = (7 * w.sum(dim=1, dtype=torch.int64)).to(torch.int32)  # azp = 7, precomputed
    return p


def run_op(variant, p, out):
    if variant.startswith("scaled_azp"):
        return cutlass_gemm.scaled_mm_azp(p["a"], p["b"], p["scale_a"], p["scale_b"], p["out_dtype"],
                                          p["azp_adj"], p.get("azp"), p.get("bias"), out=out)
    return cutlass_gemm.scaled_mm(p["a"], p["b"], p["scale_a"], p["scale_b"], p["out_dtype"], p.get("bias"), out=out)


def reference64(p):
    acc = p["a"].double() @ p["b"].double()
    if "azp_adj" in p:
        zp = p["azp"].double().reshape(-1, 1) if "azp" in p else 1.0
        acc = acc - zp * p["azp_adj"].double().reshape(1, -1)
    ref = p["scale_a"].double().reshape(-1, 1) * p["scale_b"].double().reshape(1, -1) * acc
    if "bias" in p:
        ref = ref + p["bias"].double()
    return ref


def check(out, ref, what, abs_frac=2e-3):
    """Every element written; norm-wise relative error <= 2e-2; each element within 1e-2 relative plus
    `abs_frac` of the largest |ref| (the absolute part covers cancellation near zero)."""
    assert not torch.isnan(out).any(), f"{what}: {int(torch.isnan(out).sum())} output elements left unwritten"
    diff = (out.double() - ref).abs()
    scale = ref.abs().max().clamp_min(1e-30)
    rel = ((out.double() - ref).norm() / ref.norm()).item()
    assert rel <= 2e-2, f"{what}: relative error {rel:.3e}"
    bad = diff > 1e-2 * ref.abs() + abs_frac * scale
    assert not bad.any(), f"{what}: {int(bad.sum())} elements off, worst {diff.max().item():.3e} of {scale.item():.3e}"
    return rel


@pytest.mark.parametrize("out_dtype", OUT_DTYPES)
@pytest.mark.parametrize("variant", VARIANTS)
def test_every_m_from_1_to_300(variant, out_dtype):
    n, k = 136, 208  # partial tiles in N and K
    worst = 0.0
    for m in range(1, 301):
        p = make_problem(variant, m, n, k, out_dtype, seed=m, scalar_a=(m % 7 == 0), scalar_b=(m % 11 == 0))
        out = torch.full((m, n), float("nan"), dtype=out_dtype, device="cuda")
        run_op(variant, p, out)
        worst = max(worst, check(out, reference64(p), f"{variant} {out_dtype} m={m}"))
    print(f"{variant} {out_dtype}: worst relative error over M=1..300: {worst:.2e}")


@pytest.mark.parametrize("variant", VARIANTS)
def test_one_row_with_a_scalar_scale_a_takes_the_per_token_kernel(variant):
    """M = 1: a one-element scale_a is that row's per-token scale, so the prebuilt token x channel kernels
    serve it (no per-tensor kernel to build), through the Python path and the C++ fast path alike."""
    n, k = 136, 208
    for call in range(3):  # the first call plans (Python path); later ones go through the C++ fast path
        p = make_problem(variant, 1, n, k, torch.bfloat16, seed=call, scalar_a=True)
        out = torch.full((1, n), float("nan"), dtype=torch.bfloat16, device="cuda")
        run_op(variant, p, out)
        check(out, reference64(p), f"{variant} M=1 scalar scale_a, call {call}")
    plan = ops._plans.get(ops.plan_key(torch.cuda.current_device(), variant, torch.int8, torch.bfloat16, "token", "channel", 1, n, k))
    assert plan is not None and plan[1].config.scale_a == "token" and not plan[2]


@pytest.mark.parametrize("shape", [(4096, 4096, 4096), (8192, 8192, 8192), (3000, 5120, 1536), (1, 14336, 4096)])
@pytest.mark.parametrize("out_dtype", OUT_DTYPES)
@pytest.mark.parametrize("variant", VARIANTS)
def test_large_shapes(variant, out_dtype, shape):
    m, n, k = shape
    p = make_problem(variant, m, n, k, out_dtype, seed=m + n + k)
    out = torch.full((m, n), float("nan"), dtype=out_dtype, device="cuda")
    res = run_op(variant, p, out)
    assert res.data_ptr() == out.data_ptr()
    rel = check(out, reference64(p), f"{variant} {out_dtype} {shape}")
    print(f"{variant} {out_dtype} {shape}: relative error {rel:.2e}")


@pytest.mark.parametrize("out_dtype", OUT_DTYPES)
@pytest.mark.parametrize("variant", ["scaled", "scaled_bias"])
def test_fp8_every_m_and_large_shapes(variant, out_dtype):
    if torch.cuda.get_device_capability() < (8, 9):
        pytest.skip("fp8 needs SM89+")
    worst = 0.0
    shapes = [(m, 136, 208) for m in range(1, 301)] + [(4096, 4096, 4096), (8192, 8192, 8192), (1, 14336, 4096),
                                                       (3000, 5120, 1536)]
    for m, n, k in shapes:
        p = make_problem(variant, m, n, k, out_dtype, seed=m + k, fp8=True, scalar_a=(m % 7 == 0),
                         scalar_b=(m % 14 == 0))
        out = torch.full((m, n), float("nan"), dtype=out_dtype, device="cuda")
        run_op(variant, p, out)
        # fp8 kernels use CUTLASS's fast accumulation (as vLLM's do): its error grows with K, so the
        # per-element absolute allowance is 1% of the largest output instead of 0.2%.
        worst = max(worst, check(out, reference64(p), f"fp8 {variant} {out_dtype} {(m, n, k)}", abs_frac=1e-2))
    print(f"fp8 {variant} {out_dtype}: worst relative error {worst:.2e}")


@pytest.mark.parametrize("variant,out_dtype", [("scaled_bias", torch.bfloat16), ("scaled", torch.float16)])
def test_fp8_wide_layers_take_their_tile(variant, out_dtype):
    """e4m3 at M 17..64 on layers with N >= 12288 runs heuristics.FP8_WIDE (64x128x256), correct against float64
    with partial tiles in M, N and K, on the Python path and the C++ fast path; at M <= 16 the decode GEMV
    (heuristics.GEMV) serves such layers since session 15."""
    from cutlass_gemm.kernels import heuristics
    if ops.kernel_sm(torch.cuda.current_device()) != 90:
        pytest.skip("an SM90 row")
    for m, n, k in ((16, 14336, 4096), (61, 12296, 528), (33, 12288, 256)):
        p = make_problem(variant, m, n, k, out_dtype, seed=m, fp8=True)
        for call in range(2):
            out = torch.full((m, n), float("nan"), dtype=out_dtype, device="cuda")
            run_op(variant, p, out)
            check(out, reference64(p), f"fp8 wide {variant} {(m, n, k)} call {call}", abs_frac=1e-2)
        plan = ops._plans[ops.plan_key(torch.cuda.current_device(), variant, torch.float8_e4m3fn, out_dtype, "token",
                                         "channel", m, n, k)]
        config = plan[1].config
        if heuristics.gemv_serves(90, m, n, "e4m3", variant):
            assert not hasattr(config, "tile"), f"M = {m}: {config.name} serves, not the decode GEMV"
        else:
            assert config.tile == heuristics.FP8_WIDE.tile, config.name


@pytest.mark.parametrize("fp8", [False, True])
def test_mostly_empty_last_tiles_take_the_multicast_tile(fp8):
    """heuristics.PARTIAL (session 61): a caller's unpadded M that leaves the last 128-row unit at most a quarter full
    runs the 256 x 128 c1x2 tile (where it makes >= 100 CTAs), correct against float64 on the Python path and the C++
    fast path; a whole-tile M of the same layer keeps the table's tile. With the ops' row padding off: where it is on,
    such calls run on whole tiles (test_rowpad_gpu.py)."""
    if ops.kernel_sm(torch.cuda.current_device()) != 90:
        pytest.skip("an SM90 rule")
    dtype = torch.float8_e4m3fn if fp8 else torch.int8
    with row_padding(False):  # the rule serves unpadded rows: the ops' own padding off (CUTLASS_GEMM_PAD_ROWS=0)
        _mostly_empty_last_tiles(dtype, fp8)


def _mostly_empty_last_tiles(dtype, fp8):
    from cutlass_gemm.kernels import heuristics
    for m, n, k, tile in ((140, 28672, 1024, (256, 128, 128)), (905, 4096, 528, (256, 128, 128)),
                          (1024, 4096, 528, (128, 128, 128))):
        p = make_problem("scaled_bias", m, n, k, torch.bfloat16, seed=m, fp8=fp8)
        for call in range(2):  # the first call plans it (Python path), the second runs the C++ fast path
            out = torch.full((m, n), float("nan"), dtype=torch.bfloat16, device="cuda")
            run_op("scaled_bias", p, out)
            check(out, reference64(p), f"{dtype} {(m, n, k)} call {call}", abs_frac=1e-2 if fp8 else 2e-3)
        plan = ops._plans[ops.plan_key(torch.cuda.current_device(), "scaled_bias", dtype, torch.bfloat16, "token",
                                         "channel", m, n, k)]
        assert plan[1].config.tile == tile == heuristics.choose_tile(90, m, n, "e4m3" if fp8 else "int8", k).tile


@pytest.mark.parametrize("out_dtype", OUT_DTYPES)
def test_int32_accumulation_is_exact(out_dtype):
    """Unit scales and small integers: the output must equal the exact integer product."""
    m, n, k = 77, 64, 2048
    g = torch.Generator(device="cuda").manual_seed(3)
    a = torch.randint(0, 2, (m, k), dtype=torch.int8, device="cuda", generator=g)
    w = torch.randint(0, 2, (n, k), dtype=torch.int8, device="cuda", generator=g)
    one = torch.ones(1, device="cuda")
    out = cutlass_gemm.scaled_mm(a, w.t(), one, one, out_dtype)
    exact = (a.long().cpu() @ w.long().cpu().t())
    assert exact.max() <= 2048  # integers up to 2048 are exact in fp16 (bf16: up to 256)
    if out_dtype == torch.float16:
        assert torch.equal(out.cpu().long(), exact)
    a2, w2 = a[:, :16].contiguous(), w[:, :16].contiguous()
    out2 = cutlass_gemm.scaled_mm(a2, w2.t(), one, one, out_dtype)
    assert torch.equal(out2.cpu().long(), a2.long().cpu() @ w2.long().cpu().t())


def test_functional_form_allocates_and_matches_out_form():
    p = make_problem("scaled_bias", 33, 256, 512, torch.bfloat16)
    out = torch.full((33, 256), float("nan"), dtype=torch.bfloat16, device="cuda")
    run_op("scaled_bias", p, out)
    fresh = cutlass_gemm.scaled_mm(p["a"], p["b"], p["scale_a"], p["scale_b"], torch.bfloat16, p["bias"])
    assert torch.equal(fresh, out)


def test_runs_on_the_current_stream():
    """Queued on a side stream behind a long sleep, the GEMM has not run when the default stream,
    which does not wait for side streams, snapshots the output; a launch on the legacy default
    stream would have written it already. The kernel is used once first: its first use loads its library, and
    that load waited for the side stream's sleep (the check failed so when the file ran in shards, session 27),
    which says nothing about the stream the launch goes to."""
    p = make_problem("scaled_bias", 512, 1024, 1024, torch.bfloat16)
    out = torch.full((512, 1024), float("nan"), dtype=torch.bfloat16, device="cuda")
    run_op("scaled_bias", p, torch.empty_like(out))
    torch.cuda.synchronize()
    s = torch.cuda.Stream()
    with torch.cuda.stream(s):
        torch.cuda._sleep(200_000_000)  # ~0.1 s of GPU time on this stream only
        run_op("scaled_bias", p, out)
    snapshot = out.clone()  # default stream
    torch.cuda.current_stream().synchronize()
    assert torch.isnan(snapshot).all(), "the GEMM ran before the side stream's sleep ended: wrong stream"
    s.synchronize()
    check(out, reference64(p), "side stream")


@pytest.mark.parametrize("op", ["scaled_mm", "scaled_mm_azp"])
def test_opcheck(op):
    p = make_problem("scaled_bias" if op == "scaled_mm" else "scaled_azp_per_token", 40, 128, 256, torch.bfloat16)
    if op == "scaled_mm":
        args = (p["a"], p["b"], p["scale_a"], p["scale_b"], torch.bfloat16, p["bias"])
        fn = torch.ops.cutlass_gemm.scaled_mm
    else:
        args = (p["a"], p["b"], p["scale_a"], p["scale_b"], torch.bfloat16, p["azp_adj"], p["azp"], p["bias"])
        fn = torch.ops.cutlass_gemm.scaled_mm_azp
    torch.library.opcheck(fn.default, args)
    out = torch.empty((40, 128), dtype=torch.bfloat16, device="cuda")
    torch.library.opcheck(getattr(torch.ops.cutlass_gemm, op + "_out").default, (out,) + args)


def compiled_matches_eager(p):
    """scaled_mm (problem `p`, with a bias) inside a torch.compile(fullgraph=True) function: the eager bits."""
    def layer(a, b, sa, sb, bias):
        return torch.relu(cutlass_gemm.scaled_mm(a, b, sa, sb, torch.bfloat16, bias)) * 2

    compiled = torch.compile(layer, fullgraph=True)
    args = (p["a"], p["b"], p["scale_a"], p["scale_b"], p["bias"])
    torch.testing.assert_close(compiled(*args), layer(*args), rtol=0, atol=0)


def test_works_inside_torch_compile():
    compiled_matches_eager(make_problem("scaled_bias", 64, 256, 512, torch.bfloat16))


def test_works_inside_a_cuda_graph():
    p = make_problem("scaled_azp_per_token", 16, 512, 1024, torch.float16)
    static = {k: v.clone() if isinstance(v, torch.Tensor) else v for k, v in p.items()}
    out = torch.full((16, 512), float("nan"), dtype=torch.float16, device="cuda")
    graph, _ = capture(lambda: run_op("scaled_azp_per_token", static, out))
    replays_match_float64(graph, static, out, lambda seed: make_problem("scaled_azp_per_token", 16, 512, 1024,
                                                                        torch.float16, seed=seed), (5, 6))


def replays_match_float64(graph, static, out, problem, seeds):
    """For each seed: problem(seed)'s tensors copied into the captured call's `static` ones, `out` (the graph's output)
    poisoned, one replay, every element against float64."""
    for seed in seeds:
        fresh = problem(seed)
        refill(static, fresh)
        out.fill_(float("nan"))
        graph.replay()
        torch.cuda.synchronize()
        check(out, reference64(fresh), f"graph replay {seed}")


def test_device_mismatch_and_misaligned_pointer_raise_before_launch():
    p = make_problem("scaled", 32, 128, 256, torch.bfloat16)
    with pytest.raises(cutlass_gemm.InvalidArgumentError, match="scale_a: must be on cuda"):
        cutlass_gemm.scaled_mm(p["a"], p["b"], p["scale_a"].cpu(), p["scale_b"], torch.bfloat16)
    raw = torch.zeros(32 * 256 + 16, dtype=torch.int8, device="cuda")
    shifted = raw[1:1 + 32 * 256].view(32, 256)
    with pytest.raises(cutlass_gemm.InvalidArgumentError, match="a: data pointer must be 16-byte aligned"):
        cutlass_gemm.scaled_mm(shifted, p["b"], p["scale_a"], p["scale_b"], torch.bfloat16)


def test_static_scale_kernels_need_no_broadcast():
    """Per-tensor activation scales with per-channel weights (int8) and per-tensor both (fp8) have
    their own kernels in the default set: no scale is broadcast for them."""
    sm = ops.kernel_sm(torch.cuda.current_device())
    for a_dtype, sb in (("int8", "channel"), ("e4m3", "tensor")):
        lib, want_a, want_b = ops.select_kernel(sm, "scaled_bias", a_dtype, "bf16", "tensor", sb, 100)
        assert (lib.config.scale_a, lib.config.scale_b, want_a, want_b) == ("tensor", sb, "tensor", sb)


def _cuda_kernels_of(fn) -> list:
    """Names of the CUDA kernels (and copies) one call of `fn` runs, from the profiler."""
    torch.cuda.synchronize()
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as prof:
        fn()
        torch.cuda.synchronize()
    return [e.name for e in prof.events() if e.device_type == torch.autograd.DeviceType.CUDA]


@pytest.mark.parametrize("fp8", [False, True])
def test_per_tensor_scales_broadcast_in_the_kernel(fp8):
    """SM90: a one-element scale given to a per-token / per-channel kernel is broadcast by the kernel itself (a
    dynamic stride in its epilogue, cg_launch's scale_flags): no copy kernel in the call, on the Python path and
    the C++ fast path alike, and the output is bit for bit the same kernel's with the scale expanded to a vector.
    Unpadded (CUTLASS_GEMM_PAD_ROWS=0): a padded call adds its one copy launch (test_rowpad_gpu.py)."""
    dev = torch.cuda.current_device()
    if ops.kernel_sm(dev) != 90:
        pytest.skip("the dynamic broadcast is the SM90 kernels'")
    with row_padding(False):
        _scalar_broadcast(dev, fp8)


def _scalar_broadcast(dev, fp8):
    from cutlass_gemm.kernels.epilogues import SCALE_A_SCALAR, SCALE_B_SCALAR
    n, k = 264, 400  # partial tiles in N and K
    flagged = 0
    for m in (17, 77, 300, 1000):
        for scalar_a, scalar_b in ((True, False), (False, True), (True, True)):
            p = make_problem("scaled_bias", m, n, k, torch.bfloat16, seed=m, scalar_a=scalar_a, scalar_b=scalar_b,
                             fp8=fp8)
            outs = []
            for call in range(2):  # the first call plans it (Python path); the second takes the C++ fast path
                out = torch.full((m, n), float("nan"), dtype=torch.bfloat16, device="cuda")
                names = _cuda_kernels_of(lambda: run_op("scaled_bias", p, out))
                assert len(names) == 1, f"m={m} scalar_a={scalar_a} scalar_b={scalar_b} call {call}: {names}"
                outs.append(out)
            sa, sb = ("tensor" if scalar_a else "token"), ("tensor" if scalar_b else "channel")
            plan = ops._plans[ops.plan_key(dev, "scaled_bias", p["a"].dtype, torch.bfloat16, sa, sb, m, n, k)]
            launch, lib, expand_a, expand_b, _, flags, _ = plan
            want = ((SCALE_A_SCALAR if scalar_a and lib.config.scale_a == "token" else 0)
                    | (SCALE_B_SCALAR if scalar_b and lib.config.scale_b == "channel" else 0))
            assert (expand_a, expand_b, flags) == (False, False, want), (m, sa, sb, lib.config.name)
            flagged += flags != 0
            # the same kernel, scales expanded to vectors, flags 0
            ref_out = torch.full((m, n), float("nan"), dtype=torch.bfloat16, device="cuda")
            lib.launch(*ops._launch_args("scaled_bias", p["a"], p["b"], p["scale_a"].expand(m, 1).contiguous(),
                                         p["scale_b"].reshape(1, -1).expand(1, n).contiguous(), p["bias"], None,
                                         None, ref_out, m, n, k, dev))
            assert torch.equal(outs[0], ref_out) and torch.equal(outs[1], ref_out), (m, sa, sb)
            check(outs[1], reference64(p), f"scalar broadcast m={m} {sa} x {sb}")
    assert flagged >= 4, "no call went through the in-kernel broadcast"


def test_selected_kernel_follows_the_table():
    sm = ops.kernel_sm(torch.cuda.current_device())
    for m in (1, 64, 65, 256, 257, 5000):
        lib, _, _ = ops.select_kernel(sm, "scaled_bias", "int8", "bf16", "token", "channel", m)
        assert lib.config.tile == cutlass_gemm.kernels.heuristics.choose_tile(sm, m).tile


@pytest.mark.parametrize("variant", VARIANTS)
def test_cpp_fast_path_matches_python_path(variant):
    """The first call of a shape plans it in Python; repeats go through the C++ fast path. Both
    must give bit-identical results, and bad input must still raise the typed errors."""
    from cutlass_gemm.runtime import fastpath
    for m in (1, 17, 64, 200, 1000):
        for scalar in (False, True):
            p = make_problem(variant, m, 256, 512, torch.bfloat16, seed=m, scalar_a=scalar, scalar_b=scalar)
            first = run_op(variant, p, torch.full((m, 256), float("nan"), dtype=torch.bfloat16, device="cuda"))
            assert ops._fast_ready, "the C++ fast path did not load: " + str(fastpath.FAST_PATH_ENV)
            again = run_op(variant, p, torch.full((m, 256), float("nan"), dtype=torch.bfloat16, device="cuda"))
            saved, ops._fast_ready = ops._fast_ready, False
            try:
                python = run_op(variant, p, torch.full((m, 256), float("nan"), dtype=torch.bfloat16, device="cuda"))
            finally:
                ops._fast_ready = saved
            assert torch.equal(first, again) and torch.equal(first, python)
            check(again, reference64(p), f"fast path {variant} m={m} scalar={scalar}")
    with pytest.raises(cutlass_gemm.InvalidArgumentError, match="^scale_b: "):
        bad = dict(p, scale_b=p["scale_b"].cpu())
        run_op(variant, bad, None)


def test_autotune_times_candidates_once_and_remembers(monkeypatch, tmp_path):
    from cutlass_gemm.runtime import autotune
    monkeypatch.setenv(autotune.AUTOTUNE_ENV, "1")
    monkeypatch.setattr(autotune, "autotune_dir", lambda: tmp_path)
    monkeypatch.setattr(ops, "_plans", {})
    p = make_problem("scaled_bias", 100, 1024, 2048, torch.bfloat16)
    out = run_op("scaled_bias", p, None)
    check(out, reference64(p), "autotuned")
    key = autotune.current_device_key(torch.cuda.current_device())
    table = autotune.get_autotuner().table(key)
    entry = table[autotune.entry_key("scaled_bias", "int8", "bf16", autotune.bucket_m(100), 1024, 2048)]
    sm = ops.kernel_sm(torch.cuda.current_device())
    assert len(entry["times_us"]) == len(autotune.default_candidates(sm))
    assert all(t is not None and t > 0 for t in entry["times_us"].values())
    plan = next(v for k, v in ops._plans.items() if k[-2:] == (1024, 2048))
    assert list(plan[1].config.tile) == entry["tile"]
    assert torch.equal(run_op("scaled_bias", p, None), out)
