"""The `torch.library` ops of cutlass_gemm (namespace `cutlass_gemm`): the fused GEMMs, the
activation quantizers that feed them, the W8A8 linear call that layers make, and the weight-only
(W4A16 / W8A16) GEMM, the blockwise-scaled fp8 GEMM, the per-block int8 GEMM, the 1x1 convolutions that run
on those GEMMs, and the int8 and weight-only implicit-GEMM convolutions (any kernel size, stride, padding,
dilation)."""
from .gemm import scaled_mm, scaled_mm_azp
from .quantize import (quantize_per_group, quantize_per_tensor, quantize_per_token, quantize_per_token_asym,
                       quantize_static, rms_norm_quantize)
from .linear import w8a8_linear
from .weight_only import WeightOnlyFallbackWarning, weight_only_backend, weight_only_linear, weight_only_mm
from .conv import conv2d_int8, conv2d_int8_krsc, conv2d_weight_only
from .conv_igemm import conv2d_int8_igemm
from .conv_wo import conv2d_weight_only_kxk, weight_only_conv_backend
from .blockwise import scaled_mm_blockwise
from .blockwise_int8 import BlockwiseInt8FallbackWarning, blockwise_int8_backend, scaled_mm_blockwise_int8

__all__ = ["scaled_mm", "scaled_mm_azp", "quantize_per_token", "quantize_per_token_asym", "quantize_per_tensor",
           "quantize_static", "quantize_per_group", "rms_norm_quantize", "w8a8_linear",
           "weight_only_mm", "weight_only_linear", "weight_only_backend", "WeightOnlyFallbackWarning",
           "conv2d_weight_only", "conv2d_weight_only_kxk", "weight_only_conv_backend", "conv2d_int8", "conv2d_int8_krsc", "conv2d_int8_igemm", "scaled_mm_blockwise",
           "scaled_mm_blockwise_int8", "blockwise_int8_backend", "BlockwiseInt8FallbackWarning"]
