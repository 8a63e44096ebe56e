#!/usr/bin/env python3
"""Session 62 probe: the ops padding a caller's rows to whole M tiles themselves (runtime/rowpad.py: one pad2d launch
copies A, a per-token scale_a and zero points; the kernel of the padded rows runs; the output's first M rows come back)
against the same op unpadded (CUTLASS_GEMM_PAD_ROWS=0: session 61's tile rule, heuristics.PARTIAL) and against the op
on operands the caller padded itself (what a layer gets by quantizing into whole tiles: the floor the copy adds to).

Per (M, N, K) and arm: `scaled_mm` int8 and e4m3 (per-token x per-channel, bf16 out, no bias), also with out= given
("<arm>_out": a copy of the output more where it pads), and `scaled_mm_blockwise` e4m3 (row-major scale_a as
quantize_per_group returns it); arms "force" (padded wherever padded_rows pads: call 2's "pad" arm), "rule" (where
heuristics.OP_PAD pads: the library since call 2), "nopad" (CUTLASS_GEMM_PAD_ROWS=0) and "own" (the caller's own
padding). GPU time per call from CUDA graphs of 20 eager calls each (the C++ fast path for scaled_mm), replayed in
alternation (7 rounds, median; bench_common's method), plus the eager wall clock per call (host included) of scaled_mm
int8 per arm. Every arm checked against the first (max abs difference; force and own must match bit for bit), and
against a float32 product (relative error).

    python pad_ops.py names [3]                    # kernels to build first (call 2's sweep and tests; 3: call 3's)
    python pad_ops.py sweep OUT.json [ROWS SHAPES [ARMS]]   # e.g. 140,655 22016x4096 rule,force,nopad (N x K)
"""
import json
import os
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[5]
sys.path[:0] = [str(ROOT / "tools"), str(ROOT), str(ROOT / "tests")]
from cutlass_gemm.kernels import blockwise_heuristics as B  # noqa: E402
from cutlass_gemm.kernels import heuristics as H  # noqa: E402

SHAPES = [(8192, 8192), (28672, 4096), (4096, 4096), (7168, 2048), (14336, 4096), (4096, 14336), (22016, 4096),
          (5120, 5120), (13824, 5120), (3072, 8192)]  # (N, K)
ROWS = [17, 40, 100, 140, 200, 260, 395, 520, 655, 700, 910, 1000]
ABS = ("int8", "e4m3")
PAD_ENV = "CUTLASS_GEMM_PAD_ROWS"
RULE = H.OP_PAD[90]
#: Call 3: rows and shapes neither call 1 nor call 2 ran (the rule's out-of-sample check)
ROWS3 = [20, 135, 150, 270, 400, 530, 660, 780, 900, 1020]
SHAPES3 = [(12288, 4096), (4096, 11008), (6144, 4096), (10240, 8192), (2560, 8192), (11008, 4096), (18432, 7168),
           (8192, 2048)]


def _recorded_kernels(calls):
    """Names of the kernels ops.select_kernel picks for `calls` [(variant, ab, out, sa, sb, rows, n, k)] on SM90, recorded
    without building (loader stubbed)."""
    from cutlass_gemm.ops import gemm as ops
    seen = set()

    class _Lib:
        def __init__(self, cfg):
            self.config = cfg
    ops.loader.cached_kernel = lambda cfg: None
    ops.loader.get_kernel = lambda cfg: seen.add(cfg.name) or _Lib(cfg)
    for variant, ab, out_dtype, sa, sb, rows, n, k in calls:
        ops._selected.clear()
        if not ops.heuristics.gemv_serves(90, rows, n, ab, variant):
            ops.select_kernel(90, variant, ab, out_dtype, sa, sb, rows, n=n, k=k)
    return seen


