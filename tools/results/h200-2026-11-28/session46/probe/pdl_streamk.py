"""Session 46 probe: what a programmatic dependent launch is worth to the stream-K mixed-input (weight-only) kernels,
whose workspace was cleared by a cudaMemsetAsync ahead of every call (so they launched plainly) and is now cleared by
a fill kernel that is itself a programmatic dependent (mixed generator 5, kernels/emit_streamk.py).

`mixed`: WeightOnlyLinear (cutlass_mixed backend) at the rows the stream-K kernels serve (49/33..512 int4, ..256
int8) on 8192^2, 28672 x 4096 and 4096 x 14336; per row one CUDA graph of consecutive calls over rotating weight
copies (each call right behind the last: what a model's layers do) captured with the kernel libraries'
programmatic launches on, one with them off (runtime/loader.set_programmatic_launch while capturing; off is also
the old behaviour's launch order: clear, then the kernel, each waiting for the one ahead), and bf16 F.linear over
as many bf16 weight copies; replays alternate for 15 rounds (each behind a sleep, events), medians per call.
Every row names the kernel and checks that the graph's output equals the eager one.
`handoff` (call 3): the small-M kernels against the mixed-input kernel at 17..64 rows (see its docstring).
`blockwise` (call 5): Fp8BlockLinear / Int8BlockLinear chains, early vs plain (see its docstring).
"""
import json
import sys

import torch
import torch.nn.functional as F

sys.path[:0] = ["tools", "tools/results/h200-2026-11-28/session44/probe"]
from bench_common import L2_BYTES, copies_for  # noqa: E402
# session 44's helpers: graph_of(fn, calls, pdl) captures `calls` calls with the kernel libraries' programmatic
# launches on or off; alternate(graphs) times their replays in alternation (medians, us per replay)
from pdl_conv import alternate, graph_of  # noqa: E402

from cutlass_gemm.kernels.mixed_input import select_config  # noqa: E402
from cutlass_gemm.nn import WeightOnlyLinear  # noqa: E402
from cutlass_gemm.ops import weight_only_backend  # noqa: E402

ROWS = [  # (n, k, bits, group, rows)
    (8192, 8192, 4, 128, (64, 128, 256, 512)),
    (28672, 4096, 4, 128, (64, 128)),
    (4096, 14336, 4, 128, (64, 128, 256)),
    (8192, 8192, 8, None, (64, 128, 256)),
    (4096, 14336, 8, None, (64, 128)),
]


