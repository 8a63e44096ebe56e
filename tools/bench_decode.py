"""`python tools/benchmark.py decode`: W8A8 GEMMs at decode M (1-16) against the copy-bandwidth floor.

For each shape, in one process: our op as it serves the call (the decode GEMV, kernels/gemv.py), the same op
on the CUTLASS tile it used before the GEMV (CUTLASS_GEMM_GEMV=0 for those rows), int8 and fp8 e4m3; the
GEMV with each forced warps-per-CTA choice (the data behind heuristics.GEMV and the launcher's rule);
torch._scaled_mm (fp8 rowwise + bias) and bf16 torch.mm; then the main rows again as CUDA-graph replays (no launch
gaps between the calls, as in a graph-captured decode step). Beside "ours", the same calls with programmatic dependent
launches switched off (runtime/csrc/pdl.cuh; on by default on SM90): what the early start is worth. `--no-tiles`
leaves the CUTLASS tile rows out (each tile is a JIT build of about a minute on an empty cache). The floor is the
call's bytes (weight + activation + bf16 output) at the 1 GiB device copy rate measured in the same process. Weights
rotate across copies larger than L2, so every call streams its weight from HBM.
"""
import os
import sys

import torch

import cutlass_gemm
from bench_common import (copy_bandwidth_gbps, cycler, gpu_time_us, graph_time_us, parse_shapes, pdl_off, report,
                          write_results)
from cutlass_gemm.ops import gemm as ops
from cutlass_gemm.runtime import fastpath, gemv

SHAPES_NK = [(8192, 8192), (4096, 14336), (14336, 4096), (28672, 4096), (4096, 4096), (1024, 4096)]
SHAPES_M = [1, 4, 8, 16]


def use_gemv(on: bool) -> None:
    """Switch the GEMV on or off for the next calls: the env switch, then both plan caches forgotten."""
    os.environ[gemv.GEMV_ENV] = "1" if on else "0"
    ops._plans.clear()
    fast = fastpath.module()
    if fast is not None:
        fast.clear_plans()


def bench(m, n, k, bw_gbps, tiles=True):
    from benchmark import Problem  # the shapes benchmark's operands: random, weights rotated past L2
    p = Problem(m, n, k)
    p.bf16()
    p.fp8()
    w8 = cycler(p.w8)
    rows = {}

    def int8():
        cutlass_gemm.scaled_mm(p.a, p.next_w().t(), p.sa, p.sb, torch.bfloat16, p.bias)

    def fp8():
        cutlass_gemm.scaled_mm(p.a8, w8().t(), p.sa, p.sb, torch.bfloat16, p.bias)

    if tiles:
        use_gemv(False)
        rows["cutlass tile int8"] = gpu_time_us(int8)
        rows["cutlass tile fp8"] = gpu_time_us(fp8)
        rows["graph: cutlass tile int8"] = graph_time_us(int8)
    use_gemv(True)
    rows["ours int8"] = gpu_time_us(int8)
    rows["ours fp8"] = gpu_time_us(fp8)
    rows["graph: ours int8"] = graph_time_us(int8)
    rows["graph: ours fp8"] = graph_time_us(fp8)
    with pdl_off() as off:
        if off:
            rows["ours int8, PDL off"] = gpu_time_us(int8)
            rows["ours fp8, PDL off"] = gpu_time_us(fp8)
            rows["graph: ours int8, PDL off"] = graph_time_us(int8)
    for kw in (4, 8, 16):
        gemv.set_warps_k(kw)
        rows[f"gemv int8 warps_k={kw}"] = gpu_time_us(int8)
    gemv.set_warps_k(0)
    rows["torch._scaled_mm fp8"] = gpu_time_us(lambda: torch._scaled_mm(
        p.a8, w8().t(), scale_a=p.sa, scale_b=p.sb, bias=p.bias, out_dtype=torch.bfloat16))
    rows["graph: torch._scaled_mm fp8"] = graph_time_us(lambda: torch._scaled_mm(
        p.a8, w8().t(), scale_a=p.sa, scale_b=p.sb, bias=p.bias, out_dtype=torch.bfloat16))
    w16 = cycler(p.w16)
    rows["bf16 torch.mm"] = gpu_time_us(lambda: torch.mm(p.a16, w16().t()))
    rows["graph: bf16 torch.mm"] = graph_time_us(lambda: torch.mm(p.a16, w16().t()))
    out = []
    for name, us in rows.items():
        per = 2 if "bf16" in name else 1
        nbytes = (n * k + m * k) * per + 2 * m * n
        floor = nbytes / (bw_gbps * 1e3)
        out.append({"m": m, "n": n, "k": k, "impl": name, "us": round(us, 2), "floor_us": round(floor, 2),
                    "pct_floor": round(100 * floor / us, 1)})
    return out