def names(call=2):
    """The kernels call `call`'s sweep and tests load (recorded by ops.select_kernel, built ahead)."""
    rows_list, shapes = (ROWS, SHAPES) if call == 2 else (ROWS3, SHAPES3)
    calls = []
    for n, k in shapes:
        for m in rows_list:
            for ab in ABS:
                pad = H.padded_rows(90, m, n, ab, "scaled", "none", k)
                calls += [("scaled", ab, "bf16", "token", "channel", r, n, k) for r in (m, pad)]
    # tests/test_rowpad_gpu.py
    from test_rowpad_gpu import SHAPES as TEST_SHAPES
    for m, n, k in TEST_SHAPES + [(256, 8200, 2064)]:
        for ab in ABS:
            for variant in ("scaled", "scaled_bias", "scaled_azp", "scaled_azp_per_token"):
                if ab == "e4m3" and variant.startswith("scaled_azp"):
                    continue
                for sa in ("token", "tensor"):
                    calls += [(variant, ab, "bf16", sa, "channel", r, n, k)
                              for r in (m, H.padded_rows(90, m, n, ab, variant, "none", k))]
    if call != 2:  # tests/test_ops_gpu.py: the tests session 62 changed or that plan padded calls
        for ab in ABS:
            for m, n, k in ((140, 28672, 1024), (905, 4096, 528), (1024, 4096, 528)):  # mostly_empty
                calls.append(("scaled_bias", ab, "bf16", "token", "channel", m, n, k))
            for m in (17, 77, 300, 1000):  # per_tensor_scales_broadcast
                calls += [("scaled_bias", ab, "bf16", sa, sb, m, 264, 400)
                          for sa, sb in (("tensor", "channel"), ("token", "tensor"), ("tensor", "tensor"))]
        for variant in ("scaled", "scaled_bias", "scaled_azp", "scaled_azp_per_token"):
            for m in (17, 64, 200, 1000):  # fast_path_matches_python_path
                calls += [(variant, "int8", "bf16", sa, sb, m, 256, 512)
                          for sa, sb in (("token", "channel"), ("tensor", "tensor"))]
        calls += [("scaled_bias", "int8", "bf16", "token", "channel", 40, 128, 256),  # opcheck
                  ("scaled_azp_per_token", "int8", "bf16", "token", "channel", 40, 128, 256),
                  ("scaled_bias", "int8", "bf16", "token", "channel", 64, 256, 512),  # torch.compile
                  ("scaled_azp_per_token", "int8", "f16", "token", "channel", 16, 512, 1024)]  # CUDA graph
    out = _recorded_kernels(calls)
    for n, k in shapes:
        for m in rows_list:
            for rows in (m, B.padded_rows(m, "e4m3", n)):
                for major in ("k", "mn"):
                    out.add(B.select_config("bf16", rows, "none", major, "e4m3", n).name)
    # tests/test_blockwise_gpu.py test_mostly_empty_last_tiles_run_on_whole_tiles / test_row_major_scale_a_relaid_at_deep_k
    for m, n, k in ((132, 16392, 1152), (260, 7168, 4096), (520, 4104, 4096), (600, 136, 4096), (602, 136, 4096)):
        for rows in (m, B.padded_rows(m, "e4m3", n)):
            for major in ("k", "mn"):
                out.add(B.select_config("bf16", rows, "none", major, "e4m3", n).name)
    return sorted(out)


def forget():
    from gpu_helpers import forget_gemm_plans
    forget_gemm_plans()


def graph(fn, calls=20):
    """A CUDA graph of `calls` calls of fn (warmed up on a side stream) and a sample output."""
    import torch
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for _ in range(3):
            sample = fn()
    torch.cuda.current_stream().wait_stream(side)
    torch.cuda.synchronize()
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        for _ in range(calls):
            fn()
    g.replay()
    torch.cuda.synchronize()
    return g, sample.clone()


def alternate(graphs, calls=20, rounds=7):
    import torch
    times = {name: [] for name in graphs}
    for _ in range(rounds):
        for name, g in graphs.items():
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            torch.cuda._sleep(1_000_000)
            start.record()
            g.replay()
            end.record()
            end.synchronize()
            times[name].append(start.elapsed_time(end) * 1e3 / calls)
    return {name: statistics.median(v) for name, v in times.items()}, times


def setting(arm):
    """Row padding for an arm: "nopad" off (CUTLASS_GEMM_PAD_ROWS=0), "force" on wherever padded_rows pads (call 2's
    "pad" arm), "rule" on where heuristics.OP_PAD says (the library's default since call 2); plans made again."""
    from cutlass_gemm.kernels.tile_rules import OpPadRule
    os.environ[PAD_ENV] = "0" if arm == "nopad" else "1"
    H.OP_PAD[90] = OpPadRule(0.0, 0) if arm == "force" else RULE
    forget()


