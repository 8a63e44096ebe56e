"""`benchmark.py shapes`: the fused int8 / fp8 GEMM (one call, dequantization in the epilogue) against what users would
pick instead at each M x N x K: torch._int_mm (with and without a torch epilogue), bf16 torch.mm, torch._scaled_mm
(rowwise and, with both scales per-tensor, tensorwise), cuBLASLt int8 on request. The fp8 ratios are timed in
alternating batches (bench_common.alternating_time_us), with this library's kernels launched as programmatic
dependents (the default) and plainly; `Problem` (random operands, weights rotated past L2) is shared with the tiles,
decode and overhead commands."""
import math
import sys
import time
from pathlib import Path

import torch

import cutlass_gemm
from bench_common import (alternating_time_us, copies_for, gpu_time_us, parse_shapes, plain_launch, plot_panels, report,
                          write_results)


class Problem:
    """Random int8/fp8/bf16 operands for one shape; weights rotated across copies to defeat L2."""

    def __init__(self, m, n, k, seed=0):
        g = torch.Generator(device="cuda").manual_seed(seed)
        self.m, self.n, self.k = m, n, k
        copies = copies_for(n * k)
        self.a = torch.randint(-128, 128, (m, k), dtype=torch.int8, device="cuda", generator=g)
        self.w = [torch.randint(-128, 128, (n, k), dtype=torch.int8, device="cuda", generator=g) for _ in range(copies)]
        self.sa = torch.rand(m, 1, device="cuda", generator=g) * 1e-2 + 1e-3
        self.sb = torch.rand(1, n, device="cuda", generator=g) * 1e-2 + 1e-3
        self.bias = torch.randn(n, device="cuda", generator=g).bfloat16()
        self.i = 0

    def next_w(self):
        self.i = (self.i + 1) % len(self.w)
        return self.w[self.i]

    def bf16(self):
        self.a16 = self.a.bfloat16()
        copies = copies_for(2 * self.n * self.k, hi=4)
        self.w16 = [w.bfloat16() for w in self.w[:copies]]

    def fp8(self):
        self.a8 = self.a.to(torch.float8_e4m3fn)
        self.w8 = [w.to(torch.float8_e4m3fn) for w in self.w]


