"""Minimal ctypes binding of libcublasLt: loading, the prototypes of the ~20 entry points used here, and
status checking.

Loading is lazy (first use) so that ``import cutlass_gemm.cublaslt`` works on machines with no GPU and no
libcublasLt; using it there raises :class:`CublasLtNotFoundError`.

Search order: the path in ``$CUTLASS_GEMM_CUBLASLT_LIBRARY`` if set; then
``cuda.pathfinder.load_nvidia_dynamic_lib("cublasLt")`` (already-loaded copy, the nvidia-cublas wheel that
CUDA builds of torch install, conda, the system loader, CUDA_HOME); then the plain sonames
libcublasLt.so.13 / .so.12 through the system loader.
"""
from __future__ import annotations

import ctypes
import os
import threading
from ctypes import POINTER, Structure, c_char_p, c_int, c_int64, c_size_t, c_uint64, c_void_p
from typing import Optional

from .errors import CublasLtError, CublasLtNotFoundError

__all__ = ["lib", "library_path", "is_available", "check", "MatmulAlgo", "HeuristicResult", "ENV_LIBRARY"]

ENV_LIBRARY = "CUTLASS_GEMM_CUBLASLT_LIBRARY"


class MatmulAlgo(Structure):
    """cublasLtMatmulAlgo_t: an opaque 64-byte struct (uint64_t data[8])."""

    _fields_ = [("data", ctypes.c_uint64 * 8)]


class HeuristicResult(Structure):
    """cublasLtMatmulHeuristicResult_t (96 bytes on x86-64)."""

    _fields_ = [
        ("algo", MatmulAlgo),
        ("workspaceSize", c_size_t),
        ("state", c_int),
        ("wavesCount", ctypes.c_float),
        ("reserved", c_int * 4),
    ]


_VP = c_void_p
_PVP = POINTER(c_void_p)

# name -> (restype, argtypes). Enums (cudaDataType, cublasComputeType_t, attribute enums) are C ints.
_PROTOTYPES = {
    "cublasLtCreate": (c_int, [_PVP]),
    "cublasLtDestroy": (c_int, [_VP]),
    "cublasLtGetVersion": (c_size_t, []),
    "cublasLtGetStatusName": (c_char_p, [c_int]),
    "cublasLtMatrixLayoutCreate": (c_int, [_PVP, c_int, c_uint64, c_uint64, c_int64]),
    "cublasLtMatrixLayoutDestroy": (c_int, [_VP]),
    "cublasLtMatrixLayoutSetAttribute": (c_int, [_VP, c_int, _VP, c_size_t]),
    "cublasLtMatmulDescCreate": (c_int, [_PVP, c_int, c_int]),
    "cublasLtMatmulDescDestroy": (c_int, [_VP]),
    "cublasLtMatmulDescSetAttribute": (c_int, [_VP, c_int, _VP, c_size_t]),
    "cublasLtMatrixTransformDescCreate": (c_int, [_PVP, c_int]),
    "cublasLtMatrixTransformDescDestroy": (c_int, [_VP]),
    "cublasLtMatrixTransformDescSetAttribute": (c_int, [_VP, c_int, _VP, c_size_t]),
    # handle, desc, alpha, A, Adesc, beta, B, Bdesc, C, Cdesc, stream
    "cublasLtMatrixTransform": (c_int, [_VP] * 11),
    "cublasLtMatmulPreferenceCreate": (c_int, [_PVP]),
    "cublasLtMatmulPreferenceDestroy": (c_int, [_VP]),
    "cublasLtMatmulPreferenceSetAttribute": (c_int, [_VP, c_int, _VP, c_size_t]),
    # handle, desc, Adesc, Bdesc, Cdesc, Ddesc, pref, requestedAlgoCount, results[], returnAlgoCount*
    "cublasLtMatmulAlgoGetHeuristic": (
        c_int, [_VP, _VP, _VP, _VP, _VP, _VP, _VP, c_int, POINTER(HeuristicResult), POINTER(c_int)]
    ),
    # handle, desc, alpha, A, Adesc, B, Bdesc, beta, C, Cdesc, D, Ddesc, algo*, workspace, size, stream
    "cublasLtMatmul": (c_int, [_VP] * 12 + [POINTER(MatmulAlgo), _VP, c_size_t, _VP]),
}