def mixed(out):
    rows = []
    for n, k, bits, group, ms in ROWS:
        g = torch.Generator(device="cuda").manual_seed(n + k + bits)
        copies = copies_for(n * k * bits // 8, target=4 * L2_BYTES, lo=2, hi=12)
        lins = []
        for _ in range(copies):
            lin = torch.nn.Linear(k, n, device="cuda", dtype=torch.bfloat16)
            with torch.no_grad():
                lin.weight.copy_(torch.randn(n, k, generator=g, device="cuda") / k ** 0.5)
            lins.append(lin)
        lays = [WeightOnlyLinear.from_float(lin, bits=bits, group_size=group, large_m_backend="cutlass_mixed")
                for lin in lins]
        bf_copies = copies_for(n * k * 2, target=4 * L2_BYTES, lo=2, hi=12)
        for m in ms:
            x = torch.randn(m, k, generator=g, device="cuda").bfloat16()
            assert weight_only_backend(m, lays[0].packed, lays[0].packed_mixed) == "cutlass_mixed_sm90"
            cfg = select_config("bf16", bits, False, m, n, k, group or 0)

            def run():
                y = None
                for lay in lays:
                    y = lay(x)
                return y

            def base():
                for i in range(bf_copies):
                    F.linear(x, lins[i % copies].weight, lins[i % copies].bias)
            calls = 12 // copies + 1
            want = run()
            on, off = graph_of(run, calls, True), graph_of(run, calls, False)
            bf = graph_of(base, 12 // bf_copies + 1, True)
            t_on, t_off, t_bf = alternate([on, off, bf])
            t_on, t_off = t_on / (calls * copies), t_off / (calls * copies)
            t_bf /= (12 // bf_copies + 1) * bf_copies
            on.replay()
            torch.cuda.synchronize()
            row = {"m": m, "n": n, "k": k, "bits": bits, "group": group, "kernel": cfg.name,
                   "pdl_us": round(t_on, 2), "plain_us": round(t_off, 2), "bf16_us": round(t_bf, 2),
                   "plain_per_pdl": round(t_off / t_on, 4), "x_bf16_pdl": round(t_bf / t_on, 3),
                   "x_bf16_plain": round(t_bf / t_off, 3), "graph_equals_eager": bool(torch.equal(run(), want))}
            rows.append(row)
            print(json.dumps(row), flush=True)
            del on, off, bf
        del lays, lins
        torch.cuda.empty_cache()
    json.dump(rows, open(out, "w"), indent=1)




HANDOFF_SHAPES = [(8192, 8192), (4096, 14336), (6144, 4096), (4096, 4096), (28672, 4096), (14336, 4096)]
HANDOFF_M = (17, 24, 32, 40, 48, 56, 64)


def handoff(out):
    """The small-M kernels against the mixed-input kernel (forced through the op, launched early) at 17..64 rows:
    the hand-off rows of ops/wo_heuristics.MIXED_FROM were measured on the H100 (sessions 33 and 35) with the mixed
    kernels' stream-K ones launched plainly. Graphs of consecutive calls over rotating weight copies (the layer
    without the mixed copy: the small-M kernel; the op on the mixed copy: the mixed kernel at any M; bf16 F.linear),
    replays in alternation, every output against F.linear on the dequantized weight."""
    from cutlass_gemm.ops.weight_only import mixed_from_m
    from cutlass_gemm.quant import WeightOnlyQuant, dequantize_packed, prepack
    from cutlass_gemm.quant.prepack import LAYOUT_MIXED
    rows = []
    for bits in (4, 8):
        group = 128 if bits == 4 else None
        for n, k in HANDOFF_SHAPES:
            g = torch.Generator(device="cuda").manual_seed(n + k + bits)
            half = 2 ** (bits - 1)
            q = torch.randint(-half, half, (n, k), generator=g, device="cuda", dtype=torch.int16)
            s = torch.rand(n, k // (group or k), generator=g, device="cuda") * 0.01 / (1 if bits == 4 else 16) + 1e-3
            p = prepack(WeightOnlyQuant(q, s.bfloat16(), None, bits, group))
            w16 = dequantize_packed(p, torch.bfloat16)
            copies = copies_for(n * k * bits // 8, target=4 * L2_BYTES, lo=2, hi=8)
            small = [WeightOnlyLinear.from_packed(p) for _ in range(copies)]
            mixed = [WeightOnlyLinear.from_packed(p, large_m_backend="cutlass_mixed") for _ in range(copies)]
            c16 = copies_for(2 * n * k, target=4 * L2_BYTES, lo=2, hi=4)
            w16s = [w16] + [w16.clone() for _ in range(c16 - 1)]
            for m in HANDOFF_M:
                x = torch.randn(m, k, device="cuda", dtype=torch.bfloat16, generator=g)
                ref = F.linear(x, w16).float()

                def run_small():
                    return [lay(x) for lay in small]

                def run_mixed():
                    return [torch.ops.cutlass_gemm.weight_only_mm(
                        x, lay.qweight_mixed, lay.scales_mixed, None, None, None, layout=LAYOUT_MIXED, bits=bits,
                        group_size=group or 0, n=n) for lay in mixed]

                def run_bf16():
                    return [F.linear(x, w) for w in w16s]
                err = max(((y.float() - ref).norm() / ref.norm()).item() for y in run_small() + run_mixed())
                graphs = [graph_of(run_small, 12 // copies + 1, True), graph_of(run_mixed, 12 // copies + 1, True),
                          graph_of(run_bf16, 12 // c16 + 1, True)]
                t_s, t_m, t_b = alternate(graphs)
                t_s, t_m = t_s / ((12 // copies + 1) * copies), t_m / ((12 // copies + 1) * copies)
                t_b /= (12 // c16 + 1) * c16
                kern = select_config("bf16", bits, False, m, n, k, group or 0).name
                row = {"m": m, "n": n, "k": k, "bits": bits, "small_us": round(t_s, 2), "mixed_us": round(t_m, 2),
                       "bf16_us": round(t_b, 2), "small_per_mixed": round(t_s / t_m, 4),
                       "x_bf16_small": round(t_b / t_s, 3), "x_bf16_mixed": round(t_b / t_m, 3),
                       "mixed_from_m": mixed_from_m(bits, n, k), "mixed_kernel": kern, "max_rel_err": round(err, 6)}
                rows.append(row)
                print(json.dumps(row), flush=True)
                del graphs
            del small, mixed, w16s
            torch.cuda.empty_cache()
    json.dump(rows, open(out, "w"), indent=1)


def handoff_kernels():
    """The mixed-input kernels `handoff` calls (names, one per line)."""
    names = {select_config("bf16", bits, False, m, n, k, 128 if bits == 4 else 0).name
             for bits in (4, 8) for n, k in HANDOFF_SHAPES for m in HANDOFF_M}
    print("\n".join(sorted(names)))


def blockwise(out):
    """Call 5: chains of 8 Fp8BlockLinear / Int8BlockLinear layers (each reading the last one's bf16 output: the
    extension's per-group quantizer, then the blockwise GEMM), width 4096, in CUDA graphs captured with the kernel
    libraries' programmatic launches on and off (the quantizer's own trigger is on in both), and the bf16 chain;
    alternating replays, medians per layer (blockwise generator 8: these GEMMs launched early)."""
    from cutlass_gemm.nn import Fp8BlockLinear, Int8BlockLinear
    rows = []
    depth, width = 8, 4096
    g = torch.Generator(device="cuda").manual_seed(0)
    lins = []
    for _ in range(depth):
        lin = torch.nn.Linear(width, width, device="cuda", dtype=torch.bfloat16)
        with torch.no_grad():
            lin.weight.copy_(torch.randn(width, width, generator=g, device="cuda") / width ** 0.5)
        lins.append(lin)
    import os
    for m in [int(v) for v in os.environ.get("CG_PROBE_M", "96,300,1100").split(",")]:  # call 6: other rows
        x = torch.randn(m, width, device="cuda", generator=g).bfloat16()

        def run_of(layers):
            def run():
                y = x
                for layer in layers:
                    y = layer(y)
                return y
            return run
        base = graph_of(run_of([lambda y, l=l: F.linear(y, l.weight, l.bias) for l in lins]), 1, True)
        for name, cls in (("fp8 block128", Fp8BlockLinear), ("int8 block128", Int8BlockLinear))[
                :int(os.environ.get("CG_PROBE_SCHEMES", "2"))]:
            run = run_of([cls.from_float(l) for l in lins])
            want = run()
            on, off = graph_of(run, 1, True), graph_of(run, 1, False)
            t_on, t_off, t_bf = alternate([on, off, base])
            on.replay()
            torch.cuda.synchronize()
            row = {"m": m, "width": width, "scheme": name, "pdl_us_per_layer": round(t_on / depth, 2),
                   "plain_us_per_layer": round(t_off / depth, 2), "bf16_us_per_layer": round(t_bf / depth, 2),
                   "plain_per_pdl": round(t_off / t_on, 4), "x_bf16_pdl": round(t_bf / t_on, 3),
                   "x_bf16_plain": round(t_bf / t_off, 3), "graph_equals_eager": bool(torch.equal(run(), want))}
            rows.append(row)
            print(json.dumps(row), flush=True)
            del on, off
        del base
    json.dump(rows, open(out, "w"), indent=1)


if __name__ == "__main__":
    if sys.argv[1] == "handoff_kernels":
        handoff_kernels()
    else:
        {"mixed": mixed, "handoff": handoff, "blockwise": blockwise}[sys.argv[1]](sys.argv[2])
