"""Quantized layers and whole-model conversion: `Int8Linear`, `Fp8Linear`, `quantize_model`,
`calibrate`, and `greedy_generate` (CUDA-graph decoding, for checks and demos)."""
from .convert import SCHEMES, QuantizationReport, calibrate, quantize_model
from .generation import greedy_generate
from .linear import Fp8Linear, Int8Linear

__all__ = ["Int8Linear", "Fp8Linear", "quantize_model", "calibrate", "QuantizationReport", "SCHEMES",
           "greedy_generate"]
