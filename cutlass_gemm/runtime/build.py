"""Compile generated kernels with nvcc into shared libraries, and keep them in a disk cache.

Each library holds one kernel and its C-ABI launcher and links only the static CUDA runtime: it
includes no torch headers and needs no libcuda at link time (CUTLASS reaches the driver through
cudaGetDriverEntryPoint), so it builds on any machine with nvcc, CI included.

The cache is safe for concurrent processes: a per-entry file lock, a re-check after taking it, a
build in a private temporary directory and an atomic rename into place.
"""
from __future__ import annotations

import functools
import json
import logging
import os
import re
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Optional, Tuple

from filelock import FileLock

from ..kernels.config import GENERATOR_VERSION, KernelConfig
from ..errors import BuildError

log = logging.getLogger("cutlass_gemm")

CACHE_ENV = "CUTLASS_GEMM_CACHE_DIR"

BASE_FLAGS: Tuple[str, ...] = (
    "-std=c++17", "-O3", "-DNDEBUG", "--expt-relaxed-constexpr", "-shared", "-cudart=static",
    "-Xcompiler=-fPIC,-fvisibility=hidden",
)


def arch_flags(sm: int) -> Tuple[str, ...]:
    # wgmma/TMA kernels need the arch-specific sm_90a target; older kernels also embed PTX so that
    # newer GPUs can JIT them.
    if sm == 90:
        return ("-gencode=arch=compute_90a,code=sm_90a",)
    return (f"-gencode=arch=compute_{sm},code=[sm_{sm},compute_{sm}]",)


def compile_flags(sm: int) -> Tuple[str, ...]:
    return BASE_FLAGS + arch_flags(sm)


def cache_root() -> Path:
    env = os.environ.get(CACHE_ENV)
    if env:
        return Path(env).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "cutlass_gemm"


def find_nvcc() -> Optional[str]:
    cuda_home = os.environ.get("CUDA_HOME") or os.environ.get("CUDA_PATH")
    if cuda_home and os.path.exists(os.path.join(cuda_home, "bin", "nvcc")):
        return os.path.join(cuda_home, "bin", "nvcc")
    found = shutil.which("nvcc")
    if found:
        return found
    return "/usr/local/cuda/bin/nvcc" if os.path.exists("/usr/local/cuda/bin/nvcc") else None


@functools.lru_cache(maxsize=None)
def nvcc_version(nvcc: Optional[str] = None) -> Optional[str]:
    nvcc = nvcc or find_nvcc()
    if not nvcc:
        return None
    out = subprocess.run([nvcc, "--version"], capture_output=True, text=True).stdout
    m = re.search(r"release (\d+\.\d+), V([\d.]+)", out)
    return m.group(2) if m else None


@functools.lru_cache(maxsize=None)
def _cutlass_version() -> str:
    from importlib.metadata import PackageNotFoundError, version
    try:
        return version("nvidia-cutlass")
    except PackageNotFoundError:  # a run-only install with prebuilt kernels
        return "none"


@dataclass(frozen=True)
class CacheEntry:
    config: KernelConfig
    key: str
    path: Path

    @property
    def lock_path(self) -> Path:
        return self.path.with_suffix(".lock")


def cache_entry(cfg: KernelConfig, nvcc_ver: Optional[str] = None) -> CacheEntry:
    nvcc_ver = nvcc_ver or nvcc_version() or "none"
    key = cfg.cache_key(cutlass_version=_cutlass_version(), nvcc_version=nvcc_ver, flags=compile_flags(cfg.sm))
    return CacheEntry(cfg, key, cache_root() / f"sm{cfg.sm}" / f"{cfg.name}-{key}.so")


def lookup(cfg: KernelConfig) -> Optional[Path]:
    """The cached library for `cfg` built by this toolchain; without nvcc, any cached build of it."""
    entry = cache_entry(cfg)
    if entry.path.exists():
        return entry.path
    if nvcc_version() is None or _cutlass_version() == "none":  # cannot build: any build of it will do
        found = sorted((cache_root() / f"sm{cfg.sm}").glob(f"{cfg.name}-*.so"))
        if found:
            return found[-1]
    return None


def compile_source(source_path: Path, out_path: Path, sm: int, *, nvcc: Optional[str] = None) -> float:
    """nvcc source -> shared library at out_path (written atomically). Returns seconds taken."""
    from ..kernels.emit import cutlass_include_dirs
    nvcc = nvcc or find_nvcc()
    if not nvcc:
        raise BuildError("nvcc not found: install the CUDA toolkit or set CUDA_HOME")
    out_path.parent.mkdir(parents=True, exist_ok=True)
    tmp_dir = Path(tempfile.mkdtemp(prefix=".build-", dir=out_path.parent))
    try:
        tmp_out = tmp_dir / out_path.name
        cmd = [nvcc, *compile_flags(sm), *[f"-I{d}" for d in cutlass_include_dirs()],
               str(source_path), "-o", str(tmp_out)]
        t0 = time.perf_counter()
        proc = subprocess.run(cmd, capture_output=True, text=True, cwd=tmp_dir)
        elapsed = time.perf_counter() - t0
        if proc.returncode != 0:
            raise BuildError(f"nvcc failed ({proc.returncode}) for {source_path.name}:\n"
                             f"{' '.join(cmd)}\n{proc.stderr[-6000:]}")
        os.replace(tmp_out, out_path)
        return elapsed
    finally:
        shutil.rmtree(tmp_dir, ignore_errors=True)


def build(cfg: KernelConfig, source: Optional[str] = None) -> Tuple[Path, float]:
    """Make sure `cfg` is in the cache and return (path, build seconds; 0.0 when it was cached).

    `source` is the emitted .cu text; when None it is emitted now (needs nvidia-cutlass)."""
    entry = cache_entry(cfg)
    if entry.path.exists():
        return entry.path, 0.0
    entry.path.parent.mkdir(parents=True, exist_ok=True)
    with FileLock(str(entry.lock_path)):
        if entry.path.exists():  # another process built it while we waited
            return entry.path, 0.0
        if source is None:
            from ..kernels.emit import emit_source
            source = emit_source(cfg)
        src_dir = Path(tempfile.mkdtemp(prefix=".src-", dir=entry.path.parent))
        try:
            src = src_dir / f"{cfg.name}.cu"
            src.write_text(source)
            log.info("cutlass_gemm: compiling %s", cfg.name)
            elapsed = compile_source(src, entry.path, cfg.sm)
        finally:
            shutil.rmtree(src_dir, ignore_errors=True)
        meta = {"config": cfg.to_dict(), "key": entry.key, "generator": GENERATOR_VERSION,
                "nvcc": nvcc_version(), "flags": list(compile_flags(cfg.sm)), "compile_seconds": round(elapsed, 1)}
        _atomic_write(entry.path.with_suffix(".json"), json.dumps(meta, indent=1, sort_keys=True))
        log.info("cutlass_gemm: compiled %s in %.1f s", cfg.name, elapsed)
        return entry.path, elapsed


def _atomic_write(path: Path, text: str) -> None:
    fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=path.parent)
    with os.fdopen(fd, "w") as f:
        f.write(text)
    os.replace(tmp, path)
