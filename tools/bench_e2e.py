"""The `quant` and `layer` subcommands of tools/benchmark.py (run them through it).

quant: device time of each activation-quantization op (and of the same per-token int8 recipe in torch,
compiled by Inductor) on bf16 input, against the floor set by the bytes it must move at the measured
device-to-device copy bandwidth. Bytes: read M*K*2 (+ residual read M*K*2 and write M*K*2 for RMSNorm
with residual) + write M*K*1 + scales (azp included); the RMSNorm weight (K*2) is not counted.

layer: what a model calls, quantization + GEMM, as cutlass_gemm.nn layers and as the torch W8A8 recipes
compiled by Inductor, against bf16 F.linear: device time (batches queued behind a GPU sleep) and wall
clock per call (200 back-to-back calls, host overhead included). Every row's output is first checked
against bf16 F.linear (relative Frobenius error; above 5e-2 it is flagged). Weights rotate across
2-4 copies of the layer so each call streams its weight from HBM.
"""
import collections
import functools
import sys
import time
from pathlib import Path

import torch
import torch.nn.functional as F

from bench_common import (L2_BYTES, bench_shapes, copies_for, copy_bandwidth_gbps, cycler, fail, gpu_time_us, graph_time_us,
                          md_table, parse_shapes, plain_launch, plot_panels, report, wall_time_us, write_results)

QUANT_M = (1, 16, 128, 2048, 8192)
QUANT_K = (4096, 8192)
LAYER_SHAPES = [(1, 8192, 8192), (16, 8192, 8192), (2048, 8192, 8192), (16, 28672, 4096)]
LAYER_QUICK = [(16, 8192, 8192), (2048, 8192, 8192)]
PEAK_INT8, PEAK_BF16 = 1979e12, 989e12  # H100 SXM dense int8 / fp8 and bf16 ops per second
ERR_LIMIT = 5e-2
BASELINE = "bf16 F.linear"


def _measure_bw():
    bw = copy_bandwidth_gbps()
    print(f"device-to-device copy bandwidth (1 GiB dst.copy_(src), read + written): {bw:.0f} GB/s",
          file=sys.stderr, flush=True)
    return bw


def _compile(fn, mode):
    torch._dynamo.reset()  # a fresh, shape-specialised compile each time (no recompile limit, no dynamic shapes)
    return torch.compile(fn, mode=mode, dynamic=False)


# ------------------------------------------------------------------------------ torch recipes
def torch_per_token_int8(x):
    amax = x.abs().amax(-1, keepdim=True).float()
    s = (amax / 127).clamp_min(1e-10)
    q = (x.float() / s).round().clamp(-128, 127).to(torch.int8)
    return q, s


def torch_w8a8_int8(x, wq_t, sb, bias):
    m = x.shape[0]
    if m <= 16:  # torch._int_mm needs M > 16
        x = F.pad(x, (0, 0, 0, 32 - m))
    q, s = torch_per_token_int8(x)
    acc = torch._int_mm(q, wq_t)
    return (acc.float() * s * sb + bias.float()).to(torch.bfloat16)[:m]


def torch_w8a8_fp8(x, w8_t, sb, bias):
    amax = x.abs().amax(-1, keepdim=True).float()
    s = (amax / 448).clamp_min(1e-10)
    q8 = (x.float() / s).clamp(-448, 448).to(torch.float8_e4m3fn)
    return torch._scaled_mm(q8, w8_t, scale_a=s, scale_b=sb, bias=bias, out_dtype=torch.bfloat16)


def per_channel_weight(w, dtype):
    """Symmetric per-output-channel quantization of an (N, K) weight: ((N, K) in dtype, (1, N) float32 scale)."""
    qmax = 127.0 if dtype == torch.int8 else 448.0
    sb = (w.float().abs().amax(1, keepdim=True) / qmax).clamp_min(1e-10)
    q = (w.float() / sb).clamp(-qmax, qmax)
    if dtype == torch.int8:
        q = q.round()
    return q.to(dtype), sb.t().contiguous()


