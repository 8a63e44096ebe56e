#!/usr/bin/env python3
"""What every call on a lent GPU machine does before its work, in one place: empty the caches for a new user's start,
install the carried wheels, and record the machine.

  python tools/device_setup.py OUT [--fresh] [--state DIR]      # prints `export PYTHONPATH=...` for a shell: eval it

The device machines have torch but no internet: the wheels the library needs beyond torch (nvidia-cutlass, and what
the tests import) travel in the ignored `.whl/` folder (the device tool's `carry`) and are installed into /tmp with
pip --no-index --no-deps, one by one so that a wheel for another Python is skipped, not fatal. `--fresh` empties the
kernel cache (CUTLASS_GEMM_CACHE_DIR or its default), torch's inductor cache and the suite's state folder: what a
new user meets. OUT/machine.txt records the GPUs, cores, memory, torch, nvcc, transformers / torchvision and the
commit. tools/gpu_suite.py (--fresh, --wheels) and tools/gpu_session.sh use it; until session 60 each session's
suite.sh carried its own copy of these steps.
"""
from __future__ import annotations

import argparse
import importlib.util
import os
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path
from typing import List, Optional

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
WHEELS = ROOT / ".whl"
SITE = Path("/tmp/cutlass_gemm_site")


def install_wheels(wheels: Path = WHEELS, target: Path = SITE) -> List[str]:
    """Install every wheel under `wheels` into `target` unless nvidia-cutlass (`cutlass_cppgen`) already imports or an
    earlier call on this machine installed them, then put `target` first on sys.path. Returns what was skipped, one
    line per wheel pip refused (a wheel for another Python, say)."""
    skipped: List[str] = []
    if not target.is_dir() and importlib.util.find_spec("cutlass_cppgen") is None and wheels.is_dir():
        for wheel in sorted(wheels.glob("*.whl")):
            proc = subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-index", "--no-deps",
                                   "--no-compile", "--target", str(target), str(wheel)],
                                  capture_output=True, text=True)
            if proc.returncode:
                skipped.append(f"skipped {wheel.name}: {(proc.stderr.strip().splitlines() or ['?'])[-1]}")
    if target.is_dir():
        sys.path.insert(0, str(target))
        importlib.invalidate_caches()
        _pythonpath_first(target)
    return skipped


def _pythonpath_first(*paths: Path) -> None:
    """Put `paths` first on PYTHONPATH, which the processes this one starts (pytest, the extension's build) inherit."""
    kept = [p for p in os.environ.get("PYTHONPATH", "").split(":") if p]
    os.environ["PYTHONPATH"] = ":".join(dict.fromkeys([str(p) for p in paths] + kept))


def cache_root() -> Path:
    from cutlass_gemm.runtime import build
    return build.cache_root()


def inductor_caches() -> List[Path]:
    """torch's inductor caches: TORCHINDUCTOR_CACHE_DIR if set, and the default /tmp/torchinductor_<user> folders."""
    inductor = os.environ.get("TORCHINDUCTOR_CACHE_DIR")
    return ([Path(inductor)] if inductor else []) + sorted(Path("/tmp").glob("torchinductor_*"))


def fresh_start(state: Optional[Path] = None) -> List[str]:
    """Empty the kernel cache, torch's inductor caches and `state` (a suite's resume folder); returns what it
    removed. Only at the start of a device call: a process that has compiled with inductor keeps paths into its cache."""
    gone = []
    for path in [cache_root(), state, *inductor_caches()]:
        if path is not None and path.exists():
            shutil.rmtree(path, ignore_errors=True)
            gone.append(str(path))
    return gone


def cache_libraries() -> List[str]:
    """Kernel libraries in the kernel cache, as sm../NAME (the key dropped), sorted."""
    root = cache_root()
    return sorted({f"{p.parent.name}/{p.name.rsplit('-', 1)[0]}" for p in root.glob("sm*/*.so")})


