#!/usr/bin/env python3
"""Session 63 probe: the row-padding copy (runtime/csrc/pad_rows.cu) launched as a programmatic dependent (PDL) against
the same copy launched plainly, beside the unpadded op, in one process.

Per (M, N, K): `scaled_mm` int8 and e4m3 (per-token x per-channel, bf16 out) and `scaled_mm_blockwise` e4m3
(row-major scale_a), arms
  force        padded wherever padded_rows pads (session 62's "force"), the copy a programmatic dependent (the default)
  force_plain  the same with the extension's kernels launched plainly (extension pdl_set(0); the GEMMs keep theirs)
  own          the caller's own padding (no copy): force - own is what the copy costs
  copy         the int8 arm's pad2d alone (A and scale_a into the padded rows), no GEMM between the copies
  rule         (the "rule" mode) where the library's rules, or fit.py's, pad; int8 "rule_out" / "nopad_out": with out=
  nopad        CUTLASS_GEMM_PAD_ROWS=0
CUDA graphs of 20 calls per arm replayed in alternation, 7 rounds, median (session 62's pad_ops.py helpers). Every
arm's output checked against force's (max abs difference: force, force_plain and own must agree bit for bit).

    python pad_pdl.py sweep OUT.json ROWS SHAPES          # e.g. 17,140 8192x8192,4096x4096 (N x K)
    python pad_pdl.py rule OUT.json ROWS SHAPES [RULES.json]  # arms rule / force / nopad: the library's rules, or fit.py's
"""
import json
import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1] / "session62" / "probe"))
import pad_ops as P  # noqa: E402  (session 62's probe: graph(), alternate(), setting(); it puts the repo on sys.path)

ABS = ("int8", "e4m3")
#: The rules of the "rule" arm: the library's, or a fit's (fit.py) given on the command line
RULES = {"scaled": P.H.OP_PAD[90], "blockwise": P.B.OP_PAD_E4M3}


def setting(arm):
    """Row padding for an arm: "nopad" off, "force" / "force_plain" wherever padded_rows pads, "rule" where RULES say;
    plans made again (session 62's pad_ops.setting, with the blockwise family's own rule since session 63)."""
    from cutlass_gemm.kernels.tile_rules import OpPadRule
    os.environ[P.PAD_ENV] = "0" if arm == "nopad" else "1"
    everywhere = arm in ("force", "force_plain")
    P.H.OP_PAD[90] = OpPadRule(0.0, 0) if everywhere else RULES["scaled"]
    P.B.OP_PAD_E4M3 = OpPadRule(0.0, 0) if everywhere else RULES["blockwise"]
    P.forget()


