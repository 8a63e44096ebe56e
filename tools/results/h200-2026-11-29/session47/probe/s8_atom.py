#!/usr/bin/env python3
"""Session 47 probe: the per-block int8 GEMM's per-atom mainloop (256 x 128 cooperative tiles, one int32 temporary of
one 64-row atom, kernels/cxx/blockwise_int8.hpp Int8AtomPromotionMainloop) against the overlapped 128 x 128 tiles
the op selects (SELECTION_S8) and this library's per-token int8 GEMM (`scaled_mm`), in one process.

    python s8_atom.py names           # the kernels to build (blockwise s8 candidates, "mn" and "k"; per-token int8)
    python s8_atom.py run OUT.json    # check, then time

Env (call 2 on): CG_PROBE_SHAPES "MxNxK,..." instead of SHAPES; CG_PROBE_CANDS comma-separated kernel names instead of
the int8 candidates; CG_PROBE_AB "e4m3" for the fp8 kernels (a: e4m3 (M, K), b: the (N, K) e4m3 weight passed as its
(K, N) transpose, scale_b per 128 x 128 block; the per-token column is then skipped); CG_PROBE_SFA "k" for a
row-major scale_a.

Per shape: every candidate's output against the float64 reference of its quantized operands (every element: max
|err| / max |ref| and relative Frobenius error), and bitwise against the selected kernel's (same wgmmas, same
promotion arithmetic per element and K block: the bits must agree); then all timed in alternating batches
(bench_common.alternating_time_us: CUDA events, batches of 20 behind a GPU sleep, median of 9 rounds; weights
rotated over copies beyond L2). scale_a column-major ("mn"), as the op passes it at these M.
"""
import json
import os
import sys
from pathlib import Path
from unittest import mock

ROOT = Path(__file__).resolve().parents[5]
sys.path.insert(0, str(ROOT / "tools"))
sys.path.insert(0, str(ROOT))
from cutlass_gemm.kernels import blockwise as bk  # noqa: E402
from cutlass_gemm.kernels import heuristics  # noqa: E402

SHAPES = [(256, 8192, 8192), (512, 8192, 8192), (1024, 8192, 8192), (2048, 8192, 8192), (4096, 8192, 8192),
          (8192, 8192, 8192), (4096, 7168, 2048), (2048, 28672, 4096)]
if os.environ.get("CG_PROBE_SHAPES"):
    SHAPES = [tuple(int(v) for v in s.split("x")) for s in os.environ["CG_PROBE_SHAPES"].split(",")]
AB = os.environ.get("CG_PROBE_AB", "s8")
SFA = os.environ.get("CG_PROBE_SFA", "mn")  # (call 5 on) "k": scale_a row-major, as the op keeps it below K 4096


def per_token_names():
    names = set()
    for m, n, _ in SHAPES:
        choice = heuristics.choose_tile(90, m, n, "int8")
        names.add(heuristics.make_config(90, "scaled", "bf16", choice, a_dtype="int8", scale_a="token",
                                         scale_b="channel").name)
    return sorted(names)


def candidates():
    if os.environ.get("CG_PROBE_CANDS"):
        return [bk.BlockwiseConfig.from_name(n) for n in os.environ["CG_PROBE_CANDS"].split(",")]
    return [c for c in bk.s8_candidate_configs("bf16", "mn")]