def bench_shape(m, n, k, with_cublaslt=False):
    p = Problem(m, n, k)
    p.bf16()
    p.fp8()
    flops = 2 * m * n * k
    rows = {}

    def ours():
        cutlass_gemm.scaled_mm(p.a, p.next_w().t(), p.sa, p.sb, torch.bfloat16, p.bias)

    rows["cutlass_gemm int8 fused"] = gpu_time_us(ours)

    def ours_fp8():
        cutlass_gemm.scaled_mm(p.a8, p.w8[p.i].t(), p.sa, p.sb, torch.bfloat16, p.bias)
        p.next_w()

    try:
        rows["cutlass_gemm fp8 fused"] = gpu_time_us(ours_fp8)
    except Exception as exc:
        print(f"  cutlass_gemm fp8 failed at {m}x{n}x{k}: {exc}", file=sys.stderr)
    if m > 16:
        rows["torch._int_mm (no epilogue)"] = gpu_time_us(lambda: torch._int_mm(p.a, p.next_w().t()))
        rows["_int_mm + torch epilogue"] = gpu_time_us(
            lambda: (torch._int_mm(p.a, p.next_w().t()).float() * p.sa * p.sb + p.bias).bfloat16())
    j = [0]

    def bf16_mm():
        j[0] = (j[0] + 1) % len(p.w16)
        torch.mm(p.a16, p.w16[j[0]].t())

    rows["bf16 torch.mm"] = gpu_time_us(bf16_mm)

    def fp8():
        torch._scaled_mm(p.a8, p.w8[p.i].t(), scale_a=p.sa, scale_b=p.sb, bias=p.bias, out_dtype=torch.bfloat16)
        p.next_w()

    try:
        rows["torch._scaled_mm fp8 rowwise+bias"] = gpu_time_us(fp8)
    except Exception as exc:  # report, do not hide
        print(f"  _scaled_mm failed at {m}x{n}x{k}: {exc}", file=sys.stderr)
    if "cutlass_gemm fp8 fused" in rows and "torch._scaled_mm fp8 rowwise+bias" in rows:
        # The fp8 ratio again, timed in alternating batches (one clock for all three; bench_common), with this
        # library's kernels launched as programmatic dependents (the default) and plainly.
        timed = alternating_time_us([ours_fp8, plain_launch(ours_fp8), fp8])
        for name, us in zip(ALTERNATING_FP8, timed):
            rows[name] = us
        # Both scales per-tensor (fp8 checkpoints' common form; torch._scaled_mm's tensorwise mode): this library's
        # per-tensor kernels, launched as programmatic dependents since generator 5 and plainly, in alternation.
        sa1, sb1 = p.sa[:1, 0].clone(), p.sb[0, :1].clone()

        def ours_fp8_tensor():
            cutlass_gemm.scaled_mm(p.a8, p.w8[p.i].t(), sa1, sb1, torch.bfloat16, p.bias)
            p.next_w()

        def fp8_tensor():
            torch._scaled_mm(p.a8, p.w8[p.i].t(), scale_a=sa1, scale_b=sb1, bias=p.bias, out_dtype=torch.bfloat16)
            p.next_w()

        try:
            timed = alternating_time_us([ours_fp8_tensor, plain_launch(ours_fp8_tensor), fp8_tensor])
            for name, us in zip(ALTERNATING_FP8_TENSOR, timed):
                rows[name] = us
        except Exception as exc:
            print(f"  per-tensor fp8 failed at {m}x{n}x{k}: {exc}", file=sys.stderr)
    if with_cublaslt:
        try:
            from cutlass_gemm.cublaslt import int8_matmul
            rows["cuBLASLt int8 TN (int32 out)"] = gpu_time_us(lambda: int8_matmul(p.a, p.next_w()))
        except Exception as exc:
            print(f"  cuBLASLt failed at {m}x{n}x{k}: {exc}", file=sys.stderr)
    out = []
    for name, us in rows.items():
        weight_bytes = n * k * (2 if name.startswith("bf16") else 1)  # int8 and fp8: one byte
        act_bytes = m * k * (2 if name.startswith("bf16") else 1)
        out_bytes = m * n * (4 if "no epilogue" in name or "int32" in name else 2)
        out.append({"m": m, "n": n, "k": k, "impl": name, "us": round(us, 2), "tops": round(flops / us / 1e6, 1),
                    "gbps": round((weight_bytes + act_bytes + out_bytes) / us / 1e3, 1)})
    return out


#: The rows of the alternating fp8 measurement: ours (programmatic launch), ours plainly launched, torch's.
ALTERNATING_FP8 = ("alternating: cutlass_gemm fp8 fused", "alternating: cutlass_gemm fp8 fused, plain launch",
                   "alternating: torch._scaled_mm fp8 rowwise+bias")

#: The same with both scales per-tensor: ours, ours plainly launched, torch._scaled_mm tensorwise.
ALTERNATING_FP8_TENSOR = ("alternating: cutlass_gemm fp8 per-tensor", "alternating: cutlass_gemm fp8 per-tensor, plain launch",
                          "alternating: torch._scaled_mm fp8 tensorwise+bias")

SHAPES_NK = [(4096, 4096), (4096, 14336), (14336, 4096), (5120, 5120), (8192, 8192), (28672, 8192)]
#: Powers of two fill every tile; 132, 260 and 520 rows leave the last M tile nearly empty, where the SM90 GEMMs lose
#: 1.1-1.7x (docs/performance.md, "Partial M tiles"): a serving engine's prefill chunks are of any length.
SHAPES_M = [1, 8, 16, 32, 64, 128, 132, 256, 260, 512, 520, 1024, 2048, 4096, 8192]


