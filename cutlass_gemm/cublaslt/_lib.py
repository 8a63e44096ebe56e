"""cuBLASLt through NVIDIA's bindings (`nvmath.bindings.cublasLt` of nvmath-python, Cython), not hand-written
ctypes prototypes: measured on the H100 (session12/call12, the same plan), a raw `cublasLtMatmul` costs 5.83 us
through them against 7.71 us through ctypes, and this package's launch path 11.26 us against 16.09.

Loading is lazy (first use), so ``import cutlass_gemm.cublaslt`` works on machines with no GPU, no driver and no
libcublasLt; using it there raises :class:`CublasLtNotFoundError` with the cause. nvmath finds libcublasLt itself
(through cuda.pathfinder: an already-loaded copy, the nvidia-cublas wheel CUDA builds of torch install, conda,
the system loader, CUDA_HOME) and needs the CUDA driver to do so.

Callers name the C function (``call("cublasLtMatrixLayoutCreate", ...)``, so errors read as cuBLASLt's own
names); arguments are plain integers (handles, descriptors, device and host addresses); outputs are return
values. A failed status raises :class:`CublasLtError`.
"""
from __future__ import annotations

import ctypes
import threading
from typing import Optional

from .errors import CublasLtError, CublasLtNotFoundError

__all__ = ["lt", "library_path", "is_available", "version", "call", "status_of", "MatmulAlgo", "HeuristicResult"]


class MatmulAlgo(ctypes.Structure):
    """cublasLtMatmulAlgo_t: an opaque 64-byte struct (uint64_t data[8]); passed by address."""

    _fields_ = [("data", ctypes.c_uint64 * 8)]


class HeuristicResult(ctypes.Structure):
    """cublasLtMatmulHeuristicResult_t (96 bytes on x86-64); an array of them is passed by address."""

    _fields_ = [
        ("algo", MatmulAlgo),
        ("workspaceSize", ctypes.c_size_t),
        ("state", ctypes.c_int),
        ("wavesCount", ctypes.c_float),
        ("reserved", ctypes.c_int * 4),
    ]


#: cuBLASLt C name -> the function of nvmath.bindings.cublasLt that wraps it.
NAMES = {
    "cublasLtCreate": "create",
    "cublasLtDestroy": "destroy",
    "cublasLtGetVersion": "get_version",
    "cublasLtMatrixLayoutCreate": "matrix_layout_create",
    "cublasLtMatrixLayoutDestroy": "matrix_layout_destroy",
    "cublasLtMatrixLayoutSetAttribute": "matrix_layout_set_attribute",
    "cublasLtMatmulDescCreate": "matmul_desc_create",
    "cublasLtMatmulDescDestroy": "matmul_desc_destroy",
    "cublasLtMatmulDescSetAttribute": "matmul_desc_set_attribute",
    "cublasLtMatrixTransformDescCreate": "matrix_transform_desc_create",
    "cublasLtMatrixTransformDescDestroy": "matrix_transform_desc_destroy",
    "cublasLtMatrixTransformDescSetAttribute": "matrix_transform_desc_set_attribute",
    "cublasLtMatrixTransform": "matrix_transform",
    "cublasLtMatmulPreferenceCreate": "matmul_preference_create",
    "cublasLtMatmulPreferenceDestroy": "matmul_preference_destroy",
    "cublasLtMatmulPreferenceSetAttribute": "matmul_preference_set_attribute",
    "cublasLtMatmulAlgoGetHeuristic": "matmul_algo_get_heuristic",
    "cublasLtMatmul": "matmul",
}

_lock = threading.Lock()
_lib = None  # the bindings module once loaded (tests put a fake with the same functions here)
_error: Optional[CublasLtNotFoundError] = None


def _load():
    from nvmath.bindings import cublasLt  # noqa: PLC0415 (lazy: importing it is ~0.4 s)

    cublasLt.get_version()  # resolves libcublasLt now (needs the driver), so a failure surfaces here, typed
    return cublasLt


def lt():
    """The bindings module, loaded on first call; raises CublasLtNotFoundError (with the cause) if unusable."""
    global _lib, _error
    if _lib is not None:
        return _lib
    with _lock:
        if _lib is not None:
            return _lib
        if _error is not None:
            raise _error
        try:
            _lib = _load()
        except Exception as exc:  # noqa: BLE001 - every cause (not installed, no driver, no library) is reported
            _error = CublasLtNotFoundError(
                f"cuBLASLt is not usable through nvmath-python (nvmath.bindings.cublasLt): {type(exc).__name__}: "
                f"{exc}; install nvmath-python and a CUDA driver")
            raise _error from exc
        return _lib


def library_path() -> Optional[str]:
    """Path of the libcublasLt the process loaded (from /proc/self/maps), or None if it is not usable."""
    try:
        lt()
    except CublasLtNotFoundError:
        return None
    try:
        with open("/proc/self/maps") as maps:
            for line in maps:
                path = line.rstrip("\n").split(" ")[-1]
                if "libcublasLt" in path:
                    return path
    except OSError:
        pass
    return "<loaded by nvmath-python>"


def is_available() -> bool:
    """True if cuBLASLt can be used here (nvmath-python installed, a driver, libcublasLt found)."""
    try:
        lt()
    except CublasLtNotFoundError:
        return False
    return True


def version() -> int:
    """cublasLtGetVersion(), e.g. 130100 for 13.1.0."""
    return int(lt().get_version())


def call(function: str, *args, detail: str = ""):
    """Call the cuBLASLt function `function` (its C name) through the bindings; return its result. A failed
    status (the bindings raise an exception carrying it) becomes CublasLtError naming the function."""
    fn = getattr(lt(), NAMES[function])
    try:
        return fn(*args)
    except Exception as exc:  # noqa: BLE001 - only status-carrying exceptions are translated
        status = getattr(exc, "status", None)
        if not isinstance(status, int):
            raise
        raise CublasLtError(int(status), function, detail) from None


def status_of(function: str, *args) -> int:
    """Call `function` and return its status (0 on success) instead of raising: for the callers that branch
    on a refusal (heuristic queries, launches, transforms)."""
    try:
        call(function, *args)
    except CublasLtError as exc:
        return exc.status
    return 0


def _reset_for_tests() -> None:
    """Forget the loaded bindings / cached load failure (tests only)."""
    global _lib, _error
    with _lock:
        _lib, _error = None, None
