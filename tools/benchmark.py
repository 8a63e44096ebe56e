#!/usr/bin/env python3
"""Side-by-side GPU benchmark of cutlass_gemm against what users would pick instead.

  python tools/benchmark.py overhead            # host cost per call, each layer of the call path
  python tools/benchmark.py first-call          # time to first call: kernel cached / not yet built
  python tools/benchmark.py shapes [--quick]    # throughput table + CSV + PNG vs torch baselines
  python tools/benchmark.py tiles               # every default tile on each shape (feeds heuristics.py)
  python tools/benchmark.py decode [--shapes]   # W8A8 at M <= 16: the decode GEMV vs CUTLASS tiles, _scaled_mm, bf16
  python tools/benchmark.py quant               # activation-quant kernels vs the copy-bandwidth floor
  python tools/benchmark.py layer [--quick]     # quant + GEMM layers vs bf16 F.linear and Inductor W8A8
                                  (quant, layer: --inductor-mode max-autotune-no-cudagraphs for tuned baselines)
  python tools/benchmark.py weight_only [--quick]  # W4A16 / W8A16 layers vs bf16 F.linear and _weight_int4pack_mm
  python tools/benchmark.py conv [--quick] [--resnet]  # int8 convs (ResNet-50 shapes, batch 1/32) vs cuDNN fp16/bf16
  python tools/benchmark.py conv --weight-only   # batch-1 1x1 convs, weight-only int4/int8 vs cuDNN fp16
  python tools/benchmark.py blockwise [--quick]    # blockwise-scaled fp8 vs bf16, per-token fp8, torch blockwise

Results go to --out (default tools/results/local/, not committed) as CSV/JSON/PNG and a Markdown table on stdout, each
stamped with the date and the device. Timing: CUDA events around batches of launches queued behind
a GPU sleep (so the host never starves the GPU), warm-up first, median of batches, random data,
weights rotated across copies larger than L2 so every call streams its weight from HBM.
"""
import argparse
import json
import os
import re
import subprocess
import sys
from pathlib import Path

from bench_common import ROOT, cycler, gpu_time_us, parse_shapes, report, stamp, wall_time_us, write_results

import torch  # noqa: E402

import cutlass_gemm  # noqa: E402
from cutlass_gemm.kernels import heuristics  # noqa: E402
from cutlass_gemm.ops import gemm as ops  # noqa: E402
from cutlass_gemm.runtime import loader  # noqa: E402
from bench_shapes import Problem, cmd_shapes  # noqa: E402  (Problem: also bench_decode's and earlier probes')


def parse_choice(text):
    """"128x256x128/c1x2x1/cooperative" -> heuristics.TileChoice; a fourth part picks the tile scheduler:
    "128x64x128/c1x1x1/cooperative/streamk" (CUTLASS's stream-K decomposition), ".../splitk4" (split-K into 4 K
    slices) or ".../persistent" (the default). Stream-K and split-K take the cooperative schedule only."""
    parts = text.strip().split("/")
    if len(parts) not in (3, 4):
        raise SystemExit(f"--choices: {text!r} is not TILE/CLUSTER/SCHEDULE[/streamk|/splitkN]")
    tile, cluster, schedule = parts[:3]
    scheduler, splits = "persistent", 1
    if len(parts) == 4:
        m = re.fullmatch(r"(persistent|streamk)|splitk(\d+)", parts[3])
        if not m:
            raise SystemExit(f"--choices: scheduler {parts[3]!r} is not persistent, streamk or splitkN")
        scheduler, splits = (m.group(1), 1) if m.group(1) else ("splitk", int(m.group(2)))
    return heuristics.TileChoice(tuple(int(v) for v in tile.split("x")),
                                 tuple(int(v) for v in cluster.lstrip("c").split("x")), schedule,
                                 scheduler=scheduler, splits=splits)


def choice_label(c) -> str:
    """Column title of a choice: "128x64x128 c1x1 coop sk" style, with the scheduler when not persistent."""
    tag = {"persistent": "", "streamk": " streamk"}.get(c.scheduler, f" splitk{c.splits}")
    return f"{c.tile[0]}x{c.tile[1]}x{c.tile[2]} c{c.cluster[0]}x{c.cluster[1]} {c.schedule[:4]}{tag}"


