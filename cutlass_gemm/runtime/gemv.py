"""The W8A8 decode GEMV of the torch extension (csrc/gemv_w8a8.cu) behind the interface of a loaded kernel
library (loader.KernelLibrary): `config`, `_launch`, `function_address`, `workspace_size`, `launch`,
`raise_launch_error`. Its launchers have the generated kernels' cg_launch ABI, so ops/gemm.py's plans and the
C++ fast path call them exactly as they call a CUTLASS kernel.

CUTLASS_GEMM_GEMV=0 turns it off (the CUTLASS tiles then serve every M), e.g. to compare the two.
"""
from __future__ import annotations

import ctypes
import os
import threading
from typing import Dict, Optional

from . import extension
from .loader import _LAUNCH_ARGTYPES, KernelLibrary
from ..errors import KernelLaunchError
from ..kernels.epilogues import SCALE_A_SCALAR, SCALE_B_SCALAR
from ..kernels.gemv import GemvConfig

GEMV_ENV = "CUTLASS_GEMM_GEMV"
_LAUNCH_TYPE = ctypes.CFUNCTYPE(ctypes.c_int, *_LAUNCH_ARGTYPES)


def enabled() -> bool:
    return os.environ.get(GEMV_ENV, "1") not in ("0", "false", "no", "off")


class GemvKernel(KernelLibrary):
    """One launcher of the GEMV (one input type, output type and pair of scale kinds). It shares `launch` with
    the generated kernels' libraries; there is no library file to open, the launcher lives in the extension."""

    def __init__(self, config: GemvConfig, module):
        # not super().__init__: that opens a kernel library file, and this launcher has none
        self.config = config
        self._module = module
        self.function_address = int(module.gemv_w8a8_address(config.a_dtype == "e4m3", config.out_dtype == "bf16",
                                                             config.scale_a == "token", config.scale_b == "channel"))
        self._launch = _LAUNCH_TYPE(self.function_address)
        self.workspace_address = 0

    def workspace_size(self, m: int, n: int, k: int) -> int:
        return 0

    @property
    def scalar_scales_served(self) -> int:
        return SCALE_A_SCALAR | SCALE_B_SCALAR  # it reads scale_a[0] / scale_b[0] when told (gemv_w8a8.cu)

    def raise_launch_error(self, rc: int, m: int, n: int, k: int):
        raise KernelLaunchError(f"{self.config.name} (m={m}, n={n}, k={k}) failed with code {rc}: "
                                f"{self._module.gemv_w8a8_last_error()}")

    def plan(self, m: int, n: int, k: int) -> Dict[str, int]:
        """The launch an (m, n, k) call makes (for reports and tests)."""
        warps, ctas, threads, unroll = self._module.gemv_w8a8_plan(m, n, k)
        return {"warps_k": warps, "ctas": ctas, "threads": threads, "unroll": unroll}


_kernels: Dict[GemvConfig, GemvKernel] = {}
_lock = threading.Lock()


def kernel(config: GemvConfig) -> Optional[GemvKernel]:
    """The launcher for `config`, or None when the GEMV is switched off or the extension is unavailable."""
    if not enabled():
        return None
    hit = _kernels.get(config)
    if hit is not None:
        return hit
    module = extension.load()
    if module is None or not hasattr(module, "gemv_w8a8_address"):
        return None
    with _lock:
        hit = _kernels.get(config)
        if hit is None:
            hit = _kernels[config] = GemvKernel(config, module)
    return hit


def block_module():
    """The extension, when its block-scaled GEMV serves the per-block ops at M <= 16 (scaled_mm_blockwise_int8,
    scaled_mm_blockwise); None when the GEMV is switched off (CUTLASS_GEMM_GEMV=0) or the extension is unavailable."""
    return extension.load() if enabled() else None


def set_warps_k(warps_k: int) -> None:
    """Force the warps splitting K per CTA (4, 8 or 16) for tuning; 0 restores the automatic choice."""
    module = extension.load()
    if module is not None:
        module.gemv_w8a8_set_warps_k(int(warps_k))