_lock = threading.Lock()
_lib: Optional[ctypes.CDLL] = None
_path: Optional[str] = None
_error: Optional[CublasLtNotFoundError] = None


def _candidates():
    """Yield (description, loader) pairs, each loader returning (CDLL, path)."""
    env = os.environ.get(ENV_LIBRARY)
    if env:
        yield f"${ENV_LIBRARY}={env}", lambda: (ctypes.CDLL(env), env)

    def via_pathfinder():
        from cuda.pathfinder import load_nvidia_dynamic_lib  # noqa: PLC0415 (optional dependency)

        loaded = load_nvidia_dynamic_lib("cublasLt")
        path = getattr(loaded, "abs_path", None)
        if path:
            return ctypes.CDLL(path), path
        handle = getattr(loaded, "_handle_uint", None)
        if handle is None:
            raise OSError("cuda.pathfinder returned neither a path nor a handle")
        return ctypes.CDLL("libcublasLt", handle=handle), "<already loaded, via cuda.pathfinder>"

    yield "cuda.pathfinder.load_nvidia_dynamic_lib('cublasLt')", via_pathfinder
    for soname in ("libcublasLt.so.13", "libcublasLt.so.12"):
        yield f"dlopen({soname})", (lambda s=soname: (ctypes.CDLL(s), s))


def _load() -> ctypes.CDLL:
    global _lib, _path, _error
    if _lib is not None:
        return _lib
    with _lock:
        if _lib is not None:
            return _lib
        if _error is not None:
            raise _error
        failures = []
        for description, loader in _candidates():
            try:
                cdll, path = loader()
            except Exception as exc:  # noqa: BLE001 - every loader failure is reported together
                failures.append(f"{description}: {type(exc).__name__}: {exc}")
                continue
            missing = [name for name in _PROTOTYPES if not hasattr(cdll, name)]
            if missing:
                failures.append(f"{description} ({path}): missing symbols {missing}")
                continue
            for name, (restype, argtypes) in _PROTOTYPES.items():
                fn = getattr(cdll, name)
                fn.restype = restype
                fn.argtypes = argtypes
            _lib, _path = cdll, path
            return cdll
        _error = CublasLtNotFoundError("could not load libcublasLt; tried " + "; ".join(failures))
        raise _error


def lib() -> ctypes.CDLL:
    """The loaded library (loads it on first call); raises CublasLtNotFoundError if absent."""
    return _load()


def library_path() -> Optional[str]:
    """Path of the loaded libcublasLt, or None if it is not loaded / cannot be."""
    try:
        _load()
    except CublasLtNotFoundError:
        return None
    return _path


def is_available() -> bool:
    """True if libcublasLt can be loaded (says nothing about a GPU being present)."""
    return library_path() is not None


def version() -> int:
    """cublasLtGetVersion(), e.g. 130100 for 13.1.0."""
    return int(lib().cublasLtGetVersion())


def check(status: int, function: str, detail: str = "") -> None:
    """Raise CublasLtError (with the status name) unless status is CUBLAS_STATUS_SUCCESS."""
    if status != 0:
        raise CublasLtError(status, function, detail)


def call(function: str, *args, detail: str = "") -> None:
    """Call a cuBLASLt function that returns cublasStatus_t and check the status."""
    status = getattr(lib(), function)(*args)
    check(status, function, detail)


def _reset_for_tests() -> None:
    """Forget the loaded library / cached load failure (tests only)."""
    global _lib, _path, _error
    with _lock:
        _lib, _path, _error = None, None, None
