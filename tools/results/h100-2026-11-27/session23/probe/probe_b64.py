"""Session 23: the block-scaled decode GEMV of the per-block int8 op at M = 16 (and M = 1), B = 64 and 128: every
(chunks per step x warps per CTA x programmatic-dependent launch x first-wave L2 prefetch) setting against the
library's rule, in one process, weights rotated beyond L2, % of the bandwidth floor as tools/bench_blockint8.py
counts it. Usage: python probe_b64.py OUT.md"""
import itertools
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[5] / "tools"))
import torch  # noqa: E402

import cutlass_gemm  # noqa: E402
from bench_common import copies_for, copy_bandwidth_gbps, gpu_time_us  # noqa: E402
from cutlass_gemm.runtime import extension  # noqa: E402

SHAPES = [(16, 8192, 8192), (16, 4096, 14336), (16, 28672, 4096), (1, 8192, 8192)]


def main(path):
    ext = extension.load()
    bw = copy_bandwidth_gbps()
    pf0 = ext.pdl_set_prefetch_bytes(-1)
    lines = [f"# block GEMV settings, {torch.cuda.get_device_name()}, copy {bw:.0f} GB/s, default prefetch {pf0} B", "",
             "| M x N x K | B | step | warps | PDL | prefetch | us | % floor | plan (warps, CTAs, threads, unroll) |",
             "|---|---|---|---|---|---|---|---|---|"]
    for (m, n, k), block in itertools.product(SHAPES, (64, 128)):
        g = torch.Generator(device="cuda").manual_seed(m + n + k + block)
        wbytes = n * k + n * (k // block) * 4
        copies = copies_for(wbytes)
        ws = [torch.randint(-127, 128, (n, k), device="cuda", dtype=torch.int8, generator=g) for _ in range(copies)]
        sbs = [torch.rand(n, k // block, device="cuda", generator=g) * 1e-3 + 1e-4 for _ in range(copies)]
        a = torch.randint(-127, 128, (m, k), device="cuda", dtype=torch.int8, generator=g)
        sa = torch.rand(m, k // block, device="cuda", generator=g) * 1e-2
        floor = (wbytes + m * k + m * (k // block) * 4 + m * n * 2) / (bw * 1e3)
        it = [0]

        def call():
            it[0] += 1
            i = it[0] % copies
            return cutlass_gemm.scaled_mm_blockwise_int8(a, ws[i], sa, sbs[i], block_size=block)

        ref = cutlass_gemm.scaled_mm_blockwise_int8(a, ws[0], sa, sbs[0], block_size=block)
        settings = [(0, 0, 1, pf0)] + [(s, w, p, pf) for s in (2, 4) for w in (4, 8, 16) for p in (1, 0)
                                      for pf in ((pf0, 0) if p else (pf0,))]
        for step, warps, pdl, pf in settings:
            ext.gemv_set_step(step)
            ext.gemv_w8a8_set_warps_k(warps)
            ext.pdl_set(pdl)
            ext.pdl_set_prefetch_bytes(pf)
            y = cutlass_gemm.scaled_mm_blockwise_int8(a, ws[0], sa, sbs[0], block_size=block)
            rel = float((y.double() - ref.double()).norm() / ref.double().norm())
            assert rel < 1e-3, (m, n, k, block, step, warps, pdl, rel)  # warps change the summation order only
            us = gpu_time_us(call)
            plan = ext.gemv_w8a8_plan(m, n, k, block)
            name = "rule" if step == 0 else ""
            lines.append(f"| {m}x{n}x{k} | {block} | {step or 'rule'} | {warps or 'rule'} | {pdl} | {pf} | {us:.2f} | "
                         f"{100 * floor / us:.1f} | {list(plan)} {name} |")
            print(lines[-1], flush=True)
        ext.gemv_set_step(0), ext.gemv_w8a8_set_warps_k(0), ext.pdl_set(1), ext.pdl_set_prefetch_bytes(pf0)
        del ws, sbs
        torch.cuda.empty_cache()
    Path(path).write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main(sys.argv[1])
