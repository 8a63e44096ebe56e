"""The `blockwise` subcommand of tools/benchmark.py (run it through it).

The blockwise-scaled fp8 GEMM (`scaled_mm_blockwise`: per token per 128 K x per 128 x 128 weight block) on
each shape, against
- bf16 `F.linear` (+ bias),
- this library's per-token fp8 kernel (`scaled_mm` on e4m3, per-token x per-channel, + bias),
- `torch._scaled_mm` with blockwise scales (1x128 x 128x128) where the installed torch serves it: first the
  recipe API `torch.nn.functional.scaled_mm(..., ScalingType.BlockWise1x128, ..., ScalingType.BlockWise128x128)`,
  then the legacy `torch._scaled_mm(a, b, scale_a (M, K/128) column-major, scale_b (K/128, N/128))`; when
  neither does, the row says so with torch's error (no time),
- at M <= 16 the op runs the block-scaled decode GEMV (row ", PDL off": the same GEMV as a plain launch); the row
  "... CUTLASS" is the CUTLASS kernel the op took before it (CUTLASS_GEMM_GEMV=0, as are the candidate rows below);
  `--no-tiles` leaves out these CUTLASS rows at M <= 16 (each a JIT build),
- the selected kernel again with scale_a column-major (stride (1, M), loaded by TMA) where M % 4 == 0,
- every candidate tile of kernels/blockwise.py (`candidate_configs`, rows "blockwise <tile>"), or the kernels
  named by `--choices NAME,NAME` (full BlockwiseConfig names): the data for SELECTION,
- `Fp8BlockLinear` (per-group activation quantization + the GEMM) vs bf16 F.linear: the layer row,
- at M <= 16 the blockwise, per-token, bf16 and torch blockwise calls again as CUDA-graph replays (", CUDA graph":
  20 calls captured, weights rotating inside the graph): a decode step as serving engines run it.
Every row's output is checked against bf16 F.linear on the same dequantized operands first (relative
Frobenius error, flagged above 5e-2). Device time: CUDA events around batches behind a GPU sleep, median
(bench_common), weights rotated over copies larger than L2. "% floor": (fp8 weight + scales + activation +
output bytes) / measured copy bandwidth / time (the decode target: >= 80 %).
"""
import os
from unittest import mock

import torch
import torch.nn.functional as F

from cutlass_gemm.kernels.gemv import MAX_M
from cutlass_gemm.runtime.gemv import GEMV_ENV
from cutlass_gemm.runtime.gemv import enabled as gemv_enabled
from bench_common import (alternating_time_us, bench_shapes, copies_for, copy_bandwidth_gbps, cycler, fail,
                          gpu_time_us, graph_time_us, md_table, parse_shapes, pdl_off, report, wall_time_us,
                          write_results)

SHAPES = [(16, 7168, 2048), (16, 8192, 8192), (128, 7168, 2048), (1024, 7168, 2048), (4096, 7168, 2048),
          (2048, 8192, 8192), (8192, 8192, 8192)]
QUICK = [(16, 7168, 2048), (4096, 7168, 2048), (8192, 8192, 8192)]
ERR_LIMIT = 5e-2
BLOCKWISE = "cutlass_gemm blockwise (selected)"
BLOCKWISE_MN = "cutlass_gemm blockwise (selected), scale_a column-major"
GRAPH = ", CUDA graph"
PER_TOKEN = "cutlass_gemm fp8 per-token"
ALTERNATING = "alternating: "  # prefix of the rows timed in alternation
TORCH = "torch._scaled_mm blockwise"


def _rel(y, ref):
    ref = ref.float()
    return ((y.float() - ref).norm() / ref.norm().clamp_min(1e-30)).item()