def point(n, k, m, w, bw, arms):
    """Every arm at one (M, N, K): graphs made under each setting (plans are made at the first call), then timed in
    alternation. `arms`: of "force", "rule", "nopad" ("own": the caller's padding to padded_rows, "force_out" /
    "rule_out": with out= given, follow)."""
    import torch
    import cutlass_gemm
    from bench_common import wall_time_us
    g = torch.Generator(device="cuda").manual_seed(m + n + k)
    graphs, samples, wall = {}, {}, {}
    keep = []  # every tensor a graph reads or writes, alive until the graphs are gone (call 1 lost them: see README)
    for ab in ABS:
        a = (torch.randint(-127, 128, (m, k), device="cuda", dtype=torch.int8, generator=g) if ab == "int8"
             else torch.randn(m, k, device="cuda", generator=g).to(torch.float8_e4m3fn))
        sa = torch.rand(m, 1, device="cuda", generator=g) * 1e-2 + 1e-3
        rows = H.padded_rows(90, m, n, ab, "scaled", "none", k)
        a_own = torch.zeros(rows, k, device="cuda", dtype=torch.int8).view(a.dtype)
        a_own[:m] = a
        sa_own = torch.ones(rows, 1, device="cuda")
        sa_own[:m] = sa
        out = torch.empty(m, n, device="cuda", dtype=torch.bfloat16)
        b, sb = w[ab], w["sb"]
        keep += [a, sa, a_own, sa_own, out]
        ref = (a.float() @ b.float()) * sa * sb  # float32: a check that the padded call is right, not a bound
        for arm in arms:
            setting(arm)
            graphs[f"{ab}_{arm}"], samples[f"{ab}_{arm}"] = graph(
                lambda: cutlass_gemm.scaled_mm(a, b, sa, sb, torch.bfloat16))
            wall[f"rel_err_{ab}_{arm}"] = float((samples[f"{ab}_{arm}"].float() - ref).abs().max() / ref.abs().max())
            if arm != "nopad":
                graphs[f"{ab}_{arm}_out"], samples[f"{ab}_{arm}_out"] = graph(
                    lambda: cutlass_gemm.scaled_mm(a, b, sa, sb, torch.bfloat16, out=out))
            if arm == arms[0]:
                graphs[f"{ab}_own"], own = graph(lambda: cutlass_gemm.scaled_mm(a_own, b, sa_own, sb, torch.bfloat16))
                samples[f"{ab}_own"] = own[:m]
            if ab == "int8":
                wall[arm] = wall_time_us(lambda: cutlass_gemm.scaled_mm(a, b, sa, sb, torch.bfloat16), calls=100)
    # blockwise fp8, row-major scale_a
    a = torch.randn(m, k, device="cuda", generator=g).to(torch.float8_e4m3fn)
    sa = torch.rand(m, k // 128, device="cuda", generator=g) * 1e-2 + 1e-3
    rows = B.padded_rows(m, "e4m3", n)
    a_own = torch.zeros(rows, k, device="cuda", dtype=torch.int8).view(a.dtype)
    a_own[:m] = a
    sa_own = torch.zeros(rows, k // 128, device="cuda")
    sa_own[:m] = sa
    keep += [a, sa, a_own, sa_own]
    for arm in arms:
        setting(arm)
        graphs[f"bw_{arm}"], samples[f"bw_{arm}"] = graph(
            lambda: cutlass_gemm.scaled_mm_blockwise(a, bw["b"], sa, bw["sb"]))
        if arm == arms[0]:
            graphs["bw_own"], own = graph(lambda: cutlass_gemm.scaled_mm_blockwise(a_own, bw["b"], sa_own, bw["sb"]))
            samples["bw_own"] = own[:m]
    setting("rule")
    med, runs = alternate(graphs)
    diff = {}
    for name, s in samples.items():
        base = samples[name.split("_")[0] + "_" + arms[0]]
        diff[name] = float((s.float() - base.float()).abs().max())
    del graphs
    torch.cuda.synchronize()
    del keep
    return med, runs, diff, wall


def sweep(out_path, rows=None, shapes=None, arms=("force", "nopad")):
    import torch
    from cutlass_gemm.quant.blockwise import quantize_weight_block2d
    res = []
    for n, k in shapes or SHAPES:
        g = torch.Generator(device="cuda").manual_seed(n * 7 + k)
        w = {"int8": torch.randint(-127, 128, (n, k), device="cuda", dtype=torch.int8, generator=g).t(),
             "e4m3": torch.randn(n, k, device="cuda", generator=g).to(torch.float8_e4m3fn).t(),
             "sb": torch.rand(1, n, device="cuda", generator=g) * 1e-2 + 1e-3}
        wq = quantize_weight_block2d(torch.randn(n, k, device="cuda", generator=g) * 0.05)
        bw = {"b": wq.q.t(), "sb": wq.scale}
        for m in rows or ROWS:
            med, runs, diff, wall = point(n, k, m, w, bw, arms)
            row = dict(m=m, n=n, k=k, rows_gemm={ab: H.padded_rows(90, m, n, ab, "scaled", "none", k) for ab in ABS},
                       rows_blockwise=B.padded_rows(m, "e4m3", n), us=med, runs=runs, max_abs_diff_vs_pad=diff,
                       wall_us_int8=wall)
            res.append(row)
            print(f"{m}x{n}x{k}: " + " ".join(f"{name} {t:.1f}" for name, t in med.items())
                  + " | nopad/arm " + " ".join(f"{p}_{a} {med[p + '_nopad'] / med[p + '_' + a]:.2f}x"
                                               for p in ("int8", "e4m3", "bw") for a in arms if a != "nopad")
                  + " | wall int8 " + " ".join(f"{a} {wall[a]:.1f}" for a in arms)
                  + f" | rel err {max(v for key, v in wall.items() if key.startswith('rel_err')):.2g}"
                  + f" | diff own {max(diff[x + '_own'] for x in ('int8', 'e4m3', 'bw')):.3g}", flush=True)
            torch.cuda.empty_cache()
        Path(out_path).write_text(json.dumps(res, indent=1))
    Path(out_path).write_text(json.dumps(res, indent=1))


if __name__ == "__main__":
    if sys.argv[1] == "names":
        print("\n".join(names(int(sys.argv[2]) if len(sys.argv) > 2 else 2)))
    else:
        sweep(sys.argv[2], [int(r) for r in sys.argv[3].split(",")] if len(sys.argv) > 3 and sys.argv[3] else None,
              [tuple(int(v) for v in s.split("x")) for s in sys.argv[4].split(",")] if len(sys.argv) > 4 and sys.argv[4]
              else None, tuple(sys.argv[5].split(",")) if len(sys.argv) > 5 else ("force", "nopad"))
