"""Session 15 call 2: the block-scaled decode GEMV's launch rule (gemv_w8a8.cu choose_block_warps / block_unroll,
from call 1) against forced settings, one process; M = 9..16 with 4 chunks per step as well. For per-block int8 (B = 128 and
64) and blockwise fp8 at M = 1, 4, 8, 16 on the decode shapes: device time with 2 or 4 chunks per step (M <= 8)
and 4 / 8 / 16 warps per CTA or the automatic choice; % of the bandwidth floor ((weight + weight scales +
activation + activation scales + output) bytes at the measured 1 GiB copy rate); every setting's output equal to
the automatic one's (the same blocks folded in the same order within a warp; the warp count changes the order of
the final sum, so those are compared to float64 instead, relative Frobenius error)."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[4]))  # tools/
import torch  # noqa: E402

from bench_common import copies_for, copy_bandwidth_gbps, gpu_time_us  # noqa: E402
from cutlass_gemm.runtime import extension  # noqa: E402

ext = extension.load()
bw = copy_bandwidth_gbps()
print(f"{torch.cuda.get_device_name()} copy {bw:.0f} GB/s")
SHAPES = [(8192, 8192), (4096, 14336), (28672, 4096), (7168, 2048), (4096, 4096)]
print("| kind | M | N | K | unroll | warps | us | % floor | rel err |")
print("|---|---|---|---|---|---|---|---|---|")
for kind, block in (("int8", 128), ("int8", 64), ("fp8", 128)):
    for n, k in SHAPES:
        g = torch.Generator(device="cuda").manual_seed(n + k)
        nb, kb = (n if kind == "int8" else -(-n // 128)), k // block
        copies = copies_for(n * k)
        if kind == "int8":
            ws = [torch.randint(-127, 128, (n, k), device="cuda", dtype=torch.int8, generator=g) for _ in range(copies)]
        else:
            ws = [(torch.randn(n, k, device="cuda", generator=g) * 50).to(torch.float8_e4m3fn) for _ in range(copies)]
        sbs = [torch.rand(nb, kb, device="cuda", generator=g) * 1e-3 + 1e-4 for _ in range(copies)]
        shift = 0 if kind == "int8" else 7
        for m in (1, 8, 12, 16):
            if kind == "int8":
                a = torch.randint(-127, 128, (m, k), device="cuda", dtype=torch.int8, generator=g)
            else:
                a = (torch.randn(m, k, device="cuda", generator=g) * 50).to(torch.float8_e4m3fn)
            sa = torch.rand(m, kb, device="cuda", generator=g) * 1e-2
            ref = torch.zeros(m, n, dtype=torch.float64, device="cuda")
            sbx = sbs[0] if kind == "int8" else sbs[0].repeat_interleave(128, 0)[:n]
            for b in range(kb):
                sl = slice(b * block, (b + 1) * block)
                ref += (a[:, sl].double() @ ws[0][:, sl].double().t()) * sa[:, b:b + 1].double() * sbx[:, b].double()[None]
            floor_us = (n * k + nb * kb * 4 + m * k + m * kb * 4 + 2 * m * n) / bw / 1e3
            ext.gemv_block_set_unroll(0)
            ext.gemv_w8a8_set_warps_k(0)
            rule_warps, _, _, rule_unroll = ext.gemv_w8a8_plan(m, n, k, block)
            base = ext.block_gemv(a, ws[0], sa, sbs[0], None, torch.bfloat16, block, shift, 0)
            settings = [(0, 0)] + [(u, w) for u in ((4,) if m <= 8 else (2, 4)) for w in (4, 8, 16)]
            for unroll, warps in settings:
                ext.gemv_block_set_unroll(unroll)
                ext.gemv_w8a8_set_warps_k(warps)
                y = ext.block_gemv(a, ws[0], sa, sbs[0], None, torch.bfloat16, block, shift, 0)
                err = float((y.double() - ref).norm() / ref.norm())
                if warps == rule_warps and not torch.equal(y, base):
                    err = float("nan")  # flagged: the step depth changed the bits
                it = [0]

                def call():
                    it[0] = (it[0] + 1) % copies
                    return ext.block_gemv(a, ws[it[0]], sa, sbs[it[0]], None, torch.bfloat16, block, shift, 0)
                us = gpu_time_us(call)
                label_u = unroll or f"rule ({rule_unroll})"
                label_w = warps or f"rule ({rule_warps})"
                print(f"| {kind} B{block} | {m} | {n} | {k} | {label_u} | {label_w} | {us:.2f} | "
                      f"{100 * floor_us / us:.1f}% | {err:.1e} |", flush=True)
            ext.gemv_block_set_unroll(0)
            ext.gemv_w8a8_set_warps_k(0)
        del ws, sbs
        torch.cuda.empty_cache()
