"""Session 25 probe: the blockwise fp8 GEMM (selected kernel, scale_a column-major as the layers pass it) against
this library's per-token fp8 kernel, timed in alternation, so that both see the same clock and thermal state
(an H100 under sustained fp8 load lowers its clock over seconds; the benchmark times each row in turn).
For each shape: R rounds, each round one batch of `batch` per-token calls then one of blockwise calls (each batch
queued behind a GPU sleep, timed with events); reports the median of each and the median of the per-round
ratios (per-token us / blockwise us, the done-when's ">= 0.9"). Weights rotate over copies larger than L2.
`probe_interleave.py ROUNDS [KERNEL_NAME ...]`: with names, each named blockwise kernel takes a batch in every round
too (the op's choice patched as the GPU tests do), each against the same round's per-token batch.
"""
from unittest import mock
import statistics
import sys

import torch

import cutlass_gemm
from cutlass_gemm.kernels import blockwise as bk
from cutlass_gemm.ops import blockwise as bops
from cutlass_gemm.quant import quantize_weight
from cutlass_gemm.quant.blockwise import quantize_weight_block2d

FP8 = torch.float8_e4m3fn


def batch_us(fn, batch):
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    torch.cuda._sleep(3_000_000)
    start.record()
    for _ in range(batch):
        fn()
    end.record()
    end.synchronize()
    return start.elapsed_time(end) * 1e3 / batch


def main(shapes, rounds, names=()):
    print(f"{torch.cuda.get_device_name()}, torch {torch.__version__}")
    print("| M x N x K | per-token us | blockwise us | ratio (median of rounds) | min / max ratio | kernel |")
    print("|---|---|---|---|---|---|")
    for m, n, k in shapes:
        g = torch.Generator(device="cuda").manual_seed(0)
        x = torch.randn(m, k, device="cuda", generator=g).bfloat16()
        copies = max(2, -(-3 * 50 * 2**20 // (n * k)))  # weight copies: > 3x the L2 in fp8 bytes
        ws = [torch.randn(n, k, device="cuda", generator=g).bfloat16() * 0.05 for _ in range(copies)]
        bias = torch.randn(n, device="cuda", generator=g).bfloat16()
        a8, sa = cutlass_gemm.quantize_per_group(x, 128, FP8, column_major_scale=m % 4 == 0)
        at, st = cutlass_gemm.quantize_per_token(x, FP8)
        blk = [quantize_weight_block2d(w) for w in ws]
        tok = [quantize_weight(w.float(), dtype=FP8) for w in ws]
        del ws
        i = {"b": 0, "t": 0}

        def blockwise():
            q = blk[i["b"] % copies]
            i["b"] += 1
            return cutlass_gemm.scaled_mm_blockwise(a8, q.q.t(), sa, q.scale, bias)

        def per_token():
            t = tok[i["t"] % copies]
            i["t"] += 1
            return cutlass_gemm.scaled_mm(at, t.b, st, t.scale_b, torch.bfloat16, bias)
        selected = bk.select_config("bf16", m, sfa_major="mn" if m % 4 == 0 else "k")
        cfgs = [selected] + [bk.BlockwiseConfig.from_name(nm) for nm in names]
        batch = max(3, min(20, int(2e4 / (2 * m * n * k / 1.2e12 * 1e6))))  # ~20 ms of work per batch
        tt, tb, ratios = [], [[] for _ in cfgs], [[] for _ in cfgs]
        for rnd in range(rounds + 1):  # round 0 warms every kernel up (and builds any not in the cache)
            t = batch_us(per_token, batch)
            for j, cfg in enumerate(cfgs):
                with mock.patch.object(bops, "select_config", lambda *a, cfg=cfg, **kw: cfg):
                    bops._plans.clear()
                    b = batch_us(blockwise, batch)
                bops._plans.clear()
                if rnd:
                    tb[j].append(b), ratios[j].append(t / b)
            if rnd:
                tt.append(t)
        for j, cfg in enumerate(cfgs):
            print(f"| {m} x {n} x {k} | {statistics.median(tt):.2f} | {statistics.median(tb[j]):.2f} | "
                  f"{statistics.median(ratios[j]):.3f} | {min(ratios[j]):.3f} / {max(ratios[j]):.3f} | "
                  f"{cfg.name}{' (selected)' if j == 0 else ''} |", flush=True)


if __name__ == "__main__":
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 15
    main([(4096, 7168, 2048), (2048, 8192, 8192), (8192, 8192, 8192)], rounds, sys.argv[2:])
