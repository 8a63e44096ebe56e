#!/usr/bin/env python3
"""Session 22: put a sweep's TABLE rows (tools/bench_wo_sweep.py's wo_table.py, M <= 16) into
cutlass_gemm/ops/wo_heuristics.py in place of the rows of the M buckets it measured, keeping the others. A probe step (it edits the
device's copy of the tree so that the benchmark after the sweep runs on the new rows); the commit carries the same rows.

    python3 apply_table.py WO_TABLE_PY
"""
import re
import sys
from pathlib import Path

path = Path(__file__).resolve().parents[5] / "cutlass_gemm" / "ops" / "wo_heuristics.py"
new = {}
exec(Path(sys.argv[1]).read_text(), new)
text = path.read_text()
head, rest = text.split("TABLE: Tuple[Tuple[int, int, Optional[int], Optional[int], int], ...] = (\n", 1)
body, tail = rest.split("\n)\n", 1)
old = [eval(line.strip().rstrip(",")) for line in body.splitlines() if line.strip().startswith("(")]
swept = {r[1] for r in new["TABLE"]}  # the M buckets the sweep measured replace the table's; the others stay
rows = [r for r in new["TABLE"] if r[1] <= 16] + [r for r in old if r[1] not in swept]
rows.sort(key=lambda r: (r[0], r[1], r[2] is None))  # per bits, increasing max_m, exact shapes first (stable)
lines = "\n".join(f"    {r!r}," for r in rows)
path.write_text(head + "TABLE: Tuple[Tuple[int, int, Optional[int], Optional[int], int], ...] = (\n" + lines + "\n)\n" + tail)
print(lines)
