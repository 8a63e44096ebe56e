"""Session 20 probe: programmatic dependent launch (pdl.cuh) on and off, in one process, for the extension's
decode kernels as the public ops and layers serve them: the W8A8 GEMV (int8 / e4m3), the block GEMV, the
weight-only layer (int4 g128 / int8 per channel), the Int8Linear / Fp8Linear decode layer (quant + GEMV).
Eager rows: gpu_time_us (20 calls queued behind a sleep, median of 7 batches); graph rows: 20 calls captured.
Weights rotate across copies beyond L2 (the benchmark's Problem / copies_for). Call 2-3: the prefetch sized from
pdl.cuh's byte budget (default 8 MB over the resident CTAs), and budgets 0 / 4 / 16 MB at a few shapes."""
import sys
import warnings
from pathlib import Path

import torch
import torch.nn.functional as F

ROOT = Path.cwd()
sys.path.insert(0, str(ROOT / "tools"))
from bench_common import L2_BYTES, copies_for, copy_bandwidth_gbps, cycler, gpu_time_us, graph_time_us  # noqa: E402
from benchmark import Problem  # noqa: E402

import cutlass_gemm  # noqa: E402
from cutlass_gemm.runtime import extension  # noqa: E402

ext = extension.load()
assert ext is not None, "extension did not build"
warnings.simplefilter("ignore")
bw = copy_bandwidth_gbps()
print(f"copy bandwidth {bw:.0f} GB/s", flush=True)
lines = ["| case | shape | PDL off us | PDL on us | on/off | floor us | % floor off -> on |", "|---|---|---|---|---|---|---|"]


def pair(name, shape, fn, nbytes, graph=False):
    res = {}
    for rep in range(2):  # off, on, off, on: the better of two
        for mode in (0, 1):
            ext.pdl_set(mode)
            t = graph_time_us(fn) if graph else gpu_time_us(fn)
            res[mode] = min(res.get(mode, 1e9), t)
    ext.pdl_set(1)
    floor = nbytes / bw / 1e3
    row = (f"| {name} | {shape} | {res[0]:.2f} | {res[1]:.2f} | {res[1] / res[0]:.3f} | {floor:.2f} | "
           f"{100 * floor / res[0]:.1f} -> {100 * floor / res[1]:.1f} |")
    lines.append(row)
    print(row, flush=True)


def gemv_rows():
    for m in (1, 16):
        for n, k in ((8192, 8192), (4096, 14336), (14336, 4096), (28672, 4096)):
            p = Problem(m, n, k)
            p.fp8()
            w8 = cycler(p.w8)
            nbytes = n * k + m * k + 2 * m * n
            int8 = lambda: cutlass_gemm.scaled_mm(p.a, p.next_w().t(), p.sa, p.sb, torch.bfloat16, p.bias)
            fp8 = lambda: cutlass_gemm.scaled_mm(p.a8, w8().t(), p.sa, p.sb, torch.bfloat16, p.bias)
            pair("gemv int8", f"{m}x{n}x{k}", int8, nbytes)
            pair("gemv int8 graph", f"{m}x{n}x{k}", int8, nbytes, graph=True)
            pair("gemv e4m3", f"{m}x{n}x{k}", fp8, nbytes)
            if n in (8192, 14336):
                for mb in (0, 4, 16):
                    ext.pdl_set_prefetch_bytes(mb << 20)
                    pair(f"gemv int8 budget {mb} MB", f"{m}x{n}x{k}", int8, nbytes)
                ext.pdl_set_prefetch_bytes(8 << 20)
            del p


