#!/usr/bin/env python3
"""Session 13: one kernel's first-use build on the device, the split build of this tree against the single nvcc
run of commit 059754b (its emitted source of the same kernel, old_*.cu here, written from git by old_sources.sh;
compiled with that commit's
command: BASE_FLAGS + -gencode + the CUTLASS includes + rpath -> kernel.so).

New: `build.build(cfg)` on an empty cache entry, i.e. emission + both passes + link + install, each kernel alone on
the machine. Old: the two single-pass compiles, one after the other, alone too. Writes one_kernel.json to OUT.

  python one_kernel.py OUT
"""
import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[4]))

from cutlass_gemm.kernels.config import KernelConfig  # noqa: E402
from cutlass_gemm.kernels.emit import cutlass_include_dirs  # noqa: E402
from cutlass_gemm.runtime import build, nvcc  # noqa: E402

KERNELS = {
    "sm90_int8_bf16_scaled_bias_token_channel_t64x64x128_c1x1x1_pingpong_s0_a16x16x8": "old_int8_t64x64.cu",
    "sm90_e4m3_bf16_scaled_bias_tensor_tensor_t256x128x128_c1x2x1_cooperative_s0_a16x16x8": "old_e4m3_t256x128.cu",
}


def old_single_pass(source: Path, work: Path) -> float:
    work.mkdir(parents=True, exist_ok=True)
    (work / "kernel.cu").write_text(source.read_text())
    exe = build.find_nvcc()
    cmd = [exe, *build.compile_flags(90), *[f"-I{d}" for d in cutlass_include_dirs()], *nvcc.rpath_flags(exe),
           "kernel.cu", "-o", "kernel.so"]
    t0 = time.perf_counter()
    subprocess.run(cmd, cwd=work, check=True, capture_output=True)
    return time.perf_counter() - t0


def main() -> int:
    out = Path(sys.argv[1])
    rows = {"cpu": platform.processor() or "", "nproc": os.cpu_count(), "nvcc": build.nvcc_version(), "kernels": {}}
    try:
        rows["cpu"] = next(l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name"))
    except (OSError, StopIteration):
        pass
    for name in KERNELS:
        cfg = KernelConfig.from_name(name)
        assert build.lookup(cfg) is None, "the cache must be empty for this kernel"
        t0 = time.perf_counter()
        path, compile_s = build.build(cfg)
        total = time.perf_counter() - t0
        rows["kernels"][name] = {"new_first_use_s": round(total, 1), "new_nvcc_s": round(compile_s, 1),
                                 "new_so_bytes": path.stat().st_size}
        print(f"{name}: split build on first use {total:.1f} s (nvcc {compile_s:.1f} s), {path.stat().st_size} B",
              flush=True)
    for name, old in KERNELS.items():
        seconds = old_single_pass(HERE / old, Path("/tmp/s13_old") / name)
        size = (Path("/tmp/s13_old") / name / "kernel.so").stat().st_size
        rows["kernels"][name].update(old_single_pass_s=round(seconds, 1), old_so_bytes=size)
        print(f"{name}: commit 059754b's single nvcc run {seconds:.1f} s, {size} B", flush=True)
    (out / "one_kernel.json").write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