def cmd_decode(args):
    bw = copy_bandwidth_gbps()
    print(f"copy bandwidth (1 GiB device-to-device, read + written): {bw:.0f} GB/s", flush=True)
    shapes = parse_shapes(args.shapes) if args.shapes else [(m, n, k) for n, k in SHAPES_NK for m in SHAPES_M]
    rows = []
    for m, n, k in shapes:
        r = bench(m, n, k, bw, tiles=not args.no_tiles)
        rows += r
        d = {x["impl"]: x for x in r}
        print(f"{m}x{n}x{k}: ours int8 {d['ours int8']['us']} us ({d['ours int8']['pct_floor']}% floor); fp8 "
              f"{d['ours fp8']['us']} vs _scaled_mm {d['torch._scaled_mm fp8']['us']}", file=sys.stderr, flush=True)
    write_results(args.out, "decode", rows)
    lines = [f"Copy bandwidth (1 GiB device-to-device copy, read + written): {bw:.0f} GB/s; floor = (weight + activation "
             f"+ bf16 output bytes) at that rate. us (% of floor); ratios: baseline / ours.", "",
             "| M x N x K | ours int8 | PDL off | CUTLASS tile int8 | GEMV warps 4 / 8 / 16 | ours fp8 | PDL off | "
             "CUTLASS tile fp8 | `_scaled_mm` fp8 | fp8 vs `_scaled_mm` | bf16 mm | int8 vs bf16 |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    by = {}
    for x in rows:
        by.setdefault((x["m"], x["n"], x["k"]), {})[x["impl"]] = x
    for (m, n, k), d in by.items():
        def cell(name):
            return f"{d[name]['us']:.1f} ({d[name]['pct_floor']:.0f}%)" if name in d else "-"
        sweep = " / ".join(f"{d[f'gemv int8 warps_k={kw}']['us']:.1f}" for kw in (4, 8, 16))
        lines.append(f"| {m}x{n}x{k} | {cell('ours int8')} | {cell('ours int8, PDL off')} | {cell('cutlass tile int8')} | "
                     f"{sweep} | {cell('ours fp8')} | {cell('ours fp8, PDL off')} | "
                     f"{cell('cutlass tile fp8')} | {cell('torch._scaled_mm fp8')} | "
                     f"{d['torch._scaled_mm fp8']['us'] / d['ours fp8']['us']:.2f}x | {d['bf16 torch.mm']['us']:.1f} | "
                     f"{d['bf16 torch.mm']['us'] / d['ours int8']['us']:.2f}x |")
    lines += ["", "The same calls captured in a CUDA graph (20 per graph, replay timed: no launch gaps, as a graph-captured decode "
              "step runs them), us (% of floor):", "",
              "| M x N x K | ours int8 | PDL off | CUTLASS tile int8 | ours fp8 | `_scaled_mm` fp8 | bf16 mm |",
              "|---|---|---|---|---|---|---|"]
    for (m, n, k), d in by.items():
        def gcell(name):
            return f"{d[name]['us']:.1f} ({d[name]['pct_floor']:.0f}%)" if name in d else "-"
        lines.append(f"| {m}x{n}x{k} | {gcell('graph: ours int8')} | {gcell('graph: ours int8, PDL off')} | "
                     f"{gcell('graph: cutlass tile int8')} | "
                     f"{gcell('graph: ours fp8')} | {gcell('graph: torch._scaled_mm fp8')} | {gcell('graph: bf16 torch.mm')} |")
    report(args.out, "decode", lines)


COMMANDS = {"decode": cmd_decode}