def cmd_tiles(args):
    """Each tile choice (default: the selection table's) on each shape, scaled_bias, bf16 out, token x channel
    scales, side by side with the baseline a user would pick for that input type (int8: torch._int_mm and
    cuBLASLt int8 TN without epilogue; e4m3: torch._scaled_mm rowwise + bias). Tiles that fail to build are
    reported and skipped."""
    sm = ops.kernel_sm(torch.cuda.current_device())
    shapes = [(m, 8192, 8192) for m in (1, 16, 64, 128, 256, 512, 2048, 8192)] + [(4096, 4096, 4096), (16, 14336, 4096)]
    if args.shapes:
        shapes = parse_shapes(args.shapes)
    choices = ([parse_choice(c) for c in args.choices.split(",")] if args.choices
               else [c for _, c in heuristics.SELECTION[sm]])
    rows = []
    for dtype in args.dtypes.split(","):
        libs = {}
        for choice in choices:
            try:
                libs[choice] = loader.get_kernel(heuristics.make_config(sm, "scaled_bias", "bf16", choice, a_dtype=dtype))
            except Exception as exc:  # a tile CUTLASS cannot build with this epilogue: say so, go on
                print(f"{dtype} {choice}: not built ({type(exc).__name__}: {str(exc)[:200]})", flush=True)
        for m, n, k in shapes:
            p = Problem(m, n, k)
            a, ws = (p.a, p.w) if dtype == "int8" else (p.a.to(torch.float8_e4m3fn), [w.to(torch.float8_e4m3fn) for w in p.w])
            nxt = cycler(ws)
            out = torch.empty(m, n, dtype=torch.bfloat16, device="cuda")
            stream = torch.cuda.current_stream().cuda_stream
            timed = {}
            for choice, lib in libs.items():
                # stream-K / split-K kernels: one workspace per shape, as the op takes from the caching allocator
                ws, ws_ptr, ws_bytes = ops.workspace_for(lib, m, n, k, out.device)

                def run(lib=lib, ws_ptr=ws_ptr, ws_bytes=ws_bytes):
                    lib.launch(a.data_ptr(), nxt().data_ptr(), out.data_ptr(), m, n, k, k, k, n, p.sa.data_ptr(),
                               p.sb.data_ptr(), None, None, None, p.bias.data_ptr(), ws_ptr, ws_bytes, stream)
                timed[lib.config.name] = gpu_time_us(run)
            if dtype == "int8":
                if m > 16:
                    timed["torch._int_mm (no epilogue)"] = gpu_time_us(lambda: torch._int_mm(a, nxt().t()))
                try:
                    from cutlass_gemm.cublaslt import int8_matmul
                    timed["cuBLASLt int8 TN (int32 out)"] = gpu_time_us(lambda: int8_matmul(a, nxt()))
                except Exception as exc:
                    print(f"  cuBLASLt failed at {m}x{n}x{k}: {exc}", file=sys.stderr)
            else:
                timed["torch._scaled_mm rowwise+bias"] = gpu_time_us(lambda: torch._scaled_mm(
                    a, nxt().t(), scale_a=p.sa, scale_b=p.sb, bias=p.bias, out_dtype=torch.bfloat16))
            for name, us in timed.items():
                rows.append({"dtype": dtype, "m": m, "n": n, "k": k, "tile": name, "us": round(us, 2),
                             "tops": round(2 * m * n * k / us / 1e6, 1)})
            best = min((v, kname) for kname, v in timed.items() if kname.startswith("sm"))
            base = {kname: v for kname, v in timed.items() if not kname.startswith("sm")}
            print(f"{dtype} {m}x{n}x{k}: best {best[1]} {best[0]:.1f} us; "
                  + "; ".join(f"{kname} {v:.1f} us ({v / best[0]:.2f}x)" for kname, v in base.items()), flush=True)
    write_results(args.out, "tiles", rows)
    lines = ["| dtype | M x N x K | " + " | ".join(choice_label(c) for c in choices) + " | baseline us |", ""]
    lines[1] = "|" + "---|" * (len(choices) + 3)
    for dtype in args.dtypes.split(","):
        for m, n, k in shapes:
            r = {x["tile"]: x["us"] for x in rows if (x["dtype"], x["m"], x["n"], x["k"]) == (dtype, m, n, k)}
            cells = []
            for c in choices:
                name = heuristics.make_config(sm, "scaled_bias", "bf16", c, a_dtype=dtype).name
                cells.append(f"{r[name]:.1f}" if name in r else "-")
            base = ", ".join(f"{kname.split(' ')[0]} {v:.1f}" for kname, v in r.items() if not kname.startswith("sm"))
            lines.append(f"| {dtype} | {m}x{n}x{k} | " + " | ".join(cells) + f" | {base} |")
    report(args.out, "tiles", lines)


