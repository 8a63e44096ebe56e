"""The `torch.library` ops of cutlass_gemm (namespace `cutlass_gemm`): the fused GEMMs, the
activation quantizers that feed them, and the W8A8 linear call that layers make."""
from .gemm import scaled_mm, scaled_mm_azp
from .quantize import (quantize_per_group, quantize_per_tensor, quantize_per_token, quantize_per_token_asym,
                       quantize_static, rms_norm_quantize)
from .linear import w8a8_linear

__all__ = ["scaled_mm", "scaled_mm_azp", "quantize_per_token", "quantize_per_token_asym", "quantize_per_tensor",
           "quantize_static", "quantize_per_group", "rms_norm_quantize", "w8a8_linear"]
