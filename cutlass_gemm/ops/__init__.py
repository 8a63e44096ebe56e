"""The `torch.library` ops of cutlass_gemm (namespace `cutlass_gemm`)."""
from .gemm import scaled_mm, scaled_mm_azp

__all__ = ["scaled_mm", "scaled_mm_azp"]