def cmd_overhead(args):
    m, n, k = 32, 256, 256
    p = Problem(m, n, k)
    w = p.w[0].t()
    out = torch.empty(m, n, dtype=torch.bfloat16, device="cuda")
    lib, _, _ = ops.select_kernel(ops.kernel_sm(0), "scaled_bias", "int8", "bf16", "token", "channel", m)
    stream = torch._C._cuda_getCurrentRawStream(0)
    ptrs = (p.a.data_ptr(), w.data_ptr(), out.data_ptr(), m, n, k, k, k, n, p.sa.data_ptr(), p.sb.data_ptr(),
            None, None, None, p.bias.data_ptr(), None, 0, stream)
    cutlass_gemm.scaled_mm(p.a, w, p.sa, p.sb, torch.bfloat16, p.bias)  # plans the call, loads the fast path
    sa1, sb1 = p.sa[:1, 0].contiguous(), p.sb[0, :1].contiguous()  # one-element scales, made once (not timed)

    def python_path():  # the same call with the C++ fast path switched off
        saved, ops._fast_ready = ops._fast_ready, False
        try:
            ops._dispatch("scaled_bias", p.a, w, p.sa, p.sb, torch.bfloat16, p.bias, None, None, out)
        finally:
            ops._fast_ready = saved

    layers = {
        "torch._int_mm (baseline, allocates out)": lambda: torch._int_mm(p.a, w),
        "raw ctypes launch (C launcher + kernel)": lambda: lib.launch(*ptrs),
        "python path: validation + plan + ctypes launch": python_path,
        "cutlass_gemm.scaled_mm (public, allocates out)":
            lambda: cutlass_gemm.scaled_mm(p.a, w, p.sa, p.sb, torch.bfloat16, p.bias),
        "cutlass_gemm.scaled_mm(out=...) (public)":
            lambda: cutlass_gemm.scaled_mm(p.a, w, p.sa, p.sb, torch.bfloat16, p.bias, out=out),
        "torch.ops.cutlass_gemm.scaled_mm (dispatcher, allocates out)":
            lambda: torch.ops.cutlass_gemm.scaled_mm(p.a, w, p.sa, p.sb, torch.bfloat16, p.bias),
        "cutlass_gemm.scaled_mm, per-tensor scale_a (its own kernel)":
            lambda: cutlass_gemm.scaled_mm(p.a, w, sa1, p.sb, torch.bfloat16, p.bias),
        "cutlass_gemm.scaled_mm, both scales per-tensor (int8: the vector kernel broadcasts them itself)":
            lambda: cutlass_gemm.scaled_mm(p.a, w, sa1, sb1, torch.bfloat16, p.bias),
        "torch.empty alone (for reference)": lambda: torch.empty((m, n), dtype=torch.bfloat16, device="cuda"),
    }
    if ops._fast_ready:
        fast = ops._fast_ready
        layers["C++ fast path entry, out given"] = lambda: fast.run(1, p.a, w, p.sa, p.sb, torch.bfloat16, p.bias,
                                                                     None, None, out)
    results = {name: round(wall_time_us(fn, calls=1000, reps=5, warmup=50), 2) for name, fn in layers.items()}
    results["kernel GPU time (us)"] = round(gpu_time_us(lambda: lib.launch(*ptrs)), 2)
    text = json.dumps({**stamp(), "shape": [m, n, k], "fast_path": bool(ops._fast_ready),
                       "us_per_call_over_1000_back_to_back": results}, indent=1)
    print(text)
    Path(args.out, "overhead.json").write_text(text + "\n")


FIRST_CALL = r"""
import os, sys, time, json, torch
torch.zeros(1, device="cuda"); torch.cuda.synchronize()
sys.path.insert(0, {root!r})
t_import = time.perf_counter()
import cutlass_gemm
t_imported = time.perf_counter()
m, n, k = 48, 4096, 4096
a = torch.randint(-128, 128, (m, k), dtype=torch.int8, device="cuda")
w = torch.randint(-128, 128, (n, k), dtype=torch.int8, device="cuda")
sa = torch.rand(m, 1, device="cuda"); sb = torch.rand(1, n, device="cuda")
bias = torch.randn(n, device="cuda").bfloat16(); torch.cuda.synchronize()
t0 = time.perf_counter()
out = cutlass_gemm.scaled_mm(a, w.t(), sa, sb, torch.bfloat16, bias); torch.cuda.synchronize()
t1 = time.perf_counter()
out = cutlass_gemm.scaled_mm(a, w.t(), sa, sb, torch.bfloat16, bias); torch.cuda.synchronize()
t2 = time.perf_counter()
print(json.dumps({{"import_ms": round((t_imported - t_import) * 1e3, 1), "first_call_ms": round((t1 - t0) * 1e3, 1),
                  "second_call_ms": round((t2 - t1) * 1e3, 3)}}))
"""