def _torch_blockwise(a, b, sa, sb, bias):
    """A callable running torch's blockwise fp8 GEMM on these operands, or the reason it cannot (str)."""
    k = a.shape[1]
    kb = k // 128
    sa_cm = sa.t().contiguous().t()  # (M, K/128), stride (1, M): torch's "outer-dim-major" 1x128 scales
    errors = []
    try:
        from torch.nn.functional import ScalingType, scaled_mm
        l4 = -(-kb // 4) * 4
        pad = torch.zeros(sb.shape[0], l4, dtype=torch.float32, device=sb.device)
        pad[:, :kb] = sb
        sb_t = pad.t()  # (L4, N/128), stride (1, L4)

        def new_api():
            return scaled_mm(a, b, sa_cm, ScalingType.BlockWise1x128, sb_t, ScalingType.BlockWise128x128,
                             bias=bias, output_dtype=torch.bfloat16)
        new_api()
        return new_api
    except Exception as exc:
        errors.append(f"F.scaled_mm: {type(exc).__name__}: {str(exc)[:160]}")
    try:
        sb_kn = sb.t().contiguous()  # (K/128, N/128)

        def legacy():
            return torch._scaled_mm(a, b, scale_a=sa_cm, scale_b=sb_kn, bias=bias, out_dtype=torch.bfloat16)
        legacy()
        return legacy
    except Exception as exc:
        errors.append(f"torch._scaled_mm: {type(exc).__name__}: {str(exc)[:160]}")
    return "unsupported by torch " + torch.__version__ + ": " + " | ".join(errors)


def bench_blockwise_shape(m, n, k, bw, failures, choices=None, tiles=True):
    import cutlass_gemm
    from cutlass_gemm.kernels import blockwise_heuristics as bk
    from cutlass_gemm.nn import Fp8BlockLinear
    from cutlass_gemm.ops import blockwise as bops
    from cutlass_gemm.quant import quantize_weight
    from cutlass_gemm.quant.blockwise import quantize_act_block, quantize_weight_block2d
    g = torch.Generator(device="cuda").manual_seed(0)
    x = torch.randn(m, k, device="cuda", generator=g).bfloat16()
    copies = copies_for(n * k)
    ws = [torch.randn(n, k, device="cuda", generator=g).bfloat16() * 0.05 for _ in range(copies)]
    bias = torch.randn(n, device="cuda", generator=g).bfloat16()
    aq = quantize_act_block(x.float().cpu())
    a8, sa = aq.q.cuda(), aq.scale.cuda()
    blk = [quantize_weight_block2d(w) for w in ws]
    tok = [quantize_weight(w.float(), dtype=torch.float8_e4m3fn) for w in ws]
    at = cutlass_gemm.quantize_per_token(x, torch.float8_e4m3fn)
    w16 = [wq.dequantize().to(torch.bfloat16) for wq in blk[:copies_for(2 * n * k, hi=4)]]
    ref = F.linear(aq.dequantize().cuda().bfloat16(), w16[0], bias)
    floor_bytes = n * k + m * k + 2 * m * n + 4 * (m * (k // 128) + blk[0].scale.numel())
    floor_us = floor_bytes / bw / 1e3
    rows = []
    rotate = {"on": False}  # the checked call uses weight copy 0 (the reference's); timed calls rotate the copies

    def cycle(items):
        nxt = cycler(items)
        return lambda: nxt() if rotate["on"] else items[0]

    def row(name, fn, check=True, note="", graph=False):
        try:
            rotate["on"] = False
            y = fn()
            err = _rel(y, ref) if check else float("nan")
            rotate["on"] = True
            us = graph_time_us(fn) if graph else gpu_time_us(fn)
        except Exception as exc:
            fail(f"{name} at {m}x{n}x{k}", exc)
            failures.append(f"{m}x{n}x{k} {name}: {type(exc).__name__}: {str(exc)[:200]}")
            return
        if err > ERR_LIMIT:
            note = (note + f" REL ERR {err:.3g} > {ERR_LIMIT}").strip()
        rows.append({"m": m, "n": n, "k": k, "impl": name, "us": round(us, 2),
                     "tflops": round(2 * m * n * k / us / 1e6, 1), "pct_floor": round(100 * floor_us / us, 1),
                     "rel_err": round(err, 4), "note": note})

    nxt16, nxtb, nxtt = cycle(w16), cycle(blk), cycle(tok)
    row("bf16 F.linear", lambda: F.linear(x, nxt16(), bias))
    def per_token():
        t = nxtt()
        return cutlass_gemm.scaled_mm(at[0], t.b, at[1], t.scale_b, torch.bfloat16, bias)
    row(PER_TOKEN, per_token, check=False,
        note="per-token x per-channel scales (its own quantization: error not compared)")
    decode = m <= MAX_M and gemv_enabled()
    row(BLOCKWISE, lambda: cutlass_gemm.scaled_mm_blockwise(a8, (q := nxtb()).q.t(), sa, q.scale, bias),
        note="block-scaled GEMV (gemv_w8a8.cuh)" if decode else bk.select_config("bf16", m).name)
    if decode:  # the same GEMV as a plain launch (the extension's PDL switch off): what the early start is worth
        with pdl_off() as off:
            if off:
                row(BLOCKWISE + ", PDL off", lambda: cutlass_gemm.scaled_mm_blockwise(a8, (q := nxtb()).q.t(), sa, q.scale,
                                                                                      bias), note="CUTLASS_GEMM_PDL=0")
    no_gemv = mock.patch.dict(os.environ, {GEMV_ENV: "0"})  # the CUTLASS rows below, at decode M too
    no_gemv.start()
    if decode and tiles:
        row(BLOCKWISE + " CUTLASS", lambda: cutlass_gemm.scaled_mm_blockwise(a8, (q := nxtb()).q.t(), sa, q.scale, bias),
            note=bk.select_config("bf16", m).name + f" ({GEMV_ENV}=0)")
    if m % 4 == 0 and (tiles or not decode):  # the same call with scale_a column-major (stride (1, M)): the kernel loads it with TMA
        sa_mn = sa.t().contiguous().t()
        row(BLOCKWISE_MN, lambda: cutlass_gemm.scaled_mm_blockwise(a8, (q := nxtb()).q.t(), sa_mn, q.scale, bias),
            note=bk.select_config("bf16", m, sfa_major="mn").name)
    # torch's path on every weight copy, rotated like the others (before session 38 it ran on copy 0 alone, which at the
    # small shapes could stay in L2 between its calls)
    torch_fns = [_torch_blockwise(a8, q.q.t(), sa, q.scale, bias) for q in blk]
    if isinstance(torch_fns[0], str):
        torch_fn = torch_fns[0]
    else:
        nxt_torch = cycle(torch_fns)
        torch_fn = lambda: nxt_torch()()  # noqa: E731
    if not decode and {PER_TOKEN, BLOCKWISE} <= {r["impl"] for r in rows}:
        # the done-when ratios: the per-token kernel, the selected blockwise ones and torch's blockwise path timed in
        # alternation (same clock)
        fns = {PER_TOKEN: per_token,
               BLOCKWISE: lambda: cutlass_gemm.scaled_mm_blockwise(a8, (q := nxtb()).q.t(), sa, q.scale, bias)}
        if m % 4 == 0:
            fns[BLOCKWISE_MN] = lambda: cutlass_gemm.scaled_mm_blockwise(a8, (q := nxtb()).q.t(), sa_mn, q.scale, bias)
        if not isinstance(torch_fn, str):
            fns[TORCH] = torch_fn
        rotate["on"] = True
        for name, us in zip(fns, alternating_time_us(list(fns.values()))):
            rows.append({"m": m, "n": n, "k": k, "impl": ALTERNATING + name, "us": round(us, 2),
                         "tflops": round(2 * m * n * k / us / 1e6, 1), "pct_floor": round(100 * floor_us / us, 1),
                         "rel_err": "", "note": "timed in alternating batches with this shape's other \"alternating:\" rows"})
    for cfg in (choices or bk.candidate_configs("bf16")) if tiles or not decode else ():
        if cfg.sfa_major == "mn" and m % 4:
            continue
        sa_cfg = sa if cfg.sfa_major == "k" else sa.t().contiguous().t()

        def run(sa_cfg=sa_cfg):
            q = nxtb()
            return cutlass_gemm.scaled_mm_blockwise(a8, q.q.t(), sa_cfg, q.scale, bias)
        tile = "x".join(map(str, cfg.tile))
        # patched once around the row (a patch per call would make small-M rows host-bound); the op's
        # per-shape plans are dropped before and after so the patched choice is the one that runs
        with mock.patch.object(bops, "select_config", lambda *a, cfg=cfg, **kw: cfg):
            bops._plans.clear()
            row(f"blockwise t{tile} c{'x'.join(map(str, cfg.cluster))} {cfg.schedule} {cfg.scheduler} "
                f"sfa{cfg.sfa_major} s{cfg.stages}" + ("" if cfg.mainloop == "cutlass" else f" {cfg.mainloop}"), run)
        bops._plans.clear()
    no_gemv.stop()
    if isinstance(torch_fn, str):
        rows.append({"m": m, "n": n, "k": k, "impl": TORCH, "us": "", "tflops": "",
                     "pct_floor": "", "rel_err": "", "note": torch_fn})
    else:
        row(TORCH, torch_fn, note="1x128 x 128x128, torch " + torch.__version__)
    if decode:  # a decode step as serving engines run it: 20 calls captured into a CUDA graph, replayed (weights rotate)
        graphed = "20 calls captured in a CUDA graph, replay time per call"
        row(BLOCKWISE + GRAPH, lambda: cutlass_gemm.scaled_mm_blockwise(a8, (q := nxtb()).q.t(), sa, q.scale, bias),
            note=graphed, graph=True)
        row(PER_TOKEN + GRAPH, per_token, check=False, note=graphed, graph=True)
        row("bf16 F.linear" + GRAPH, lambda: F.linear(x, nxt16(), bias), note=graphed, graph=True)
        if not isinstance(torch_fn, str):
            row(TORCH + GRAPH, torch_fn, note=graphed, graph=True)
    layer = Fp8BlockLinear(k, n, dtype=torch.bfloat16, device="cuda")
    with torch.no_grad():
        layer.weight.copy_(blk[0].q), layer.weight_scale.copy_(blk[0].scale), layer.bias.copy_(bias)
    # layer rows: one weight (no rotation) for both; the note adds the eager wall clock per call (host cost included)
    fp8_layer, bf16_layer = (lambda: layer(x)), (lambda: F.linear(x, w16[0], bias))
    row("Fp8BlockLinear (quant + GEMM)", fp8_layer,
        note=f"activation quantized on the GPU per call; eager wall {wall_time_us(fp8_layer):.1f} us")
    row("bf16 F.linear (layer baseline)", bf16_layer, note=f"eager wall {wall_time_us(bf16_layer):.1f} us")
    return rows


def cmd_blockwise(args):
    """The blockwise table: rows per shape, ratios vs the per-token kernel and bf16 on stdout."""
    shapes = parse_shapes(args.shapes) if args.shapes else (QUICK if args.quick else SHAPES)
    bw = copy_bandwidth_gbps()
    failures = []
    choices = None
    if getattr(args, "choices", None):  # kernel names (any BlockwiseConfig, bf16 output) instead of the candidates
        from cutlass_gemm.kernels.blockwise import BlockwiseConfig
        choices = [BlockwiseConfig.from_name(name) for name in args.choices.split(",")]
    tiles = not getattr(args, "no_tiles", False)  # --no-tiles: no CUTLASS rows at decode M (each a JIT build)
    rows = bench_shapes(shapes, lambda m, n, k: bench_blockwise_shape(m, n, k, bw, failures, choices, tiles), failures)
    write_results(args.out, "blockwise", rows)
    lines = [f"copy bandwidth {bw:.0f} GB/s", ""]
    lines += md_table(["M", "N", "K", "impl", "us", "TFLOP/s", "% floor", "rel err", "note"],
                      [[r["m"], r["n"], r["k"], r["impl"], r["us"], r["tflops"], r["pct_floor"], r["rel_err"],
                        r["note"]] for r in rows])
    lines += ["", "blockwise (selected) / per-token fp8 time ratio (done-when: per-token / blockwise >= 0.9); "
                  "\"alternating\": timed in alternating batches (same clock), else rows in turn:"]
    for m, n, k in shapes:
        t = {r["impl"]: r["us"] for r in rows if (r["m"], r["n"], r["k"]) == (m, n, k) and r["us"] != ""}
        for how, pre in (("", ""), ("alternating, ", ALTERNATING)):
            tok, sel, mn = (t.get(pre + name) for name in (PER_TOKEN, BLOCKWISE, BLOCKWISE_MN))
            if tok and sel:
                lines.append(f"  {m}x{n}x{k}: {how}per-token {tok} us, blockwise {sel} us, "
                             f"speed {tok / sel:.2f}x of per-token")
            if tok and mn:
                lines.append(f"  {m}x{n}x{k}: {how}scale_a column-major {mn} us, speed {tok / mn:.2f}x of per-token")
            ref = t.get(pre + TORCH)
            if ref and (mn or sel):
                lines.append(f"  {m}x{n}x{k}: {how}torch blockwise {ref} us, this library's "
                             f"{'column-major scale_a ' if mn else ''}{ref / (mn or sel):.2f}x of its speed")
    if failures:
        lines += ["", "FAILURES:"] + [f"  {f}" for f in failures]
    report(args.out, "blockwise", lines)
    return 1 if failures else 0


COMMANDS = {"blockwise": cmd_blockwise}