def point(n, k, m, w, bw, arms):
    import torch
    import cutlass_gemm
    from cutlass_gemm.runtime import extension
    ext = extension.load()
    g = torch.Generator(device="cuda").manual_seed(m + n + k)
    graphs, samples, keep = {}, {}, []

    def add(name, fn, pdl=1):
        ext.pdl_set(pdl)
        try:
            graphs[name], samples[name] = P.graph(fn)
        finally:
            ext.pdl_set(1)

    for ab in ABS:
        a = (torch.randint(-127, 128, (m, k), device="cuda", dtype=torch.int8, generator=g) if ab == "int8"
             else torch.randn(m, k, device="cuda", generator=g).to(torch.float8_e4m3fn))
        sa = torch.rand(m, 1, device="cuda", generator=g) * 1e-2 + 1e-3
        rows = P.H.padded_rows(90, m, n, ab, "scaled", "none", k)
        a_own = torch.zeros(rows, k, device="cuda", dtype=torch.int8).view(a.dtype)
        a_own[:m] = a
        sa_own = torch.ones(rows, 1, device="cuda")
        sa_own[:m] = sa
        b, sb = w[ab], w["sb"]
        keep += [a, sa, a_own, sa_own]
        out = torch.empty(m, n, device="cuda", dtype=torch.bfloat16)
        keep.append(out)
        for arm in arms:
            setting(arm)
            add(f"{ab}_{arm}", lambda: cutlass_gemm.scaled_mm(a, b, sa, sb, torch.bfloat16),
                0 if arm == "force_plain" else 1)
            if ab == "int8" and arm in ("rule", "nopad") and "rule" in arms:  # with out= given
                add(f"{ab}_{arm}_out", lambda: cutlass_gemm.scaled_mm(a, b, sa, sb, torch.bfloat16, out=out))
        add(f"{ab}_own", lambda: cutlass_gemm.scaled_mm(a_own, b, sa_own, sb, torch.bfloat16))
        samples[f"{ab}_own"] = samples[f"{ab}_own"][:m]
        if ab == "int8":  # the copy alone: pad2d of A and scale_a into the padded rows (no GEMM)
            a_pad, sa_pad = torch.empty_like(a_own), torch.empty_like(sa_own)
            keep += [a_pad, sa_pad]
            add("copy", lambda: ext.pad2d([a, sa], [a_pad, sa_pad]) or a_pad)
    a = torch.randn(m, k, device="cuda", generator=g).to(torch.float8_e4m3fn)
    sa = torch.rand(m, k // 128, device="cuda", generator=g) * 1e-2 + 1e-3
    rows = P.B.padded_rows(m, "e4m3", n)
    a_own = torch.zeros(rows, k, device="cuda", dtype=torch.int8).view(a.dtype)
    a_own[:m] = a
    sa_own = torch.zeros(rows, k // 128, device="cuda")
    sa_own[:m] = sa
    keep += [a, sa, a_own, sa_own]
    for arm in arms:
        setting(arm)
        add(f"bw_{arm}", lambda: cutlass_gemm.scaled_mm_blockwise(a, bw["b"], sa, bw["sb"]),
            0 if arm == "force_plain" else 1)
    add("bw_own", lambda: cutlass_gemm.scaled_mm_blockwise(a_own, bw["b"], sa_own, bw["sb"]))
    samples["bw_own"] = samples["bw_own"][:m]
    setting("rule")
    med, runs = P.alternate(graphs)
    diff = {name: float((s.float() - samples[name.split("_")[0] + "_" + arms[0]].float()).abs().max())
            for name, s in samples.items() if name != "copy"}
    del graphs
    torch.cuda.synchronize()
    del keep
    return med, runs, diff


def sweep(out_path, rows, shapes, arms):
    import torch
    from cutlass_gemm.quant.blockwise import quantize_weight_block2d
    res = []
    for n, k in shapes:
        g = torch.Generator(device="cuda").manual_seed(n * 7 + k)
        w = {"int8": torch.randint(-127, 128, (n, k), device="cuda", dtype=torch.int8, generator=g).t(),
             "e4m3": torch.randn(n, k, device="cuda", generator=g).to(torch.float8_e4m3fn).t(),
             "sb": torch.rand(1, n, device="cuda", generator=g) * 1e-2 + 1e-3}
        wq = quantize_weight_block2d(torch.randn(n, k, device="cuda", generator=g) * 0.05)
        bw = {"b": wq.q.t(), "sb": wq.scale}
        for m in rows:
            med, runs, diff = point(n, k, m, w, bw, arms)
            rows_int8 = P.H.padded_rows(90, m, n, "int8", "scaled", "none", k)
            res.append(dict(m=m, n=n, k=k, rows_gemm={ab: P.H.padded_rows(90, m, n, ab, "scaled", "none", k) for ab in ABS},
                            rows_rule={ab: P.H.op_padded_rows(90, m, n, ab, "scaled", "none", k) for ab in ABS},
                            rows_blockwise=P.B.padded_rows(m, "e4m3", n),
                            rows_blockwise_rule=P.B.op_padded_rows(m, "e4m3", n, k), us=med, runs=runs,
                            max_abs_diff=diff))
            line = " ".join(f"{name} {t:.1f}" for name, t in med.items())
            line += f" | copy alone {med['copy']:.2f} us {(m * k + rows_int8 * k) / med['copy'] / 1e3:.0f} GB/s"
            if "force_plain" in arms:
                line += " | copy pdl/plain " + " ".join(
                    f"{p} {med[p + '_force'] - med[p + '_own']:.1f}/{med[p + '_force_plain'] - med[p + '_own']:.1f}"
                    for p in ("int8", "e4m3", "bw"))
            print(f"{m}x{n}x{k}: {line} | diff {max(diff.values()):.3g}", flush=True)
            torch.cuda.empty_cache()
        Path(out_path).write_text(json.dumps(res, indent=1))
    Path(out_path).write_text(json.dumps(res, indent=1))


if __name__ == "__main__":
    rows = [int(r) for r in sys.argv[3].split(",")]
    shapes = [tuple(int(v) for v in s.split("x")) for s in sys.argv[4].split(",")]
    arms = ("force", "force_plain", "nopad") if sys.argv[1] == "sweep" else ("rule", "force", "nopad")
    if len(sys.argv) > 5:
        from cutlass_gemm.kernels.tile_rules import OpPadRule
        RULES.update({fam: OpPadRule(**v) for fam, v in json.loads(Path(sys.argv[5]).read_text())["rules"].items()})
        print("rules:", RULES, flush=True)
    sweep(sys.argv[2], rows, shapes, arms)
