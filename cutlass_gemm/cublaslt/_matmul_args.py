"""The arguments of cuBLASLt's int8 matmul (matmul.py): the pipeline (`order`) and which one `"auto"` picks per GPU,
the output dtype, alpha (none, scalar, per-channel vector) and the dimension bound; each raises InvalidArgumentError
naming the argument."""
from __future__ import annotations

import functools
import numbers
from typing import Union

import torch

from cutlass_gemm.errors import InvalidArgumentError

from ._validate import cuda_tensor, device_arg
from .enums import Order

TN = "tn"
OUT_DTYPES = (torch.int32, torch.int8, torch.float32)
IMMA_B_ORDERS = (Order.COL4_4R2_8C, Order.COL32_2R_4R4)
_IMMA_OUT_DTYPES = (torch.int32, torch.int8)
_INT32_MAX = 2**31 - 1

Alpha = Union[None, float, torch.Tensor]


def _dtype_name(dtype: torch.dtype) -> str:
    return str(dtype).replace("torch.", "")


def select_order(device=None, out_dtype: torch.dtype = torch.int32):
    """The pipeline ``order="auto"`` picks: COL4_4R2_8C on sm75, COL32_2R_4R4 on sm80-sm88 (as
    FasterTransformer does), "tn" on sm89/sm90 and later (IMMA orders are not offered there) and for float32
    output (not in cuBLASLt's IMMA-order table). Note cuBLASLt's docs call the regular "TN" ordering the
    preferred one on every GPU; the IMMA orders are here for FasterTransformer-style pipelines."""
    if _parse_out_dtype(out_dtype) == torch.float32:
        return TN
    if device is not None and not isinstance(device, int):
        device = device_arg(device)
    cc = _capability(device if isinstance(device, int) or device is None or device.index is None else device.index)
    if cc == 75:
        return Order.COL4_4R2_8C
    if 80 <= cc < 89:
        return Order.COL32_2R_4R4
    return TN


@functools.lru_cache(maxsize=None)
def _capability(device) -> int:
    """10 * major + minor of a device (an index, or None: the current one), asked once (cleared by clear_plans)."""
    major, minor = torch.cuda.get_device_capability(device)
    return 10 * major + minor


def _parse_order(order, device: torch.device, out_dtype: torch.dtype):
    if isinstance(order, str) and order.strip().lower() == "auto":
        return select_order(device, out_dtype)
    if isinstance(order, str) and order.strip().lower() in (TN, "row", "col", "regular"):
        return TN
    o = Order.parse(order)
    if o in (Order.ROW, Order.COL):
        return TN
    if o not in IMMA_B_ORDERS:
        raise InvalidArgumentError(
            "order", f"{o.name} cannot be the order of B; expected 'auto', 'tn', {[x.name for x in IMMA_B_ORDERS]}"
        )
    return o


def _parse_out_dtype(out_dtype) -> torch.dtype:
    if out_dtype not in OUT_DTYPES:
        raise InvalidArgumentError(
            "out_dtype", f"expected one of {[_dtype_name(d) for d in OUT_DTYPES]}, got {out_dtype!r}"
        )
    return out_dtype


def _parse_alpha(alpha, out_dtype: torch.dtype, length: int, device: torch.device, length_name: str) -> str:
    """Validate alpha; return its kind: "none", "scalar" or "vector"."""
    if alpha is None:
        return "none"
    if out_dtype == torch.int32:
        raise InvalidArgumentError(
            "alpha", "int32 output uses cuBLASLt's integer scale type (alpha fixed to 1); pass alpha=None, or "
                     "ask for out_dtype=torch.float32 / torch.int8 to scale"
        )
    if isinstance(alpha, torch.Tensor):
        cuda_tensor(alpha, "alpha", (torch.float32,), ndim=1)
        if alpha.device != device:
            raise InvalidArgumentError("alpha", f"on {alpha.device}, but the operands are on {device}")
        if alpha.numel() != length:
            raise InvalidArgumentError(
                "alpha", f"a vector alpha needs one float32 per {length_name} ({length}), got {alpha.numel()}"
            )
        if alpha.data_ptr() % 4:
            raise InvalidArgumentError("alpha", "data pointer is not 4-byte aligned")
        return "vector"
    if isinstance(alpha, bool) or not isinstance(alpha, numbers.Real):
        raise InvalidArgumentError("alpha", f"expected None, a real number or a float32 CUDA vector, got {alpha!r}")
    return "scalar"


def _check_dim(value: int, name: str) -> None:
    if value > _INT32_MAX:
        raise InvalidArgumentError(name, f"dimension {value} exceeds int32, which cuBLASLt kernels index with")
