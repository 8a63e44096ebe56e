"""Optional C++ fast path for eager calls (csrc/fast_path.cpp), built once per torch version.

It checks, plans and launches the common valid call in C++ (about 1 us of Python instead of ~10);
everything else falls through to the Python implementation. Built with torch.utils.cpp_extension on
first CUDA use into the kernel cache (announced on stderr, ~1 minute), then imported directly.
CUTLASS_GEMM_FAST_PATH=0 turns it off; a failed build turns it off with one warning.
"""
from __future__ import annotations

import hashlib
import importlib.util
import os
import sys
import warnings
from pathlib import Path
from typing import Optional

from . import build

FAST_PATH_ENV = "CUTLASS_GEMM_FAST_PATH"
SOURCE = Path(__file__).resolve().parent / "csrc" / "fast_path.cpp"
VARIANT_CODES = {"scaled": 0, "scaled_bias": 1, "scaled_azp": 2, "scaled_azp_per_token": 3}

_module = None
_tried = False


def _names():
    import torch
    digest = hashlib.sha256(SOURCE.read_bytes() + torch.__version__.encode()).hexdigest()[:12]
    name = f"cutlass_gemm_fast_{digest}"
    return name, build.cache_root() / "ext" / name


def _import_built(name: str, directory: Path):
    for candidate in sorted(directory.glob(f"{name}*.so")):
        spec = importlib.util.spec_from_file_location(name, candidate)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module
    return None


def load(build_if_missing: bool = True):
    """The compiled module, or None (disabled, no CUDA torch, or the build failed)."""
    global _module, _tried
    if _tried:
        return _module
    _tried = True
    if os.environ.get(FAST_PATH_ENV, "1") in ("0", "false", "no", "off"):
        return None
    import torch
    if not torch.cuda.is_available() or torch.version.cuda is None:
        return None
    name, directory = _names()
    try:
        _module = _import_built(name, directory)
        if _module is None and build_if_missing:
            from filelock import FileLock
            from torch.utils.cpp_extension import load as cpp_load
            directory.mkdir(parents=True, exist_ok=True)
            with FileLock(str(directory) + ".lock"):
                _module = _import_built(name, directory)
                if _module is None:
                    print("cutlass_gemm: building the C++ fast path (once per torch version)...",
                          file=sys.stderr, flush=True)
                    _module = cpp_load(name=name, sources=[str(SOURCE)], build_directory=str(directory),
                                       extra_cflags=["-O3"], with_cuda=True, verbose=False)
    except Exception as exc:  # the Python path still serves every call
        warnings.warn(f"cutlass_gemm: C++ fast path unavailable, using the Python path ({exc})")
        _module = None
    return _module


def module() -> Optional[object]:
    return _module if _tried else load()
