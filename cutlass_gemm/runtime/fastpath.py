"""The C++ eager fast path of the GEMM ops (csrc/fast_path.cpp, part of the torch extension).

It checks, plans and launches the common valid call in C++ (about 1 us of Python instead of ~10);
everything else falls through to the Python implementation. CUTLASS_GEMM_FAST_PATH=0 turns it off
(the extension's quantization kernels stay in use).
"""
from __future__ import annotations

import os
from typing import Optional

from . import extension

FAST_PATH_ENV = "CUTLASS_GEMM_FAST_PATH"
VARIANT_CODES = {"scaled": 0, "scaled_bias": 1, "scaled_azp": 2, "scaled_azp_per_token": 3,
                 "scaled_azp_nobias": 4, "scaled_azp_per_token_nobias": 5}
#: The activation is carried in the bits above the variant (fast_path.cpp: kActivationShift); plans
#: are keyed by the whole code, so each (variant, activation) has its own plan and kernel.
ACTIVATION_CODES = {"none": 0, "relu": 1, "relu6": 2, "gelu_tanh": 3, "silu": 4}
ACTIVATION_SHIFT = 3
CODES = {(v, a): vc | (ac << ACTIVATION_SHIFT) for v, vc in VARIANT_CODES.items()
         for a, ac in ACTIVATION_CODES.items()}


def enabled() -> bool:
    return os.environ.get(FAST_PATH_ENV, "1") not in ("0", "false", "no", "off")


def module() -> Optional[object]:
    """The extension when the fast path is on and the extension is available, else None."""
    return extension.load() if enabled() else None
