"""Session 15 call 6: the plain W8A8 decode GEMV (per-token x per-channel scales, `scaled_mm` at M <= 16) at M 9..16
with 4 chunks per step (the depth that helped the block-scaled form, call 2) against its rule (2 chunks), x 4 / 8 / 16
warps or the automatic choice; int8 and e4m3, device time through the op (weights rotated beyond L2), % of the
bandwidth floor at the measured 1 GiB copy rate (e4m3 at M 9..16 with N > 4096 forced onto the GEMV, which the shipped
heuristics leave to the CUTLASS tile); outputs compared bit for bit with the rule's where the warps match
(the step depth does not change the order of the sums), else to float64 (relative Frobenius error)."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[4]))  # tools/
import torch  # noqa: E402

import cutlass_gemm  # noqa: E402
from bench_common import copies_for, copy_bandwidth_gbps, gpu_time_us  # noqa: E402
from cutlass_gemm.runtime import extension  # noqa: E402

from cutlass_gemm.kernels import heuristics  # noqa: E402

# every M <= 16 call of both types to the GEMV (the shipped rows leave e4m3 at M 9..16 and N > 4096 to the CUTLASS
# tile), so that each row below times the GEMV; patched before the first call plans anything
heuristics.GEMV[90] = [heuristics.GemvRow(16, ("int8", "e4m3"))]
ext = extension.load()
bw = copy_bandwidth_gbps()
print(f"{torch.cuda.get_device_name()} copy {bw:.0f} GB/s")
print("| type | M | N | K | unroll | warps | us | % floor | check |")
print("|---|---|---|---|---|---|---|---|---|")
for dt in (torch.int8, torch.float8_e4m3fn):
    for n, k in ((8192, 8192), (4096, 14336), (28672, 4096), (4096, 4096), (14336, 4096)):
        g = torch.Generator(device="cuda").manual_seed(n + k)
        copies = copies_for(n * k)
        if dt == torch.int8:
            ws = [torch.randint(-127, 128, (n, k), device="cuda", dtype=dt, generator=g) for _ in range(copies)]
        else:
            ws = [(torch.randn(n, k, device="cuda", generator=g) * 50).to(dt) for _ in range(copies)]
        sb = torch.rand(1, n, device="cuda", generator=g) * 1e-3
        for m in (12, 16):
            a = (torch.randint(-127, 128, (m, k), device="cuda", dtype=torch.int8, generator=g) if dt == torch.int8
                 else (torch.randn(m, k, device="cuda", generator=g) * 50).to(dt))
            sa = torch.rand(m, 1, device="cuda", generator=g) * 1e-2
            ref = (a.double() @ ws[0].double().t()) * sa.double() * sb.double()
            floor_us = (n * k + m * k + 2 * m * n + 4 * (m + n)) / bw / 1e3
            ext.gemv_w8a8_set_unroll(0)
            ext.gemv_w8a8_set_warps_k(0)
            rule_warps = ext.gemv_w8a8_plan(m, n, k)[0]
            base = cutlass_gemm.scaled_mm(a, ws[0].t(), sa, sb, torch.bfloat16)
            for unroll in (0, 4):
                for warps in (0, 4, 8, 16):
                    ext.gemv_w8a8_set_unroll(unroll)
                    ext.gemv_w8a8_set_warps_k(warps)
                    used_w, _, _, used_u = ext.gemv_w8a8_plan(m, n, k)
                    y = cutlass_gemm.scaled_mm(a, ws[0].t(), sa, sb, torch.bfloat16)
                    check = f"{float((y.double() - ref).norm() / ref.norm()):.1e}"
                    if used_w == rule_warps:
                        check += " same bits" if torch.equal(y, base) else " BITS DIFFER"
                    it = [0]

                    def call():
                        it[0] = (it[0] + 1) % copies
                        return cutlass_gemm.scaled_mm(a, ws[it[0]].t(), sa, sb, torch.bfloat16)
                    us = gpu_time_us(call)
                    print(f"| {str(dt)[6:]} | {m} | {n} | {k} | {used_u}{' (rule)' if not unroll else ''} | "
                          f"{used_w}{' (auto)' if not warps else ''} | {us:.2f} | {100 * floor_us / us:.1f}% | {check} |",
                          flush=True)
            ext.gemv_w8a8_set_unroll(0)
            ext.gemv_w8a8_set_warps_k(0)
        del ws
        torch.cuda.empty_cache()
