#!/usr/bin/env python3
"""Session 13: a bulk build on one machine, split build against single nvcc runs. The same 32 SM90 kernels (every
4th of the sorted default set): commit 059754b's sources (OLD_DIR, from `git show 059754b:generated/sm90/NAME.cu`,
written by old_sources.sh, carried as devtmp/old_src) compiled as single nvcc runs with 16 at a time, against this tree's sources
(generated/sm90) built by runtime/nvcc.compile_in (two processes per kernel) with 16 and with 8 kernels at a time.
No cache, nothing loaded: wall time of each whole set. Order: split x16, single x16, split x8.

  python bulk.py OUT OLD_DIR
"""
import json
import os
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[5]
sys.path.insert(0, str(ROOT))

from cutlass_gemm.kernels.emit import cutlass_include_dirs  # noqa: E402
from cutlass_gemm.runtime import nvcc  # noqa: E402


def single(src: Path, work: Path) -> None:
    work.mkdir(parents=True, exist_ok=True)
    (work / "kernel.cu").write_text(src.read_text())
    exe = nvcc.find_nvcc()
    cmd = [exe, *nvcc.compile_flags(90), *[f"-I{d}" for d in cutlass_include_dirs()], *nvcc.rpath_flags(exe),
           "kernel.cu", "-o", "kernel.so"]
    subprocess.run(cmd, cwd=work, check=True, capture_output=True, env=dict(os.environ, TMPDIR=str(work)))


def split(src: Path, work: Path) -> None:
    work.mkdir(parents=True, exist_ok=True)
    nvcc.compile_in(work, src.read_text(), nvcc.compile_flags(90), cutlass_include_dirs(), nvcc.find_nvcc(),
                    src.name, 1800)


def run(label: str, fn, sources, jobs: int, base: Path) -> float:
    t0 = time.perf_counter()
    with ThreadPoolExecutor(jobs) as pool:
        list(pool.map(lambda s: fn(s, base / label / s.stem), sources))
    seconds = time.perf_counter() - t0
    print(f"{label}: {len(sources)} kernels in {seconds:.1f} s", flush=True)
    return seconds


def main() -> int:
    out, old_dir = Path(sys.argv[1]), Path(sys.argv[2])
    old = sorted(old_dir.glob("*.cu"))
    new = [ROOT / "generated" / "sm90" / p.name for p in old]
    base = Path("/tmp/s13_bulk")
    rows = {"nproc": os.cpu_count(), "kernels": [p.stem for p in old]}
    rows["split_jobs16_s"] = round(run("split16", split, new, 16, base), 1)
    rows["single_jobs16_s"] = round(run("single16", single, old, 16, base), 1)
    rows["split_jobs8_s"] = round(run("split8", split, new, 8, base), 1)
    (out / "bulk.json").write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
