#!/usr/bin/env python3
"""Session 48 probe (call 5): the op half of mid_rule.py without host time in it. `scaled_mm_blockwise_int8` with a
row-major scale_a under the old and the new rule (mid_rule.py's docstring), each captured 20 calls at a time into a
CUDA graph (bench_common.graph_time_us; the rule is read at capture, so its copy and kernel are in the graph), the two
timed in turn three times; median of the three per rule. Operands from torch (no quantizer: the CUTLASS route serves
without the torch extension); old and new outputs compared bitwise.

    python mid_rule_graph.py OUT.json
"""
import json
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from mid_rule import NEW, OLD, SHAPES, bk, under  # noqa: E402
from bench_common import graph_time_us  # noqa: E402
import torch  # noqa: E402
import cutlass_gemm  # noqa: E402


def main(out_path):
    rows = []
    for m, n, k in SHAPES:
        g = torch.Generator(device="cuda").manual_seed(m + n + k)
        a = torch.randint(-127, 128, (m, k), device="cuda", dtype=torch.int8, generator=g)
        b = torch.randint(-127, 128, (n, k), device="cuda", dtype=torch.int8, generator=g)
        sa = torch.rand(m, k // 128, device="cuda", generator=g) * 1e-2 + 1e-3
        sb = torch.rand(n, k // 128, device="cuda", generator=g) * 1e-2 + 1e-3
        op = lambda: cutlass_gemm.scaled_mm_blockwise_int8(a, b, sa, sb)  # noqa: E731
        equal = bool(torch.equal(under(OLD, op)(), under(NEW, op)()))
        t = {"old": [], "new": []}
        for _ in range(3):
            for name, rule in (("old", OLD), ("new", NEW)):
                bk.SELECTION_S8, bk.SFA_MN_MIN_M_S8 = rule  # held through capture: the graph keeps the rule's calls
                try:
                    t[name].append(graph_time_us(op))
                finally:
                    bk.SELECTION_S8, bk.SFA_MN_MIN_M_S8 = NEW
        old, new = statistics.median(t["old"]), statistics.median(t["new"])
        rows.append(dict(m=m, n=n, k=k, old_us=old, new_us=new, runs=t, bits_equal=equal))
        print(f"{m}x{n}x{k}: op in a graph {old:.1f} -> {new:.1f} us ({old / new:.3f}x), runs {t}, bits equal {equal}",
              flush=True)
    Path(out_path).write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main(sys.argv[1])
