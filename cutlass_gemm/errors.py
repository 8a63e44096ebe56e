"""Typed errors raised before any kernel runs, each naming what was wrong."""


class CutlassGemmError(Exception):
    """Base class of every error this library raises on purpose."""


class InvalidArgumentError(CutlassGemmError, ValueError):
    """An argument of an op has the wrong dtype, device, rank, shape, stride or alignment.

    `argument` names the offending argument (e.g. ``"scale_a"``)."""

    def __init__(self, argument: str, message: str):
        self.argument = argument
        super().__init__(f"{argument}: {message}")


class UnsupportedConvError(InvalidArgumentError):
    """A convolution the library does not serve (yet): grouped or depthwise ones, padding modes other than zeros,
    fp8 ones, and what the int8 implicit GEMM's window or activation schemes exclude. `argument` names the
    offending argument (``"kernel_size"``, ``"stride"``, ``"padding"``, ``"padding_mode"``, ``"dilation"``,
    ``"groups"``, ``"act"`` or ``"activation"``)."""


class UnsupportedDeviceError(CutlassGemmError, RuntimeError):
    """The GPU's architecture (SM) has no kernels in this library."""


class KernelNotBuiltError(CutlassGemmError, RuntimeError):
    """No compiled kernel is available for the request; the message gives the command that builds it."""


class BuildError(CutlassGemmError, RuntimeError):
    """A kernel could not be emitted or compiled; the message names the kernel and the cause (for
    nvcc failures, the compiler's output)."""


class BuildTimeoutError(BuildError):
    """nvcc, or the wait for another process's build lock, ran past its time limit
    (``CUTLASS_GEMM_BUILD_TIMEOUT`` / ``CUTLASS_GEMM_LOCK_TIMEOUT``, seconds)."""


class CacheDirError(BuildError):
    """The kernel cache folder (``CUTLASS_GEMM_CACHE_DIR``) cannot be created, written or used."""


class CudaRuntimeNotFoundError(CutlassGemmError, RuntimeError):
    """A kernel library needs the shared CUDA runtime (libcudart) of its toolkit's major version and
    none could be loaded (the message names the library and what was tried)."""


class KernelLaunchError(CutlassGemmError, RuntimeError):
    """The kernel's launcher reported a failure (CUTLASS status or CUDA error)."""


def warn_user(message: str, category: type = UserWarning) -> None:
    """`warnings.warn` naming the user's line: the first frame outside this package and torch.

    A fixed `stacklevel` names the user's line on one call path only: the dispatcher (torch.ops ... __call__),
    torch.compile and the library's own layers add a varying number of frames. Python's default filter shows a
    warning once per location, so naming the library's line would also show it once per process instead of once
    per call site of the user's code. (Python 3.12's `skip_file_prefixes` does this walk; 3.10-3.11 lack it.)"""
    import sys
    import warnings
    level, frame = 2, sys._getframe(1)  # stacklevel 2 names our caller's frame
    while frame is not None and frame.f_code.co_filename.startswith(_internal_prefixes()):
        frame, level = frame.f_back, level + 1
    warnings.warn(message, category, stacklevel=level if frame is not None else 2)


def _internal_prefixes() -> tuple:
    """Folder prefixes of the frames warn_user skips: this package's (this module's folder) and torch's (cached)."""
    global _PREFIXES
    if _PREFIXES is None:
        import os
        import torch
        _PREFIXES = tuple(os.path.dirname(os.path.abspath(f)) + os.sep for f in (torch.__file__, __file__))
    return _PREFIXES


_PREFIXES = None
