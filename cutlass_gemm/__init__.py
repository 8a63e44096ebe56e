"""cutlass_gemm: int8/fp8 GEMMs with fused dequantization epilogues, generated with CUTLASS.

Importing needs no GPU and no CUTLASS: kernels are emitted (nvidia-cutlass) and compiled (nvcc) only
when generated or first used, and loaded from a disk cache afterwards.
"""
from .kernels.config import KernelConfig
from .errors import (BuildError, CutlassGemmError, InvalidArgumentError, KernelLaunchError,
                     KernelNotBuiltError, UnsupportedConvError, UnsupportedDeviceError)
from .ops import (quantize_per_group, quantize_per_tensor, quantize_per_token, quantize_per_token_asym,
                  quantize_static, rms_norm_quantize, scaled_mm, scaled_mm_azp, scaled_mm_blockwise, scaled_mm_blockwise_int8,
                  w8a8_linear)
from .ops.conv import Int8ConvActivation, conv2d_int8, conv2d_weight_only

__all__ = [
    "KernelConfig", "scaled_mm", "scaled_mm_azp", "scaled_mm_blockwise", "scaled_mm_blockwise_int8",
    "w8a8_linear", "conv2d_weight_only", "conv2d_int8", "Int8ConvActivation",
    "quantize_per_token", "quantize_per_token_asym", "quantize_per_tensor", "quantize_static",
    "quantize_per_group", "rms_norm_quantize",
    "CutlassGemmError", "InvalidArgumentError", "UnsupportedDeviceError", "KernelNotBuiltError",
    "BuildError", "KernelLaunchError", "UnsupportedConvError",
]
__version__ = "0.1.0"
