#!/usr/bin/env python3
"""Session 13: host cost of the public cuBLASLt path now that it calls nvmath-python's bindings (session 12 measured
45.3 / 50.5 us per `cublaslt.int8_matmul` through the ctypes prototypes, `session12/call12/`). One process, back-to-back
calls (wall time per call, median of 5 reps of 1000): this tree's `int8_matmul` (nvmath), the same function of commit
3690e52's package (ctypes prototypes; `git archive 3690e52 cutlass_gemm/cublaslt` renamed to the top-level package
`cublaslt_ctypes` under OLD_DIR, carried as devtmp/oldlt), and `torch._int_mm`; outputs checked equal first.

  python bench_lt.py OUT OLD_DIR
"""
import json
import sys
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parents[5]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tools"))

from bench_common import gpu_time_us, stamp, wall_time_us  # noqa: E402
from cutlass_gemm.cublaslt import _lib, int8_matmul  # noqa: E402

sys.path.insert(0, sys.argv[2])
import cublaslt_ctypes  # noqa: E402


def main() -> int:
    out = Path(sys.argv[1])
    rows = {**stamp(), "cublaslt": _lib.version(), "library": _lib.library_path(), "shapes": {}}
    for m, n, k in ((32, 256, 256), (32, 4096, 4096)):
        g = torch.Generator(device="cuda").manual_seed(0)
        a = torch.randint(-128, 128, (m, k), dtype=torch.int8, device="cuda", generator=g)
        b = torch.randint(-128, 128, (n, k), dtype=torch.int8, device="cuda", generator=g)
        assert torch.equal(int8_matmul(a, b), torch._int_mm(a, b.t())), "outputs differ"
        assert torch.equal(cublaslt_ctypes.int8_matmul(a, b), torch._int_mm(a, b.t())), "outputs differ"
        old = cublaslt_ctypes.int8_matmul
        rows["shapes"][f"{m}x{n}x{k}"] = {
            "cublaslt.int8_matmul us/call": round(wall_time_us(lambda: int8_matmul(a, b), calls=1000), 2),
            "ctypes int8_matmul (old) us/call": round(wall_time_us(lambda: old(a, b), calls=1000), 2),
            "cublaslt.int8_matmul us/call, again": round(wall_time_us(lambda: int8_matmul(a, b), calls=1000), 2),
            "torch._int_mm us/call": round(wall_time_us(lambda: torch._int_mm(a, b.t()), calls=1000), 2),
            "cublaslt.int8_matmul GPU us": round(gpu_time_us(lambda: int8_matmul(a, b)), 2),
        }
    # where the public call spends its host time (cProfile of 2000 calls at the small shape)
    import cProfile
    import io
    import pstats
    a = torch.randint(-128, 128, (32, 256), dtype=torch.int8, device="cuda")
    b = torch.randint(-128, 128, (256, 256), dtype=torch.int8, device="cuda")
    prof = cProfile.Profile()
    prof.enable()
    for _ in range(2000):
        int8_matmul(a, b)
    prof.disable()
    torch.cuda.synchronize()
    buf = io.StringIO()
    pstats.Stats(prof, stream=buf).sort_stats("tottime").print_stats(25)
    (out / "bench_lt_profile.txt").write_text(buf.getvalue())
    text = json.dumps(rows, indent=1)
    print(text)
    (out / "bench_lt.json").write_text(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
