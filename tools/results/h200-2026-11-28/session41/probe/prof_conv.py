"""Session 41 probe for Nsight Compute: one weight-only int4 (g128; g64 where K = 64) GEMM shape on one mma variant,
fp16 x of M rows (the pixel rows of a batch-1 1x1 conv), called 8 times; profile with
`ncu -k regex:wo_gemm --launch-skip 5 --launch-count 1 ... python3 prof_conv.py M N K VARIANT`."""
import sys
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parents[5]
sys.path[:0] = [str(ROOT)]
from cutlass_gemm.quant import prepack, quantize_weight_only  # noqa: E402
from cutlass_gemm.runtime import extension  # noqa: E402

m, n, k, v = (int(a) for a in sys.argv[1:5])
block = 128 if k % 128 == 0 else 64
ext = extension.load()
p = prepack(quantize_weight_only(torch.randn(n, k) * k ** -0.5, 4, block, zero_point=False,
                                 scale_dtype=torch.float16), device="cuda")
x = torch.randn(m, k, device="cuda").half()
print("plan (rows, bn, splits, ctas, smem, threads, cluster):", ext.wo_plan_info(m, n, k, 4, False, False, v))
for _ in range(8):
    y = ext.wo_gemm(x, p.qweight, p.scales, None, None, 4, block, n, 0, v)
torch.cuda.synchronize()
print("ok", tuple(y.shape))
