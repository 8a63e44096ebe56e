#!/usr/bin/env python3
"""Per-block int8 GEMM (`scaled_mm_blockwise_int8`, runtime/csrc/bi8_gemm.cuh) against this library's
per-token int8 GEMM (`scaled_mm`, CUTLASS, per-token x per-channel scales) and bf16 `F.linear`, on the
same shapes, in one process (GPU only):

    python tools/bench_blockint8.py [--quick] [--shapes MxNxK,...] [--block 128] [--choices]

At M <= 16 the op runs the block-scaled decode GEMV; above it, on SM90 with block 128, the CUTLASS int8 kernel
(kernels/cxx/blockwise_int8.hpp). The "tiled kernel" column is bi8_gemm.cuh on the same call (CUTLASS_GEMM_GEMV=0,
CUTLASS_GEMM_BI8_CUTLASS=0), what the op ran before. Above decode M the per-block and per-token calls are timed in
alternating batches (the same clock for the ratio). `--choices` adds a row per int8 CUTLASS candidate
(kernels/blockwise.py s8_candidate_configs, both scale_a layouts), each checked like the op's call. Per row: device time of each (CUDA events around batches of 20 calls behind a GPU sleep, median of 7;
weights rotated over copies > 4x L2), the ratio per-token time / per-block time (the issue's bar: >= 0.85
at M >= 2048), and the per-block call's % of the bandwidth floor ((weight + weight-scale + activation
bytes + output bytes) / measured copy bandwidth; the issue's bar: >= 80% at M = 16). Each per-block
result is first checked against the float64 reference of its quantized operands (rel. Frobenius error). The two
columns before the last three are the layer a model calls, eager: `Int8BlockLinear` (activation quantization + the
GEMM; one C++ call at M <= 16) against bf16 `F.linear`, wall clock per call of back-to-back calls (host cost
included), one weight each. The last three, at M <= 16 only: the per-block and per-token calls captured 20 at a time into a CUDA graph
(bench_common.graph_time_us; the weight copies rotate inside the graph), replay time per call and the per-block call's
% of the floor so: a decode step as serving engines run it, captured, without the launch gaps of eager calls.
"""
import argparse
import os
import sys
from unittest import mock
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

from bench_common import copies_for, copy_bandwidth_gbps, gpu_time_us, graph_time_us, parse_shapes, wall_time_us  # noqa: E402

import cutlass_gemm  # noqa: E402
from cutlass_gemm.nn import Int8BlockLinear  # noqa: E402
from cutlass_gemm.kernels.gemv import MAX_M  # noqa: E402
from cutlass_gemm.ops.blockwise_int8 import reference  # noqa: E402
from cutlass_gemm.runtime.gemv import GEMV_ENV  # noqa: E402
from cutlass_gemm.kernels import blockwise_heuristics as bk  # noqa: E402
from cutlass_gemm.ops import blockwise as bops  # noqa: E402
from cutlass_gemm.ops import blockwise_int8 as bi8  # noqa: E402
from cutlass_gemm.ops.blockwise_int8 import CUTLASS_ENV  # noqa: E402
from bench_common import alternating_time_us  # noqa: E402

NK = [(4096, 4096), (8192, 8192), (28672, 4096), (4096, 14336)]
MS = [1, 16, 64, 2048, 4096]
QUICK = [(16, 8192, 8192), (16, 4096, 14336), (2048, 8192, 8192), (4096, 4096, 4096)]


