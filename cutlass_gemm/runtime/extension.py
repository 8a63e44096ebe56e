"""The library's compiled torch extension: the C++ eager fast path of the GEMM ops, the
activation-quantization CUDA kernels, the weight-only small-M GEMM, the per-block int8 GEMM and the W8A8 decode GEMV (csrc/). Built once per (sources, torch, CUDA, GPU archs) with
torch.utils.cpp_extension into the kernel cache, under a file lock, then imported directly.

`load()` returns the module, or None where it cannot exist (no CUDA torch) or its build failed (one
warning; the ops then fall back to their torch reference implementations, slower but correct).
Prebuild it with `python tools/generate_kernels.py --extension` on a GPU machine. With
CUTLASS_GEMM_JIT=0 it is never built on first use.
"""
from __future__ import annotations

import hashlib
import importlib.util
import sys
import threading
from pathlib import Path
from typing import List, Optional

from ..errors import warn_user
from . import build

CSRC = Path(__file__).resolve().parent / "csrc"
# The quantization kernels of each input type compile in a unit of their own (quant_inst_*.cu): ninja builds
# the units in parallel, and one unit holding them all was the build's longest step.
SOURCES = ("fast_path.cpp", "quant_ops.cu", "quant_inst_float.cu", "quant_inst_half.cu", "quant_inst_bf16.cu",
           "wo_ops.cu", "wo_conv_ops.cu", "bi8_ops.cu", "gemv_w8a8.cu", "wo_mixed_fast.cpp", "conv_fast.cpp", "w8a8_fast.cpp",
           "pad_rows.cu")
#: Everything whose text changes the binary (the sources and the headers they include).
HASHED = SOURCES + ("quant_common.cuh", "quant_launch.cuh", "quant_ops.h", "quant_rows.cuh", "quant_tensor.cuh",
                     "wo_common.cuh", "wo_dequant.cuh", "wo_gemm.cuh", "wo_launch.cuh", "wo_ops.h", "wo_spread.h",
                     "wo_stream.cuh", "wo_warp.cuh", "wo_direct.cuh", "bi8_gemm.cuh", "bi8_launch.cuh", "bi8_ops.h", "ext_msg.h", "gemv_w8a8.cuh", "gemv_w8a8.h",
                     "wo_mixed_fast.h", "conv_fast.h", "pdl.cuh", "gemm_plans.h", "w8a8_fast.h", "alloc.h", "wo_conv.cuh", "wo_run.h", "wo_kernel.h", "wo_conv_rows.cuh", "pad_rows.h")

_module = None
_tried = False
_lock = threading.Lock()


def _archs() -> List[str]:
    """sm_XY of every visible GPU (the extension is built for exactly these; they key its name)."""
    import torch
    caps = sorted({torch.cuda.get_device_capability(i) for i in range(torch.cuda.device_count())})
    return [f"{major}{minor}" for major, minor in caps]


def _arch_flags(archs: List[str]) -> List[str]:
    # sm_90 (not 90a): the quant kernels use no Hopper-only instructions; PTX of the newest for JIT.
    flags = [f"-gencode=arch=compute_{a},code=sm_{a}" for a in archs]
    if archs:
        flags.append(f"-gencode=arch=compute_{archs[-1]},code=compute_{archs[-1]}")
    return flags


def name_and_dir():
    """(module name, build folder): the name hashes the sources, torch, CUDA and the GPU archs."""
    import torch
    h = hashlib.sha256()
    for f in HASHED:
        h.update((CSRC / f).read_bytes())
    h.update(f"{torch.__version__}|{torch.version.cuda}|{','.join(_archs())}".encode())
    name = f"cutlass_gemm_ext_{h.hexdigest()[:12]}"
    return name, build.cache_root() / "ext" / name


def _import_built(name: str, directory: Path):
    for candidate in sorted(directory.glob(f"{name}*.so")):
        spec = importlib.util.spec_from_file_location(name, candidate)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module
    return None


def build_extension(verbose: bool = False):
    """Build (if needed) and import the extension; raises on failure. Needs CUDA torch and nvcc."""
    import torch
    from filelock import FileLock
    from torch.utils.cpp_extension import load as cpp_load
    if not torch.cuda.is_available() or torch.version.cuda is None:
        raise RuntimeError("the cutlass_gemm extension needs a CUDA build of torch and a visible GPU")
    name, directory = name_and_dir()
    module = _import_built(name, directory)
    if module is not None:
        return module
    directory.mkdir(parents=True, exist_ok=True)
    with FileLock(str(directory) + ".lock"):
        module = _import_built(name, directory)  # another process built it while we waited
        if module is None:
            from .loader import JIT_ENV, jit_enabled
            if not jit_enabled():
                raise RuntimeError(f"it is not built and {JIT_ENV}=0 forbids building it now")
            print("cutlass_gemm: building the torch extension (fast path + quantization kernels; once per "
                  "torch version and GPU architecture, one to two minutes)...", file=sys.stderr, flush=True)
            module = cpp_load(name=name, sources=[str(CSRC / s) for s in SOURCES], build_directory=str(directory),
                              extra_cflags=["-O3"], extra_cuda_cflags=["-O3", "-std=c++17"] + _arch_flags(_archs()),
                              with_cuda=True, verbose=verbose)
    return module


def load() -> Optional[object]:
    """The extension module, built on first use; None where CUDA torch is absent or the build failed."""
    global _module, _tried
    if _tried:
        return _module
    with _lock:
        if _tried:
            return _module
        try:
            import torch
            if torch.cuda.is_available() and torch.version.cuda is not None:
                _module = build_extension()
        except Exception as exc:  # the torch reference paths still serve every call
            warn_user(f"cutlass_gemm: torch extension unavailable ({exc}); quantization runs the slower "
                      f"torch reference and GEMM calls take the Python path")
            _module = None
        _tried = True
    return _module
