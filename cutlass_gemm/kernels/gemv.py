"""The W8A8 decode GEMV (runtime/csrc/gemv_w8a8.cuh), described like a kernel library: a frozen config with a
stable name. It is compiled into the torch extension (one build for every variant), not emitted per config,
so the config only names what a plan runs and picks the launcher inside the extension.

    out (M, N) = scale_a * (scale_b * (a (M, K) @ b (K, N))) + bias,   1 <= M <= 16

int8 (int32 accumulation) or fp8 e4m3 (float32 accumulation) inputs, bf16 / fp16 output, per-token or
per-tensor scale_a, per-channel or per-tensor scale_b, optional bias; no zero point, no activation (those
calls keep the CUTLASS kernels).
"""
from __future__ import annotations

from dataclasses import dataclass

from ..errors import InvalidArgumentError
from .config import INPUT_DTYPES, OUTPUT_DTYPES, SCALE_A_KINDS, SCALE_B_KINDS

#: Largest M the kernel serves (two n8 tiles of activation rows per mma).
MAX_M = 16
#: Epilogue variants it serves (ops/gemm.py names).
VARIANTS = ("scaled", "scaled_bias")


@dataclass(frozen=True)
class GemvConfig:
    """Which GEMV launcher serves a call: input and output dtypes, scale kinds. Field order is the name's."""

    a_dtype: str = "int8"
    out_dtype: str = "bf16"
    scale_a: str = "token"
    scale_b: str = "channel"

    #: what ops/gemm.py asks of any plan's kernel: this one never needs a workspace
    scheduler = "persistent"

    def __post_init__(self):
        for field, value, allowed in (("a_dtype", self.a_dtype, INPUT_DTYPES), ("out_dtype", self.out_dtype, OUTPUT_DTYPES),
                                      ("scale_a", self.scale_a, SCALE_A_KINDS),
                                      ("scale_b", self.scale_b, SCALE_B_KINDS)):
            if value not in allowed:
                raise InvalidArgumentError(field, f"must be one of {allowed}, got {value!r}")

    @property
    def name(self) -> str:
        return f"gemv_w8a8_{self.a_dtype}_{self.out_dtype}_{self.scale_a}_{self.scale_b}"