def bench(m, n, k, block, bw_gbps, choices=False):
    dev = "cuda"
    g = torch.Generator(device=dev).manual_seed(m + n + k)
    wbytes = n * k + n * (k // block) * 4
    copies = copies_for(wbytes)
    ws = [torch.randint(-127, 128, (n, k), device=dev, dtype=torch.int8, generator=g) for _ in range(copies)]
    sbs = [torch.rand(n, k // block, device=dev, generator=g) * 1e-3 + 1e-4 for _ in range(copies)]
    sch = [torch.rand(1, n, device=dev, generator=g) * 1e-3 + 1e-4 for _ in range(copies)]
    wbf = [torch.randn(n, k, device=dev, generator=g).bfloat16() for _ in range(min(copies, 2 if n * k > 2 ** 27 else copies))]
    a = torch.randint(-127, 128, (m, k), device=dev, dtype=torch.int8, generator=g)
    sa = torch.rand(m, k // block, device=dev, generator=g) * 1e-2
    st = torch.rand(m, 1, device=dev, generator=g) * 1e-2
    x = torch.randn(m, k, device=dev, generator=g).bfloat16()
    y = cutlass_gemm.scaled_mm_blockwise_int8(a, ws[0], sa, sbs[0], block_size=block)
    ref = reference(a[:256], ws[0], sa[:256], sbs[0], None, torch.bfloat16, "none", block, torch.float64).double()
    err = ((y[:256].double() - ref).norm() / ref.norm()).item()
    it = [0]

    def nxt():
        it[0] += 1
        return it[0] % copies

    def per_block():
        return cutlass_gemm.scaled_mm_blockwise_int8(a, ws[nxt()], sa, sbs[it[0] % copies], block_size=block)
    def per_token():
        return cutlass_gemm.scaled_mm(a, ws[nxt()].t(), st, sch[it[0] % copies], torch.bfloat16)
    try:
        per_token()
    except Exception as exc:  # a per-token kernel not built: the row still reports the per-block time
        print(f"  per-token scaled_mm unavailable: {exc}", file=sys.stderr)
        per_token = None
    if m > MAX_M and per_token is not None:  # the done-when ratio: both timed in alternating batches
        t_block, t_token = alternating_time_us([per_block, per_token])
    else:
        t_block = gpu_time_us(per_block)
        t_token = gpu_time_us(per_token) if per_token is not None else float("nan")
    # the extension's tiled kernel on the same call (what the op ran before the GEMV / the CUTLASS int8 kernel)
    with mock.patch.dict(os.environ, {GEMV_ENV: "0", CUTLASS_ENV: "0"}):
        y_tiled = cutlass_gemm.scaled_mm_blockwise_int8(a, ws[0], sa, sbs[0], block_size=block)
        err = max(err, ((y_tiled[:256].double() - ref).norm() / ref.norm()).item())
        t_tiled = gpu_time_us(per_block)
    extra = []
    for cfg in (bk.s8_candidate_configs("bf16", "k") + bk.s8_candidate_configs("bf16", "mn")
                if choices and m > MAX_M and block == 128 else ()):
        sa_cfg = sa if cfg.sfa_major == "k" else sa.t().contiguous().t()
        # the op would turn a row-major scale_a column-major at depth (relayout_sfa): a "k" candidate must get it as is
        with mock.patch.object(bops, "select_config", lambda *a_, cfg=cfg, **kw: cfg), \
                mock.patch.object(bi8, "relayout_sfa", lambda m_, k_: False):
            bops._plans.clear()
            y_c = cutlass_gemm.scaled_mm_blockwise_int8(a, ws[0], sa_cfg, sbs[0], block_size=block)
            err_c = ((y_c[:256].double() - ref).norm() / ref.norm()).item()
            t_c = gpu_time_us(lambda: cutlass_gemm.scaled_mm_blockwise_int8(a, ws[nxt()], sa_cfg, sbs[it[0] % copies],
                                                                            block_size=block))
        bops._plans.clear()
        extra.append(f"|   {m} | {n} | {k} | {cfg.name} | {t_c:.2f} | {t_token / t_c:.2f} | {err_c:.1e} |")
    t_bf16 = gpu_time_us(lambda: F.linear(x, wbf[nxt() % len(wbf)]))
    # the layer a model calls, eager (host cost included): Int8BlockLinear (quantization + GEMV from one C++ call at
    # M <= 16) vs bf16 F.linear, one weight each (no rotation), wall clock per call of back-to-back calls
    layer = Int8BlockLinear(k, n, bias=False, block_size=block, dtype=torch.bfloat16, device=dev)
    with torch.no_grad():
        layer.weight.copy_(ws[0]), layer.weight_scale.copy_(sbs[0])
    w_layer, w_bf16 = wall_time_us(lambda: layer(x)), wall_time_us(lambda: F.linear(x, wbf[0]))
    bytes_moved = wbytes + m * k + m * (k // block) * 4 + m * n * 2
    floor_us = bytes_moved / (bw_gbps * 1e3)
    graph = "| - | - | - |"
    if m <= MAX_M:  # decode M: the same calls replayed from a CUDA graph (weight copies rotating inside it)
        g_block = graph_time_us(per_block)
        g_token = graph_time_us(per_token) if per_token is not None else float("nan")
        graph = f"| {g_block:.2f} | {100 * floor_us / g_block:.0f}% | {g_token:.2f} |"
    tops = 2 * m * n * k / t_block / 1e6
    return "\n".join([f"| {m} | {n} | {k} | {block} | {t_block:.2f} | {t_tiled:.2f} | {t_token:.2f} | {t_bf16:.2f} | "
                      f"{t_token / t_block:.2f} | {100 * floor_us / t_block:.0f}% | {tops:.0f} | {err:.1e} | "
                      f"{w_layer:.1f} | {w_bf16:.1f} " + graph] + extra)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--quick", action="store_true")
    p.add_argument("--shapes", default=None, help="MxNxK,MxNxK")
    p.add_argument("--block", type=int, default=128, choices=(64, 128))
    p.add_argument("--choices", action="store_true", help="a row per int8 CUTLASS candidate kernel (M > 16, B = 128)")
    args = p.parse_args()
    shapes = parse_shapes(args.shapes) if args.shapes else QUICK if args.quick else [(m, n, k) for n, k in NK for m in MS]
    bw = copy_bandwidth_gbps()
    print(f"{torch.cuda.get_device_name()}  copy bandwidth {bw:.0f} GB/s  backend "
          f"{cutlass_gemm.ops.blockwise_int8_backend('cuda')}")
    print("| M | N | K | B | per-block us | tiled kernel us (bi8_gemm.cuh) | per-token us | bf16 us | per-token/per-block | "
          "% of bw floor | TOPS | rel err | Int8BlockLinear eager wall us | bf16 F.linear eager wall us | "
          "per-block us, CUDA graph | % of bw floor, CUDA graph | per-token us, CUDA graph |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for m, n, k in shapes:
        print(bench(m, n, k, args.block, bw, args.choices), flush=True)
        torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
