"""Quantization toolkit: quantizers, zero-point terms, calibrators, linear-layer conversion, and the
weight-only formats (reference quantizer, GPTQ / AWQ importers, the kernel layout: prepack / unpack).

Everything here produces tensors shaped exactly as the scaled GEMM ops take
them (see :mod:`cutlass_gemm.quant.quantize` for the conventions: float32
math, round-half-to-even, saturation, shapes).
"""

from .azp import azp_adj, azp_with_adj
from .calibrate import (
    DEFAULT_NUM_BINS,
    DEFAULT_NUM_QUANT_BINS,
    Calibrator,
    EntropyCalibrator,
    HistogramCalibrator,
    MaxCalibrator,
    MSECalibrator,
    NotCalibratedError,
    PercentileCalibrator,
    make_calibrator,
)
from .linear import QuantizedLinear, quantize_linear
from .quantize import (
    FP8_E4M3_MAX,
    INT8_MAX,
    INT8_MIN,
    BlockQuantized,
    QuantizedActivation,
    QuantizedWeight,
    dequantize,
    dequantize_per_block,
    quantize_activation,
    quantize_per_block,
    quantize_static,
    quantize_weight,
    scale_azp_from_range,
    scale_from_amax,
    static_row_scale,
)
from .weight_only import WeightOnlyQuant, from_awq, from_gptq, quantize_weight_only
from .prepack import PackedWeight, dequantize_packed, prepack, unpack

from . import azp as _azp, calibrate as _calibrate, linear as _linear, quantize as _quantize

# The submodules' own export lists rather than a copy of them (every name is imported above;
# tests/test_public_api.py checks that each one resolves).
__all__ = [
    *_quantize.__all__,
    *_azp.__all__,
    *_calibrate.__all__,
    *_linear.__all__,
    # weight-only (W4A16 / W8A16) formats and checkpoint importers
    "WeightOnlyQuant",
    "quantize_weight_only",
    "from_gptq",
    "from_awq",
    # weight-only kernel layout
    "PackedWeight",
    "prepack",
    "unpack",
    "dequantize_packed",
]