def cmd_shapes(args):
    shapes = [(m, n, k) for n, k in SHAPES_NK for m in SHAPES_M]
    if args.quick:
        shapes = [(16, 8192, 8192), (128, 8192, 8192), (4096, 4096, 4096), (8192, 8192, 8192)]
    if args.shapes:
        shapes = parse_shapes(args.shapes)
    rows = []
    for m, n, k in shapes:
        t0 = time.time()
        rows += bench_shape(m, n, k, with_cublaslt=args.cublaslt)
        print(f"{m}x{n}x{k} done in {time.time() - t0:.1f} s", file=sys.stderr, flush=True)
    write_results(args.out, "shapes", rows)
    summarize(rows, args.out)


def summarize(rows, out_dir):
    by_shape = {}
    for r in rows:
        by_shape.setdefault((r["m"], r["n"], r["k"]), {})[r["impl"]] = r
    lines = ["| M x N x K | ours int8 us (TOPS) | vs _int_mm | vs _int_mm+epi | vs bf16 mm | ours fp8 us | fp8: vs _scaled_mm "
             "| fp8 alternating: vs _scaled_mm (plain launch) | fp8 per-tensor alternating: vs _scaled_mm (plain launch) |",
             "|---|---|---|---|---|---|---|---|---|"]
    speedups_unfused, slow_vs_bf16 = [], []
    for (m, n, k), r in by_shape.items():
        ours = r["cutlass_gemm int8 fused"]["us"]

        def ratio(name):
            return f"{r[name]['us'] / ours:.2f}x" if name in r else "-"

        if "_int_mm + torch epilogue" in r:
            speedups_unfused.append(r["_int_mm + torch epilogue"]["us"] / ours)
        if r["bf16 torch.mm"]["us"] < ours / 1.10:
            slow_vs_bf16.append(f"{m}x{n}x{k}")
        f8 = r.get("cutlass_gemm fp8 fused")
        f8_ratio = (f"{r['torch._scaled_mm fp8 rowwise+bias']['us'] / f8['us']:.2f}x"
                    if f8 and "torch._scaled_mm fp8 rowwise+bias" in r else "-")
        alt_ratio, alt_tensor = (_alternating_ratio([r.get(name) for name in group])
                                 for group in (ALTERNATING_FP8, ALTERNATING_FP8_TENSOR))
        lines.append(f"| {m}x{n}x{k} | {ours:.1f} ({r['cutlass_gemm int8 fused']['tops']}) | {ratio('torch._int_mm (no epilogue)')} "
                     f"| {ratio('_int_mm + torch epilogue')} | {ratio('bf16 torch.mm')} | {f8['us'] if f8 else '-'} | {f8_ratio} "
                     f"| {alt_ratio} | {alt_tensor} |")
    if speedups_unfused:
        geo = math.exp(sum(map(math.log, speedups_unfused)) / len(speedups_unfused))
        lines.append(f"\nGeometric-mean speedup over _int_mm + torch epilogue ({len(speedups_unfused)} shapes, M > 16): {geo:.2f}x")
    lines.append(f"Shapes where bf16 torch.mm is more than 10% faster: {', '.join(slow_vs_bf16) or 'none'}")
    lines.append("Ratios are baseline time / our time (above 1 = we are faster). The last two columns time our fp8 kernel "
                 "(programmatic dependent launch, the default; in brackets launched plainly) and torch._scaled_mm in "
                 "alternating batches, per-token x per-channel (rowwise) and both scales per-tensor (tensorwise); the "
                 "others one row after another.")
    panels = {}
    for (m, n, k), r in sorted(by_shape.items(), key=lambda kv: (kv[0][1], kv[0][2], kv[0][0])):
        for impl, row in sorted(r.items()):
            panels.setdefault(f"N={n}, K={k}", {}).setdefault(impl, []).append((m, row["tops"]))
    plot_panels(Path(out_dir) / "shapes.png", panels, "cutlass_gemm vs baselines", "M", "TOPS / TFLOPS")
    report(out_dir, "shapes", lines)


def _alternating_ratio(alt) -> str:
    """torch's time / ours (torch's / ours launched plainly) from an alternating group's three rows, or "-"."""
    return f"{alt[2]['us'] / alt[0]['us']:.2f}x ({alt[2]['us'] / alt[1]['us']:.2f}x)" if all(alt) else "-"
