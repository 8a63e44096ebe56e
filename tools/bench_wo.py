"""The `weight_only` subcommand of tools/benchmark.py (run it through it).

Weight-only layers (W4A16 int4 group 128 symmetric, W8A16 int8 per channel) as `WeightOnlyLinear`
against bf16 `F.linear` and `torch._weight_int4pack_mm` (tinygemm, int4 group 128), all in one process
on the same weights: the quantized weight is random (q, scales) and prepacked on the GPU, the bf16
baseline uses its dequantized copy, tinygemm gets the same q and scales (zero 0), so every row's output
is checked against bf16 F.linear (relative Frobenius error, flagged above 5e-2) before it is timed.
Device time: CUDA events around batches of 20 calls behind a GPU sleep, median of 7 (bench_common),
each call on the next of several copies of the weight (together > 4x L2), so the weight streams from
HBM. % of floor = (weight + scale bytes) / measured copy bandwidth / time. The backend column says
which implementation served the call ("mma_small_m" for M <= 64; "dequant_fallback" above; on SM90 from
M = wo_heuristics.MIXED_FROM_MIN (33) also the rows of the layer that holds the CUTLASS mixed-input copy (its
kernel from ops.weight_only.mixed_from_m(bits, N, K) rows, the small-M kernel below), as
`from_float` builds it there, "cutlass_mixed_sm90"). Up to M = 64 a row ", PDL off" times the int4 layer with
programmatic dependent launches switched off (runtime/csrc/pdl.cuh; on by default on SM90). A mixed-input row whose
kernel is persistent (launched as a programmatic dependent since mixed-input generator 4) has a ", plain launch" twin
with the kernel libraries' switch off (runtime/loader.py).
"""
import contextlib
import os
import sys
import warnings
from pathlib import Path

import torch
import torch.nn.functional as F

from bench_common import (L2_BYTES, wall_time_us, bench_shapes, copies_for, copy_bandwidth_gbps, cycler, fail, gpu_time_us, md_table,
                          parse_shapes, pdl_off, plain_launch, plot_panels, report, write_results)

WO_NK = [(8192, 8192), (28672, 4096), (4096, 14336)]
WO_M = [1, 4, 16, 32, 64, 256, 2048, 4096]
WO_QUICK = [(1, 8192, 8192), (16, 8192, 8192), (64, 8192, 8192), (2048, 8192, 8192), (1, 28672, 4096),
            (16, 4096, 14336)]
ERR_LIMIT = 5e-2
BASELINE = "bf16 F.linear"
DEVICE = "cuda"  # a CPU smoke run of the row logic sets "cpu"


def _random_quant(n, k, bits, group, seed):
    from cutlass_gemm.quant import WeightOnlyQuant
    g = torch.Generator(device=DEVICE).manual_seed(seed)
    half = 2 ** (bits - 1)
    q = torch.randint(-half, half, (n, k), generator=g, device=DEVICE, dtype=torch.int16)
    groups = k // (group or k)
    scale = (torch.rand(n, groups, generator=g, device=DEVICE) * 0.01 / (1 if bits == 4 else 16) + 1e-3).bfloat16()
    return WeightOnlyQuant(q, scale, None, bits, group)


def _tinygemm(wq, inner_k_tiles=8):
    """torch._weight_int4pack_mm operands for the symmetric int4 `wq`: w = (u - 8) * scale + 0."""
    u = (wq.q.to(torch.int32) + 8)
    packed_u8 = (u[:, ::2] << 4 | u[:, 1::2]).to(torch.uint8)  # even column in the high nibble
    w_packed = torch._convert_weight_to_int4pack(packed_u8, inner_k_tiles)
    sz = torch.stack([wq.scale.t(), torch.zeros_like(wq.scale.t())], dim=-1).contiguous()  # (K/g, N, 2)
    return w_packed, sz


def _rel(y, ref):
    ref = ref.float()
    return ((y.float() - ref).norm() / ref.norm().clamp_min(1e-30)).item()


PDL_OFF = ", PDL off"  # a row timed with programmatic dependent launches switched off (runtime/csrc/pdl.cuh)
PLAIN = ", plain launch"  # a mixed-input row with the CUTLASS kernel launched plainly (runtime/loader.py switch)