# ------------------------------------------------------------------------------ quant
def bench_quant_shape(m, k, bw, mode):
    from cutlass_gemm import ops as qops
    copies = copies_for(m * k * 2, target=3 * L2_BYTES, lo=2, hi=16)
    xs = [torch.randn(m, k, device="cuda", dtype=torch.bfloat16) for _ in range(copies)]
    pair = cycler([(x, torch.randn_like(x)) for x in xs])
    norm_w = torch.rand(k, device="cuda", dtype=torch.bfloat16) + 0.5
    s_static = torch.tensor(0.03, device="cuda")
    z_static = torch.tensor(3, device="cuda", dtype=torch.int32)
    base = m * k * 2 + m * k  # read bf16 x, write one-byte q
    compiled = _compile(torch_per_token_int8, mode)
    # a plain copy moving the same bytes (1.5*M*K read, 1.5*M*K written): what this size allows at best
    srcs = cycler([torch.empty(m * k * 3 // 2, dtype=torch.uint8, device="cuda") for _ in range(copies)])
    dsts = cycler([torch.empty(m * k * 3 // 2, dtype=torch.uint8, device="cuda") for _ in range(copies)])
    cases = [
        ("torch copy_ of the same bytes (reference)", lambda x, r: dsts().copy_(srcs()), base),
        ("quantize_per_token int8", lambda x, r: qops.quantize_per_token(x, torch.int8), base + 4 * m),
        ("quantize_per_token fp8", lambda x, r: qops.quantize_per_token(x, torch.float8_e4m3fn), base + 4 * m),
        ("quantize_per_token_asym int8", lambda x, r: qops.quantize_per_token_asym(x), base + 8 * m),
        ("quantize_per_tensor fp8 (dynamic)", lambda x, r: qops.quantize_per_tensor(x, torch.float8_e4m3fn), base + 4),
        ("quantize_per_group int8 g128", lambda x, r: qops.quantize_per_group(x, 128, torch.int8),
         base + 4 * m * (k // 128)),
        ("quantize_static int8 (scale, azp)", lambda x, r: qops.quantize_static(x, s_static, torch.int8, azp=z_static),
         base + 4 * m),
        ("rms_norm_quantize int8", lambda x, r: qops.rms_norm_quantize(x, norm_w, eps=1e-6, dtype=torch.int8),
         base + 4 * m),
        ("rms_norm_quantize int8 +residual",
         lambda x, r: qops.rms_norm_quantize(x, norm_w, eps=1e-6, dtype=torch.int8, residual=r),
         base + 2 * m * k * 2 + 4 * m),
        (f"torch per-token int8 (Inductor {mode})", lambda x, r: compiled(x), base + 4 * m),
    ]
    # Outputs rotate like the inputs: each call's result is held until `copies` later calls have run, so the
    # allocator hands every call another block and no call writes into lines an earlier call left in L2. (With
    # one output block reused by every call, session 18's first build measured 2048 x 8192 per-token int8 at 107%
    # of the copy floor, while its harness, whose outputs rotate, measured that build 1.4% slower than the last:
    # tools/results/h100-2026-11-26/session18/call1.)
    held = collections.deque(maxlen=copies)
    rows = []
    copy_us = None  # the first case: a copy of `base` bytes at this size (launch, ramp-up and tail included)
    for name, call, nbytes in cases:
        try:
            us = gpu_time_us(lambda: held.append(call(*pair())))
            # the same calls captured in a CUDA graph: no host in the figure (serving engines replay graphs)
            try:
                graph_us = graph_time_us(lambda: held.append(call(*pair())))
            except Exception as exc:  # noqa: BLE001  (a row that cannot be captured keeps its eager time)
                graph_us = float("nan")
                fail(f"{name} at M={m} K={k} in a CUDA graph", exc)
            copy_us = us if copy_us is None else copy_us
            floor = nbytes / bw / 1e3
            rows.append({"m": m, "k": k, "impl": name, "us": round(us, 2), "graph_us": round(graph_us, 2),
                         "gbps": round(nbytes / us / 1e3, 1), "floor_us": round(floor, 3),
                         "pct_of_copy_bw": round(100 * floor / us, 2),
                         "pct_of_same_size_copy": round(100 * copy_us * nbytes / base / us, 2)})
            print(f"  {m}x{k} {name}: {us:.2f} us ({100 * floor / us:.0f}% of copy bandwidth)", file=sys.stderr,
                  flush=True)
        except Exception as exc:
            fail(f"{name} at M={m} K={k}", exc)
    return rows


def cmd_quant(args):
    torch.manual_seed(0)
    bw = _measure_bw()
    rows = []
    for k in QUANT_K:
        for m in QUANT_M:
            t0 = time.time()
            try:
                with torch.no_grad():
                    rows += bench_quant_shape(m, k, bw, args.inductor_mode)
            except Exception as exc:
                fail(f"shape M={m} K={k}", exc)
            torch.cuda.empty_cache()
            print(f"M={m} K={k} done in {time.time() - t0:.1f} s", file=sys.stderr, flush=True)
    write_results(args.out, "quant", rows)
    panels = {}
    for r in rows:
        panels.setdefault(f"K={r['k']}", {}).setdefault(r["impl"], []).append((r["m"], r["pct_of_copy_bw"]))
    plot_panels(Path(args.out) / "quant.png", panels, "activation quantization vs copy bandwidth", "M",
                "% of copy bandwidth")
    lines = [f"Copy bandwidth (1 GiB device-to-device copy, read + written): {bw:.0f} GB/s. floor_us = bytes "
             f"moved / copy bandwidth; % of copy BW = floor / time. % of same-size copy = the time of the copy row "
             f"at that shape (a copy of M*K*1.5 bytes: launch, ramp-up and tail included), scaled to the row's "
             f"bytes, / time. us: eager calls queued behind a GPU sleep; graph us: the same calls replayed from a "
             f"CUDA graph (no host cost can leak in). Inputs and outputs rotate over 2-16 copies (about 3x the L2 size where 16 "
             f"suffice). Dynamic per-tensor must know the whole tensor's absmax before "
             f"its first store: a "
             f"tensor larger than the GPU's registers + shared memory (~45 MB on an H100) is read twice, so its "
             f"floor there is (2 * read + write) bytes, not the copy's. bf16 input.", ""]
    lines += md_table(["M", "K", "impl", "us", "graph us", "GB/s", "floor us", "% of copy BW", "% of same-size copy"],
                      [[r["m"], r["k"], r["impl"], r["us"], r.get("graph_us"), r["gbps"], r["floor_us"],
                        r["pct_of_copy_bw"], r.get("pct_of_same_size_copy")] for r in rows])
    report(args.out, "quant", lines)


# ------------------------------------------------------------------------------ layer
def layer_cases(m, lins, x, mode):
    """[(impl, bytes per weight element, builder)]; a builder returns one zero-argument call per layer copy."""
    def nn_layers(cls_name, **kw):
        import cutlass_gemm.nn as cnn
        cls = getattr(cnn, cls_name)
        return [functools.partial(cls.from_float(lin, **kw), x) for lin in lins]

    def torch_recipe(fn, dtype):
        compiled = _compile(fn, mode)
        calls = []
        for lin in lins:
            wq, sb = per_channel_weight(lin.weight.detach(), dtype)
            calls.append(functools.partial(compiled, x, wq.t(), sb, lin.bias.detach()))
        return calls

    pad = ", x padded to 32 rows" if m <= 16 else ""
    return [
        (BASELINE, 2, lambda: [functools.partial(F.linear, x, lin.weight, lin.bias) for lin in lins]),
        ("Int8Linear dynamic per-token", 1, lambda: nn_layers("Int8Linear", act="dynamic")),
        ("Int8Linear dynamic asym", 1, lambda: nn_layers("Int8Linear", act="dynamic_asym")),
        ("Fp8Linear dynamic per-token", 1, lambda: nn_layers("Fp8Linear", act="dynamic")),
        ("Int8Linear static", 1, lambda: nn_layers("Int8Linear", act="static", calibration_data=[x])),
        # its per-tensor kernel launched plainly (programmatic dependents since generator 5: the scalar read late)
        ("Int8Linear static, plain launch", 1,
         lambda: [plain_launch(c) for c in nn_layers("Int8Linear", act="static", calibration_data=[x])]),
        ("Int8Linear dynamic per-tensor", 1, lambda: nn_layers("Int8Linear", act="dynamic_per_tensor")),
        ("Fp8Linear static", 1, lambda: nn_layers("Fp8Linear", act="static", calibration_data=[x])),
        (f"torch W8A8 int8 _int_mm (Inductor {mode}{pad})", 1, lambda: torch_recipe(torch_w8a8_int8, torch.int8)),
        (f"torch W8A8 fp8 _scaled_mm rowwise (Inductor {mode})", 1,
         lambda: torch_recipe(torch_w8a8_fp8, torch.float8_e4m3fn)),
    ]


def rel_err(y, ref):
    if tuple(y.shape) != tuple(ref.shape):
        raise ValueError(f"output shape {tuple(y.shape)} != F.linear's {tuple(ref.shape)}")
    ref = ref.float()
    return ((y.float() - ref).norm() / ref.norm().clamp_min(1e-30)).item()


def time_layer_row(m, n, k, name, bpe, build, ref, bw):
    """Check one row's output against bf16 F.linear, then time it; returns the CSV row."""
    calls = build()
    err = rel_err(calls[0](), ref)
    flag = not err <= ERR_LIMIT  # NaN is flagged too
    print(f"  {m}x{n}x{k} {name}: rel err {err:.2e}{'  FLAGGED' if flag else ''}", file=sys.stderr, flush=True)
    nxt = cycler(calls)

    def fn():
        return nxt()()

    dev = gpu_time_us(fn)
    wall = wall_time_us(fn, calls=200, reps=5)
    print(f"  {m}x{n}x{k} {name}: device {dev:.2f} us, wall {wall:.2f} us", file=sys.stderr, flush=True)
    peak = PEAK_BF16 if bpe == 2 else PEAK_INT8
    return {"m": m, "n": n, "k": k, "impl": name, "device_us": round(dev, 2), "wall_us": round(wall, 2),
            "speedup_device": None, "speedup_wall": None, "weight_floor_us": round(bpe * n * k / bw / 1e3, 2),
            "compute_floor_us": round(2 * m * n * k / peak * 1e6, 3), "rel_err": float(f"{err:.3g}"),
            "err_flag": "FLAGGED" if flag else ""}


def bench_layer_shape(m, n, k, bw, mode, failures):
    copies = copies_for(n * k, target=4 * L2_BYTES, lo=2, hi=4)
    lins = [torch.nn.Linear(k, n, bias=True, device="cuda", dtype=torch.bfloat16) for _ in range(copies)]
    x = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
    ref = F.linear(x, lins[0].weight, lins[0].bias)
    rows = []
    for name, bpe, build in layer_cases(m, lins, x, mode):
        try:
            rows.append(time_layer_row(m, n, k, name, bpe, build, ref, bw))
        except Exception as exc:
            fail(f"{name} at {m}x{n}x{k}", exc)
            failures.append(f"{m}x{n}x{k} {name}: {type(exc).__name__}: {str(exc)[:200]}")
        torch.cuda.empty_cache()
    base = next((r for r in rows if r["impl"] == BASELINE), None)
    for r in rows:
        if base:
            r["speedup_device"] = round(base["device_us"] / r["device_us"], 2)
            r["speedup_wall"] = round(base["wall_us"] / r["wall_us"], 2)
    return rows


def cmd_layer(args):
    torch.manual_seed(0)
    shapes = LAYER_QUICK if args.quick else LAYER_SHAPES
    if args.shapes:
        shapes = parse_shapes(args.shapes)
    bw = _measure_bw()
    failures = []
    rows = bench_shapes(shapes, lambda m, n, k: bench_layer_shape(m, n, k, bw, args.inductor_mode, failures), failures)
    write_results(args.out, "layer", rows)
    panels = {}
    for r in rows:
        if r["speedup_device"] is not None:
            panels.setdefault(f"N={r['n']}, K={r['k']}", {}).setdefault(r["impl"], []).append(
                (r["m"], r["speedup_device"]))
    plot_panels(Path(args.out) / "layer.png", panels, "layer device time, speedup over bf16 F.linear", "M",
                "bf16 time / row time")
    flagged = [f"{r['m']}x{r['n']}x{r['k']} {r['impl']} (rel err {r['rel_err']})" for r in rows if r["err_flag"]]
    lines = [f"Copy bandwidth (1 GiB device-to-device copy, read + written): {bw:.0f} GB/s. Speedups are bf16 "
             f"F.linear time / row time (above 1 = faster). Floors: weight bytes / copy bandwidth; 2MNK / dense "
             f"peak ({PEAK_INT8 / 1e12:.0f} T int8/fp8, {PEAK_BF16 / 1e12:.0f} T bf16). Rel err: Frobenius vs "
             f"bf16 F.linear, flagged above {ERR_LIMIT:g}.",
             f"Flagged (error above {ERR_LIMIT:g}, timings not to be trusted): {'; '.join(flagged) or 'none'}",
             f"Failed rows: {'; '.join(failures) or 'none'}", ""]
    lines += md_table(["M x N x K", "impl", "device us", "wall us", "x bf16 device", "x bf16 wall", "weight floor us",
                       "compute floor us", "rel err"],
                      [[f"{r['m']}x{r['n']}x{r['k']}", r["impl"], r["device_us"], r["wall_us"],
                        r["speedup_device"] if r["speedup_device"] is not None else "-",
                        r["speedup_wall"] if r["speedup_wall"] is not None else "-",
                        r["weight_floor_us"], r["compute_floor_us"],
                        f"{r['rel_err']}{' FLAGGED' if r['err_flag'] else ''}"] for r in rows])
    report(args.out, "layer", lines)


COMMANDS = {"quant": cmd_quant, "layer": cmd_layer}