def block_rows():
    from cutlass_gemm.quant import quantize_per_block  # noqa: F401  (the op takes the scales directly)
    for m, n, k in ((16, 8192, 8192), (16, 4096, 14336)):
        for block in (64, 128):
            g = torch.Generator(device="cuda").manual_seed(0)
            a = torch.randint(-128, 128, (m, k), dtype=torch.int8, device="cuda", generator=g)
            copies = copies_for(n * k)
            ws = [torch.randint(-128, 128, (n, k), dtype=torch.int8, device="cuda", generator=g) for _ in range(copies)]
            sa = torch.rand(m, k // block, device="cuda", generator=g) + 0.5
            sb = torch.rand(n, k // block, device="cuda", generator=g) + 0.5
            nxt = cycler(ws)
            fn = lambda: cutlass_gemm.scaled_mm_blockwise_int8(a, nxt(), sa, sb, out_dtype=torch.bfloat16, block_size=block)
            try:
                pair(f"block gemv int8 B={block}", f"{m}x{n}x{k}", fn, n * k + m * k + 2 * m * n)
            except Exception as exc:  # the op's signature differs: report and go on
                print(f"block row failed: {type(exc).__name__}: {exc}", flush=True)
                return


def wo_rows():
    from bench_wo import _random_quant
    from cutlass_gemm.nn import WeightOnlyLinear
    from cutlass_gemm.quant import prepack
    for m in (1, 16):
        for n, k in ((8192, 8192), (28672, 4096), (4096, 14336)):
            x = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
            for bits, group in ((4, 128), (8, None)):
                p = prepack(_random_quant(n, k, bits, group, seed=bits))
                nbytes = n * k * bits // 8 + p.scales.numel() * 2
                copies = copies_for(nbytes, target=4 * L2_BYTES, lo=2, hi=12)
                lays = [WeightOnlyLinear.from_packed(p) for _ in range(copies)]
                nxt = cycler(lays)
                fn = lambda: nxt()(x)
                pair(f"wo int{bits}", f"{m}x{n}x{k}", fn, nbytes)
                if n == 8192 or (m == 16 and bits == 4):
                    if m == 1:
                        pair(f"wo int{bits} graph", f"{m}x{n}x{k}", fn, nbytes, graph=True)
                    for mb in (0, 4, 16):
                        ext.pdl_set_prefetch_bytes(mb << 20)
                        pair(f"wo int{bits} budget {mb} MB", f"{m}x{n}x{k}", fn, nbytes)
                    ext.pdl_set_prefetch_bytes(8 << 20)
                del lays, p


def layer_rows():
    from cutlass_gemm.nn import Fp8Linear, Int8Linear
    for m in (1, 16):
        n = k = 8192
        x = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
        lin = torch.nn.Linear(k, n, bias=True, device="cuda", dtype=torch.bfloat16)
        for name, build in (("Int8Linear dynamic", lambda: Int8Linear.from_float(lin, act="dynamic")),
                            ("Fp8Linear dynamic", lambda: Fp8Linear.from_float(lin))):
            lays = [build() for _ in range(copies_for(n * k))]
            nxt = cycler(lays)
            fn = lambda: nxt()(x)
            pair(name, f"{m}x{n}x{k}", fn, n * k + 2 * m * k + 2 * m * n)
            pair(name + " graph", f"{m}x{n}x{k}", fn, n * k + 2 * m * k + 2 * m * n, graph=True)
            del lays
        ws = [lin.weight.detach().clone() for _ in range(copies_for(2 * n * k, hi=4))]
        nxtw = cycler(ws)
        pair("bf16 F.linear (PDL has no effect)", f"{m}x{n}x{k}", lambda: F.linear(x, nxtw(), lin.bias), 2 * n * k)


for section in (gemv_rows, wo_rows, layer_rows, block_rows):
    try:
        section()
    except Exception as exc:
        print(f"SECTION {section.__name__} failed: {type(exc).__name__}: {exc}", flush=True)
    torch.cuda.empty_cache()
out = Path(sys.argv[1]) if len(sys.argv) > 1 else Path("probe_pdl.md")
out.write_text(f"copy bandwidth {bw:.0f} GB/s, {torch.cuda.get_device_name()}\n\n" + "\n".join(lines) + "\n")
