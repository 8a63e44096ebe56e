"""Session 44 probe: persistent mixed-input (weight-only) layers launched as programmatic dependents vs plainly, timed in
alternating batches (bench_common.alternating_time_us: every function sees the same clock), each call on the next of
several copies of the layer (> 4x L2 of weight), random int4 g128 / int8 per-channel weights, bf16 F.linear beside."""
import json
import sys

import torch
import torch.nn.functional as F

sys.path.insert(0, "tools")
from bench_common import L2_BYTES, alternating_time_us, copies_for, cycler, plain_launch  # noqa: E402

from cutlass_gemm.nn import WeightOnlyLinear  # noqa: E402
from cutlass_gemm.ops import weight_only_backend  # noqa: E402

rows = []
for m, n, k in [(1024, 8192, 8192), (2048, 8192, 8192), (4096, 8192, 8192), (2048, 28672, 4096)]:
    x = torch.randn(m, k, device="cuda").bfloat16()
    lin = torch.nn.Linear(k, n, device="cuda", dtype=torch.bfloat16)
    w = lin.weight.detach()
    bf = [w] + [w.clone() for _ in range(copies_for(2 * n * k, target=4 * L2_BYTES, lo=2, hi=4) - 1)]
    base = cycler([lambda w=w: F.linear(x, w) for w in bf])
    for bits, group in ((4, 128), (8, None)):
        lay = WeightOnlyLinear.from_float(lin, bits=bits, group_size=group, large_m_backend="cutlass_mixed")
        assert weight_only_backend(m, lay.packed, lay.packed_mixed) == "cutlass_mixed_sm90"
        copies = copies_for(n * k * bits // 8, target=4 * L2_BYTES, lo=2, hi=12)
        lays = [lay] + [WeightOnlyLinear.from_float(lin, bits=bits, group_size=group, large_m_backend="cutlass_mixed")
                        for _ in range(copies - 1)]
        on = cycler([lambda l=l: l(x) for l in lays])
        off = plain_launch(on)
        t_on, t_off, t_bf = alternating_time_us([lambda: on()(), lambda: off()(), lambda: base()()])
        rows.append({"m": m, "n": n, "k": k, "bits": bits, "pdl_us": round(t_on, 2), "plain_us": round(t_off, 2),
                     "bf16_us": round(t_bf, 2), "plain_per_pdl": round(t_off / t_on, 4),
                     "x_bf16_pdl": round(t_bf / t_on, 3), "x_bf16_plain": round(t_bf / t_off, 3)})
        print(json.dumps(rows[-1]), flush=True)
        del lays, lay
        torch.cuda.empty_cache()
json.dump(rows, open(sys.argv[1], "w"), indent=1)
