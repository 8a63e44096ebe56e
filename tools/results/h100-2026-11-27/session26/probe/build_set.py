"""Build kernels of the scaled-GEMM family from the committed sources in generated/ (no emission), N at once:
python build_set.py JOBS [prebuilt|default] [NAME ...] (default: the 130 of heuristics.default_configs(90))."""
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from cutlass_gemm.kernels import heuristics
from cutlass_gemm.kernels.config import KernelConfig
from cutlass_gemm.runtime import build

jobs, names = int(sys.argv[1]), sys.argv[2:]
cfgs = [KernelConfig.from_name(n) for n in names if n not in ("prebuilt", "default")]
if "prebuilt" in names:
    cfgs = heuristics.prebuilt_configs(90) + cfgs
if "default" in names:
    cfgs = heuristics.default_configs(90) + [c for c in cfgs if c not in heuristics.default_configs(90)]
t0 = time.time()
with ThreadPoolExecutor(jobs) as pool:
    list(pool.map(lambda c: build.build(c, (Path(f"generated/sm{c.sm}") / f"{c.name}.cu").read_text()), cfgs))
print(f"built {len(cfgs)} kernels with {jobs} jobs in {time.time() - t0:.0f} s")