def bench_wo_shape(m, n, k, bw, failures):
    from cutlass_gemm.nn import WeightOnlyLinear
    from cutlass_gemm.ops import weight_only_backend
    from cutlass_gemm.ops.weight_only import SMALL_M_MAX
    from cutlass_gemm.quant import dequantize_packed, prepack
    x = torch.randn(m, k, device=DEVICE, dtype=torch.bfloat16)
    rows = []
    cases = []
    w4 = _random_quant(n, k, 4, 128, seed=1)
    p4 = prepack(w4)
    w_bf16 = dequantize_packed(p4, torch.bfloat16)
    ref = F.linear(x, w_bf16)
    c16 = copies_for(2 * n * k, target=4 * L2_BYTES, lo=2, hi=4)
    bf16_ws = [w_bf16] + [w_bf16.clone() for _ in range(c16 - 1)]
    cases.append((BASELINE, 2 * n * k, "cublas", lambda: [lambda w=w: F.linear(x, w) for w in bf16_ws]))

    def layers(p, bits):
        lay = WeightOnlyLinear.from_packed(p)
        nbytes = n * k * bits // 8 + p.scales.numel() * 2
        copies = copies_for(nbytes, target=4 * L2_BYTES, lo=2, hi=12)
        out = [lay] + [WeightOnlyLinear.from_packed(p) for _ in range(copies - 1)]  # each copies the tensors
        return [lambda lay=lay: lay(x) for lay in out], nbytes

    calls4, bytes4 = layers(p4, 4)
    cases.append(("WeightOnlyLinear w4a16 g128", bytes4, weight_only_backend(m, p4), lambda: calls4))
    if DEVICE == "cuda" and m <= SMALL_M_MAX:  # the same calls launched plainly: what the early start is worth
        cases.append(("WeightOnlyLinear w4a16 g128" + PDL_OFF, bytes4, weight_only_backend(m, p4), lambda: calls4))
    w8 = _random_quant(n, k, 8, None, seed=2)
    p8 = prepack(w8)
    calls8, bytes8 = layers(p8, 8)
    ref8 = F.linear(x, dequantize_packed(p8, torch.bfloat16))
    cases.append(("WeightOnlyLinear w8a16", bytes8, weight_only_backend(m, p8), lambda: calls8))

    from cutlass_gemm.kernels import emit_mixed
    from cutlass_gemm.kernels.mixed_input import select_config as select_mixed
    from cutlass_gemm.ops.weight_only import MIXED_INPUT_ENV, mixed_from_m
    from cutlass_gemm.ops.wo_heuristics import MIXED_FROM_MIN
    # SM90: the layer as from_float builds it there ("auto": it also holds the mixed-input copy, which serves
    # M >= ops.weight_only.mixed_from_m(bits, N, K)); the rows above are the same layer without that copy
    if m >= MIXED_FROM_MIN and DEVICE == "cuda" and torch.cuda.get_device_capability() == (9, 0):
        os.environ[MIXED_INPUT_ENV] = "1"
        for bits, p, nb in ((4, p4, bytes4), (8, p8, bytes8)):
            def mixed_calls(p=p):  # built inside the row's try: a failure is that row's, not the shape's
                lay = WeightOnlyLinear.from_packed(p, large_m_backend="cutlass_mixed")
                copies = copies_for(nb, target=4 * L2_BYTES, lo=2, hi=12)
                out = [lay] + [WeightOnlyLinear.from_packed(p, large_m_backend="cutlass_mixed")
                               for _ in range(copies - 1)]
                return [lambda lay=lay: lay(x) for lay in out]
            # the layer's own hand-off: below mixed_from_m rows its small-M kernel serves the call
            backend = "cutlass_mixed_sm90" if m >= mixed_from_m(bits, n, k) else "mma_small_m"
            name = f"WeightOnlyLinear w{bits}a16{' g128' if bits == 4 else ''} cutlass_mixed"
            cases.append((name, nb, backend, mixed_calls))
            cfg = select_mixed("bf16", bits, False, m, n, k, 128 if bits == 4 else None)
            if backend == "cutlass_mixed_sm90" and emit_mixed.programmatic_launch(cfg):
                # the same calls with the kernel libraries' programmatic launches off (loader switch)
                cases.append((name + PLAIN, nb, backend, lambda f=mixed_calls: [plain_launch(c) for c in f()]))

    def tiny():
        wp, sz = _tinygemm(w4)
        copies = copies_for(n * k // 2, target=4 * L2_BYTES, lo=2, hi=12)
        wps = [wp] + [wp.clone() for _ in range(copies - 1)]
        return [lambda w=w: torch._weight_int4pack_mm(x, w, 128, sz) for w in wps]

    cases.append(("torch._weight_int4pack_mm g128", bytes4, "tinygemm", tiny))
    def bench_case(name, nbytes, backend, build):
        try:
            calls = build()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                err = _rel(calls[0](), ref8 if "w8a16" in name else ref)
                nxt = cycler(calls)
                us = gpu_time_us(lambda: nxt()())
                wall = wall_time_us(lambda: nxt()(), calls=100, reps=5)  # eager, host cost included
            floor = nbytes / bw / 1e3
            flag = not err <= ERR_LIMIT
            rows.append({"m": m, "n": n, "k": k, "impl": name, "backend": backend, "device_us": round(us, 2), "wall_us": round(wall, 2),
                         "speedup_vs_bf16": None, "floor_us": round(floor, 2), "pct_of_floor": round(100 * floor / us, 1),
                         "rel_err": float(f"{err:.3g}"), "err_flag": "FLAGGED" if flag else ""})
            print(f"  {m}x{n}x{k} {name} [{backend}]: {us:.2f} us ({100 * floor / us:.0f}% of floor), rel err "
                  f"{err:.2e}{'  FLAGGED' if flag else ''}", file=sys.stderr, flush=True)
        except Exception as exc:
            fail(f"{name} at {m}x{n}x{k}", exc)
            failures.append(f"{m}x{n}x{k} {name}: {type(exc).__name__}: {str(exc)[:200]}")

    for name, nbytes, backend, build in cases:
        # a PDL-off row runs with the switch off (skipped where the extension has none)
        with (pdl_off() if name.endswith(PDL_OFF) else contextlib.nullcontext(True)) as timed:
            if timed:
                bench_case(name, nbytes, backend, build)
        torch.cuda.empty_cache()
    base = next((r for r in rows if r["impl"] == BASELINE), None)
    for r in rows:
        if base:
            r["speedup_vs_bf16"] = round(base["device_us"] / r["device_us"], 2)
    return rows


def cmd_weight_only(args):
    torch.manual_seed(0)
    shapes = WO_QUICK if args.quick else [(m, n, k) for n, k in WO_NK for m in WO_M]
    if args.shapes:
        shapes = parse_shapes(args.shapes)
    bw = copy_bandwidth_gbps()
    print(f"device-to-device copy bandwidth (1 GiB, read + written): {bw:.0f} GB/s", file=sys.stderr, flush=True)
    failures = []
    rows = bench_shapes(shapes, lambda m, n, k: bench_wo_shape(m, n, k, bw, failures), failures)
    write_results(args.out, "weight_only", rows)
    panels = {}
    for r in rows:
        if r["speedup_vs_bf16"] is not None:
            panels.setdefault(f"N={r['n']}, K={r['k']}", {}).setdefault(r["impl"], []).append((r["m"], r["speedup_vs_bf16"]))
    plot_panels(Path(args.out) / "weight_only.png", panels, "weight-only layers, speedup over bf16 F.linear", "M",
                "bf16 time / row time")
    flagged = [f"{r['m']}x{r['n']}x{r['k']} {r['impl']} (rel err {r['rel_err']})" for r in rows if r["err_flag"]]
    lines = [f"Copy bandwidth (1 GiB device-to-device copy, read + written): {bw:.0f} GB/s. Speedup = bf16 F.linear "
             f"time / row time. Floor = (weight + scale bytes) / copy bandwidth; % = floor / time. Rel err: "
             f"Frobenius vs bf16 F.linear on the same dequantized weight, flagged above {ERR_LIMIT:g}.",
             f"Flagged: {'; '.join(flagged) or 'none'}", f"Failed rows: {'; '.join(failures) or 'none'}", ""]
    lines += md_table(["M x N x K", "impl", "backend", "device us", "x bf16", "floor us", "% of floor", "rel err",
                       "eager wall us"],
                      [[f"{r['m']}x{r['n']}x{r['k']}", r["impl"], r["backend"], r["device_us"],
                        r["speedup_vs_bf16"] if r["speedup_vs_bf16"] is not None else "-", r["floor_us"],
                        r["pct_of_floor"], f"{r['rel_err']}{' FLAGGED' if r['err_flag'] else ''}", r["wall_us"]]
                       for r in rows])
    report(args.out, "weight_only", lines)


COMMANDS = {"weight_only": cmd_weight_only}
