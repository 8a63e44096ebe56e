"""Session 25 probe: blockwise kernels (by name) against each other, timed in alternating batches in one process
(probe_interleave.batch_us: each batch queued behind a GPU sleep, events), R rounds; scale_a column-major where
M % 4 == 0 (what the layers pass), else row-major. Reports the median us per kernel and the median of the per-round
ratios to the first kernel (first us / this us: > 1 is faster).
`probe_mainloops.py ROUNDS MxNxK[,MxNxK...] NAME [NAME ...]` (the names' scale layout is set per shape).
"""
import statistics
import sys
from pathlib import Path
from unittest import mock

import torch

sys.path.insert(0, str(Path(__file__).parent))
import cutlass_gemm  # noqa: E402
from cutlass_gemm.kernels import blockwise as bk  # noqa: E402
from cutlass_gemm.ops import blockwise as bops  # noqa: E402
from cutlass_gemm.quant.blockwise import quantize_weight_block2d  # noqa: E402
from probe_interleave import FP8, batch_us  # noqa: E402


def main(rounds, shapes, names):
    print(f"{torch.cuda.get_device_name()}, torch {torch.__version__}")
    print("| M x N x K | kernel | us | speed vs first (median of rounds) | min / max |")
    print("|---|---|---|---|---|")
    for m, n, k in shapes:
        g = torch.Generator(device="cuda").manual_seed(0)
        x = torch.randn(m, k, device="cuda", generator=g).bfloat16()
        copies = max(2, -(-3 * 50 * 2**20 // (n * k)))
        blk = [quantize_weight_block2d(torch.randn(n, k, device="cuda", generator=g).bfloat16() * 0.05)
               for _ in range(copies)]
        bias = torch.randn(n, device="cuda", generator=g).bfloat16()
        major = "mn" if m % 4 == 0 else "k"
        a8, sa = cutlass_gemm.quantize_per_group(x, 128, FP8, column_major_scale=major == "mn")
        i = [0]

        def blockwise():
            q = blk[i[0] % copies]
            i[0] += 1
            return cutlass_gemm.scaled_mm_blockwise(a8, q.q.t(), sa, q.scale, bias)
        cfgs = [bk.BlockwiseConfig.from_name(nm).replace(sfa_major=major) for nm in names]
        batch = max(3, min(50, int(2e4 / (2 * m * n * k / 1.2e12 * 1e6))))
        us = [[] for _ in cfgs]
        for rnd in range(rounds + 1):  # round 0 warms up
            for j, cfg in enumerate(cfgs):
                with mock.patch.object(bops, "select_config", lambda *a, cfg=cfg, **kw: cfg):
                    bops._plans.clear()
                    t = batch_us(blockwise, batch)
                bops._plans.clear()
                if rnd:
                    us[j].append(t)
        for j, cfg in enumerate(cfgs):
            r = [a / b for a, b in zip(us[0], us[j])]
            print(f"| {m} x {n} x {k} | {cfg.name} | {statistics.median(us[j]):.2f} | {statistics.median(r):.3f} | "
                  f"{min(r):.3f} / {max(r):.3f} |", flush=True)


if __name__ == "__main__":
    main(int(sys.argv[1]), [tuple(int(v) for v in s.split("x")) for s in sys.argv[2].split(",")], sys.argv[3:])