def cache_line(when: str) -> str:
    """'kernel cache WHEN: N libraries, M MiB (PATH)'."""
    root = cache_root()
    files = list(root.glob("sm*/*.so")) if root.exists() else []
    mib = sum(f.stat().st_size for f in files) / 2**20
    return f"kernel cache {when}: {len(files)} libraries, {mib:.0f} MiB ({root})"


def _run(cmd: List[str]) -> str:
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT, timeout=60)
        return (proc.stdout + proc.stderr).strip()
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"{cmd[0]}: {exc}"


def _versions() -> str:
    lines = []
    try:
        import torch
        p = torch.cuda.get_device_properties(0)
        lines.append(f"torch {torch.__version__} (CUDA {torch.version.cuda}): {torch.cuda.device_count()} x {p.name}, "
                     f"{p.multi_processor_count} SMs, {getattr(p, 'L2_cache_size', 0) >> 20} MiB L2")
    except Exception as exc:  # no GPU, or no CUDA build: said, not fatal
        lines.append(f"torch: {exc!r}")
    # installed versions without importing: importing cutlass_cppgen would write its compiled_cache.db into the
    # working folder (kernels/emit.py redirects it; this script does not need it)
    from importlib import metadata
    for name in ("transformers", "torchvision", "nvidia-cutlass"):
        try:
            lines.append(f"{name} {metadata.version(name)}")
        except metadata.PackageNotFoundError:
            lines.append(f"{name}: not installed")
    return "\n".join(lines)


def machine_record(out: Path) -> str:
    """Write OUT/machine.txt (GPUs, cores, memory, versions, commit) and return its text."""
    mem = next((line for line in Path("/proc/meminfo").read_text().splitlines() if line.startswith("MemTotal")), "") \
        if Path("/proc/meminfo").exists() else ""
    text = "\n".join([
        _run(["nvidia-smi", "--query-gpu=index,name,memory.total,clocks.max.sm,clocks.max.mem,power.limit,"
              "driver_version", "--format=csv"]),
        f"cores {os.cpu_count()}, {mem}", _versions(), _run(["nvcc", "--version"]).splitlines()[-1],
        "git " + _run(["git", "log", "--oneline", "-1"])]) + "\n"
    out.mkdir(parents=True, exist_ok=True)
    (out / "machine.txt").write_text(text)
    return text


def pack_logs(out: Path, name: str = "logs.tgz") -> int:
    """Move OUT's *.log files and kernels_loaded.txt into OUT/NAME (the device tool returns few files well);
    returns how many were packed."""
    files = sorted(out.glob("*.log")) + [p for p in [out / "kernels_loaded.txt"] if p.exists()]
    if not files:
        return 0
    with tarfile.open(out / name, "w:gz") as tar:
        for f in files:
            tar.add(f, arcname=f.name)
    for f in files:
        f.unlink()
    return len(files)


def setup(out: Path, fresh: bool = False, state: Optional[Path] = None, wheels: Path = WHEELS) -> List[str]:
    """fresh_start (if asked), install_wheels, machine_record and the cache line; returns the lines to report."""
    lines = [f"fresh start: removed {', '.join(fresh_start(state)) or 'nothing'}"] if fresh else []
    _pythonpath_first(ROOT)  # the tests import the package from the checkout (it is not pip-installed there)
    lines += install_wheels(wheels)
    machine_record(out)
    lines.append(cache_line("before"))
    return lines


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out", type=Path)
    ap.add_argument("--fresh", action="store_true", help="empty the kernel, inductor and --state caches first")
    ap.add_argument("--state", type=Path, default=None)
    ap.add_argument("--wheels", type=Path, default=WHEELS)
    args = ap.parse_args(argv)
    for line in setup(args.out, args.fresh, args.state, args.wheels):
        print(line, file=sys.stderr)
    print(f"export PYTHONPATH={os.environ.get('PYTHONPATH', str(ROOT))}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