def main():
    if sys.argv[1] == "names":
        print("\n".join(c.name for c in candidates()))
        print("\n".join(per_token_names()))
        return
    import torch
    import cutlass_gemm
    from bench_common import alternating_time_us, copies_for
    from cutlass_gemm.ops import blockwise as bops
    from cutlass_gemm.ops import blockwise_int8 as bi8
    out_path = Path(sys.argv[2])
    rows = []
    cands = candidates()
    for m, n, k in SHAPES:
        g = torch.Generator(device="cuda").manual_seed(m + n + k)
        copies = copies_for(n * k)
        sa = torch.rand(m, k // 128, device="cuda", generator=g) * 1e-2
        if SFA == "mn":
            sa = sa.t().contiguous().t()
        st = torch.rand(m, 1, device="cuda", generator=g) * 1e-2
        if AB == "s8":
            ws = [torch.randint(-127, 128, (n, k), device="cuda", dtype=torch.int8, generator=g) for _ in range(copies)]
            sbs = [torch.rand(n, k // 128, device="cuda", generator=g) * 1e-3 + 1e-4 for _ in range(copies)]
            sch = [torch.rand(1, n, device="cuda", generator=g) * 1e-3 + 1e-4 for _ in range(copies)]
            a = torch.randint(-127, 128, (m, k), device="cuda", dtype=torch.int8, generator=g)
            ref = bi8.reference(a, ws[0], sa, sbs[0], None, torch.bfloat16, "none", 128, torch.float64).double()
            op = lambda w, sb: cutlass_gemm.scaled_mm_blockwise_int8(a, w, sa, sb, block_size=128)  # noqa: E731
        else:
            e4 = torch.float8_e4m3fn
            ws = [torch.randn(n, k, device="cuda", generator=g).to(e4) for _ in range(copies)]
            sbs = [torch.rand(-(-n // 128), k // 128, device="cuda", generator=g) * 1e-3 + 1e-4 for _ in range(copies)]
            a = torch.randn(m, k, device="cuda", generator=g).to(e4)
            big_a = a.double() * sa.double().repeat_interleave(128, 1)
            big_b = ws[0].double() * sbs[0].double().repeat_interleave(128, 0)[:n].repeat_interleave(128, 1)
            ref = (big_a @ big_b.t()).to(torch.bfloat16).double()  # the kernel's float sum rounded once to bf16
            del big_a, big_b
            op = lambda w, sb: cutlass_gemm.scaled_mm_blockwise(a, w.t(), sa, sb)  # noqa: E731
        selected = bk.select_config("bf16", m, sfa_major=SFA, ab=AB, n=n)
        it = [0]

        def nxt():
            it[0] += 1
            return it[0] % copies

        def runner(cfg):
            def call(i=None):
                j = nxt() if i is None else i
                with mock.patch.object(bops, "select_config", lambda *a_, **kw: cfg):
                    return op(ws[j], sbs[j])
            return call

        outs, checks, fns = {}, {}, []
        for cfg in cands:
            bops._plans.clear()
            fn = runner(cfg)
            poison = torch.full((m, n), float("nan"), device="cuda", dtype=torch.bfloat16)
            del poison  # the op's torch.empty output takes this NaN-filled block back from the caching allocator
            y = fn(0)
            outs[cfg.name] = y
            d = y.double() - ref
            checks[cfg.name] = {"max_err_over_max_ref": (d.abs().max() / ref.abs().max()).item(),
                                "rel_fro": (d.norm() / ref.norm()).item(), "finite": bool(torch.isfinite(y).all())}
            fns.append(fn)
        for name in outs:  # (None where the selected kernel is not among the candidates)
            checks[name]["bitwise_equal_selected"] = (bool(torch.equal(outs[name], outs[selected.name]))
                                                      if selected.name in outs else None)

        def per_token():
            j = nxt()
            return cutlass_gemm.scaled_mm(a, ws[j].t(), st, sch[j], torch.bfloat16)
        per_token = per_token if AB == "s8" else (lambda: None)
        # the candidates' plans: one per cfg (select_config patched inside each call; plans keyed by shape, so
        # cleared per call through the mock above would be costly: time with plans per cfg instead)
        timed = []
        for cfg, fn in zip(cands, fns):
            bops._plans.clear()
            fn()  # plan for this cfg
            plan_snapshot = dict(bops._plans)
            timed.append((cfg, plan_snapshot))

        def with_plans(snapshot):
            def call():
                bops._plans.clear()
                bops._plans.update(snapshot)
                j = nxt()
                return op(ws[j], sbs[j])
            return call
        times = alternating_time_us([per_token] + [with_plans(s) for _, s in timed])
        row = {"m": m, "n": n, "k": k, "selected": selected.name, "per_token_us": times[0],
               "candidates": {cfg.name: {"us": t, "per_token_over": times[0] / t, **checks[cfg.name]}
                              for (cfg, _), t in zip(timed, times[1:])}}
        rows.append(row)
        print(json.dumps(row), flush=True)
        out_path.write_text(json.dumps(rows, indent=1))
        del ws, sbs, outs, ref, op
        torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
