"""cutlass_gemm: int8/fp8 GEMMs with fused dequantization epilogues, generated with CUTLASS.

Importing needs no GPU and no CUTLASS: kernels are emitted (nvidia-cutlass) and compiled (nvcc) only
when generated or first used, and loaded from a disk cache afterwards.
"""
from .kernels.config import KernelConfig
from .errors import (BuildError, CutlassGemmError, InvalidArgumentError, KernelLaunchError,
                     KernelNotBuiltError, UnsupportedDeviceError)
from .ops import scaled_mm, scaled_mm_azp

__all__ = [
    "KernelConfig", "scaled_mm", "scaled_mm_azp",
    "CutlassGemmError", "InvalidArgumentError", "UnsupportedDeviceError", "KernelNotBuiltError",
    "BuildError", "KernelLaunchError",
]
__version__ = "0.1.0"