def cmd_first_call(args):
    script = FIRST_CALL.format(root=str(ROOT))
    results = {}
    env = dict(os.environ)
    if args.uncached:
        fresh = Path(args.out) / "fresh_cache"
        env["CUTLASS_GEMM_CACHE_DIR"] = str(fresh)
        proc = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True)
        results["not built (nvcc JIT)"] = proc.stdout.strip().splitlines()[-1] if proc.returncode == 0 else proc.stderr[-2000:]
    proc = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True)
    results["cached"] = proc.stdout.strip().splitlines()[-1] if proc.returncode == 0 else proc.stderr[-2000:]
    text = json.dumps({**stamp(), **results}, indent=1)
    print(text)
    Path(args.out, "first_call.json" if args.uncached else "first_call_cached.json").write_text(text + "\n")


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("what", choices=["overhead", "first-call", "shapes", "tiles", "quant", "layer", "weight_only",
                                       "conv", "blockwise", "decode"])
    p.add_argument("--out", default=str(ROOT / "tools" / "results" / "local"))
    p.add_argument("--quick", action="store_true",
                   help="shapes: four shapes only; layer: 16x8192x8192 and 2048x8192x8192 only; weight_only: 6 shapes; "
                        "conv: the 3x3 convs at batch 32 only; blockwise: 3 shapes")
    p.add_argument("--cublaslt", action="store_true", help="shapes: add the cuBLASLt int8 row")
    p.add_argument("--shapes", help="shapes, tiles, decode, layer, weight_only, blockwise: comma-separated MxNxK list instead of the default set")
    p.add_argument("--dtypes", default="int8", help="tiles: input types, comma-separated (int8, e4m3)")
    p.add_argument("--choices", help="tiles: tile choices TILE/CLUSTER/SCHEDULE[/SCHEDULER], comma-separated, "
                                     "e.g. 128x256x128/c1x2x1/cooperative or 128x64x128/c1x1x1/cooperative/streamk "
                                     "or .../cooperative/splitk4 (default: the selection table's)")
    p.add_argument("--resnet", action="store_true", help="conv: also time the whole ResNet-50 at batch 32")
    p.add_argument("--weight-only", action="store_true",
                   help="conv: batch-1 1x1 convs, WeightOnlyConv2d int4/int8 vs cuDNN fp16, instead of the int8 rows")
    p.add_argument("--kxk", action="store_true",
                   help="conv --weight-only: ResNet-50's k x k and strided convs at batch 1 and 32 (the implicit GEMM)")
    p.add_argument("--uncached", action="store_true", help="first-call: also time a kernel not yet built")
    p.add_argument("--no-tiles", action="store_true", help="decode, blockwise: leave out the CUTLASS tile rows at M <= 16 (JIT builds)")
    p.add_argument("--inductor-mode", default="default",
                   help="quant, layer: torch.compile mode of the Inductor baselines (default: %(default)s; "
                        "e.g. max-autotune-no-cudagraphs, slower to compile)")
    args = p.parse_args()
    Path(args.out).mkdir(parents=True, exist_ok=True)
    if args.what in ("quant", "layer"):
        import bench_e2e  # noqa: E402  (the quantization ops and layers are only needed here)
        bench_e2e.COMMANDS[args.what](args)
        return
    if args.what == "decode":
        import bench_decode  # noqa: E402
        bench_decode.COMMANDS[args.what](args)
        return
    if args.what == "conv":
        import bench_conv  # noqa: E402
        bench_conv.COMMANDS[args.what](args)
        return
    if args.what == "blockwise":
        import bench_blockwise  # noqa: E402
        sys.exit(bench_blockwise.COMMANDS[args.what](args))
    if args.what == "weight_only":
        import bench_wo  # noqa: E402
        bench_wo.COMMANDS[args.what](args)
        return
    {"overhead": cmd_overhead, "first-call": cmd_first_call, "shapes": cmd_shapes, "tiles": cmd_tiles}[args.what](args)


if __name__ == "__main__":
    main()
