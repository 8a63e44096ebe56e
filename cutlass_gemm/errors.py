"""Typed errors raised before any kernel runs, each naming what was wrong."""


class CutlassGemmError(Exception):
    """Base class of every error this library raises on purpose."""


class InvalidArgumentError(CutlassGemmError, ValueError):
    """An argument of an op has the wrong dtype, device, rank, shape, stride or alignment.

    `argument` names the offending argument (e.g. ``"scale_a"``)."""

    def __init__(self, argument: str, message: str):
        self.argument = argument
        super().__init__(f"{argument}: {message}")


class UnsupportedDeviceError(CutlassGemmError, RuntimeError):
    """The GPU's architecture (SM) has no kernels in this library."""


class KernelNotBuiltError(CutlassGemmError, RuntimeError):
    """No compiled kernel is available for the request; the message gives the command that builds it."""


class BuildError(CutlassGemmError, RuntimeError):
    """nvcc failed to compile a generated kernel; the message holds the compiler's output."""


class KernelLaunchError(CutlassGemmError, RuntimeError):
    """The kernel's launcher reported a failure (CUTLASS status or CUDA error)."""
