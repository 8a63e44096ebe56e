"""The cuBLASLt matmul plans behind `matmul.int8_matmul` / `imma_matmul`: a plan (operation descriptor, three matrix
layouts, the heuristic's algorithm, pointer mode) per configuration key, built once and cached (bounded), and the
configurations cuBLASLt refused, remembered (bounded) so that a later call goes straight to its fallback or error
without asking the heuristic again; the launch itself. No argument checking here: matmul.py validates first.
"""
from __future__ import annotations

import collections
import ctypes
import threading
from dataclasses import dataclass
from typing import List, Optional, Sequence, Tuple

import torch

from . import _lib
from ._context import WORKSPACE_BYTES, Descriptor, DescriptorCache, stream_ptr, workspace
from ._descriptors import LayoutSpec, matrix_layout, new_descriptor, set_matmul_int32, set_preference
from ._lib import HeuristicResult
from .enums import (
    ComputeType,
    CudaDataType,
    MatmulDescAttribute,
    MatmulPreferenceAttribute,
    Operation,
    PointerMode,
    Status,
)
from .errors import CublasLtError, UnsupportedOrderError, status_name

_HEURISTIC_COUNT = 8

# out dtype -> (compute type, scale type)
_TYPES = {
    torch.int32: (ComputeType.CUBLAS_COMPUTE_32I, CudaDataType.CUDA_R_32I),
    torch.int8: (ComputeType.CUBLAS_COMPUTE_32I, CudaDataType.CUDA_R_32F),
    torch.float32: (ComputeType.CUBLAS_COMPUTE_32F, CudaDataType.CUDA_R_32F),
}


@dataclass
class _Plan:
    desc: Descriptor
    a_layout: Descriptor
    b_layout: Descriptor
    d_layout: Descriptor
    result: HeuristicResult
    pointer_mode: PointerMode
    scale_type: CudaDataType
    description: str


_plans = DescriptorCache(capacity=256)
_REFUSED_CAPACITY = 1024
_refused_lock = threading.Lock()
_refused: "collections.OrderedDict[tuple, tuple]" = collections.OrderedDict()
# statuses that mean "cuBLASLt cannot do this configuration" (as opposed to a failed execution)
_REFUSALS = (int(Status.CUBLAS_STATUS_NOT_SUPPORTED), int(Status.CUBLAS_STATUS_ARCH_MISMATCH),
             int(Status.CUBLAS_STATUS_INVALID_VALUE))


def _heuristic(h: int, desc: Descriptor, a: Descriptor, b: Descriptor, d: Descriptor,
               aligns: Tuple[int, int, int]) -> Tuple[int, Optional[HeuristicResult], int]:
    """(status, best usable result or None, number of results returned)."""
    pref = new_descriptor("cublasLtMatmulPreferenceCreate", "cublasLtMatmulPreferenceDestroy", detail="preference")
    set_preference(pref, MatmulPreferenceAttribute.MAX_WORKSPACE_BYTES, WORKSPACE_BYTES, "max workspace")
    align_a, align_b, align_d = aligns
    for attr, value in (
        (MatmulPreferenceAttribute.MIN_ALIGNMENT_A_BYTES, align_a),
        (MatmulPreferenceAttribute.MIN_ALIGNMENT_B_BYTES, align_b),
        (MatmulPreferenceAttribute.MIN_ALIGNMENT_C_BYTES, align_d),
        (MatmulPreferenceAttribute.MIN_ALIGNMENT_D_BYTES, align_d),
    ):
        set_preference(pref, attr, value, attr.name)
    results = (HeuristicResult * _HEURISTIC_COUNT)()
    count = ctypes.c_int(0)
    status = _lib.status_of("cublasLtMatmulAlgoGetHeuristic", h, desc.ptr, a.ptr, b.ptr, d.ptr, d.ptr, pref.ptr,
                            _HEURISTIC_COUNT, ctypes.addressof(results), ctypes.addressof(count))
    if status != 0:
        return status, None, 0
    for i in range(min(count.value, _HEURISTIC_COUNT)):
        r = results[i]
        if r.state == 0 and r.workspaceSize <= WORKSPACE_BYTES:
            return 0, HeuristicResult.from_buffer_copy(r), count.value
    return 0, None, count.value


def _build_plan(device_index: int, h: int, a_spec: LayoutSpec, b_spec: LayoutSpec, d_spec: LayoutSpec,
                transa: Operation, transb: Operation, out_dtype: torch.dtype,
                pointer_modes: Sequence[PointerMode], aligns: Tuple[int, int, int], what: str):
    """Try each pointer mode; return (_Plan, []) for the first one the heuristic serves, else (None, failures)."""
    compute, scale = _TYPES[out_dtype]
    a = matrix_layout(device_index, a_spec)
    b = matrix_layout(device_index, b_spec)
    d = matrix_layout(device_index, d_spec)
    failures: List[Tuple[int, str]] = []
    for mode in pointer_modes:
        detail = (f"{what}; A={a_spec.describe()} op={transa.name}, B={b_spec.describe()} op={transb.name}, "
                  f"D={d_spec.describe()}, compute={compute.name}, scale={scale.name}, pointer_mode={mode.name}, "
                  f"alignment(A,B,D)={aligns}")
        desc = new_descriptor("cublasLtMatmulDescCreate", "cublasLtMatmulDescDestroy", int(compute), int(scale),
                              detail=detail)
        set_matmul_int32(desc, MatmulDescAttribute.TRANSA, transa, detail)
        set_matmul_int32(desc, MatmulDescAttribute.TRANSB, transb, detail)
        set_matmul_int32(desc, MatmulDescAttribute.POINTER_MODE, mode, detail)
        status, result, count = _heuristic(h, desc, a, b, d, aligns)
        if result is not None:
            return _Plan(desc, a, b, d, result, mode, scale, detail), []
        if status == 0:  # the query ran but offered nothing usable: cuBLASLt cannot do this configuration
            failures.append((int(Status.CUBLAS_STATUS_NOT_SUPPORTED),
                             f"[{detail}] heuristic returned {count} algorithm(s), none usable"))
        else:
            failures.append((status, f"[{detail}] heuristic -> {status_name(status)}"))
    return None, failures


def _refuse(key: tuple, status: int, function: str, detail: str, imma: bool) -> None:
    """Remember that cuBLASLt refused this configuration (bounded), so later calls go straight to the
    fallback (or error) without asking the heuristic again."""
    with _refused_lock:
        _refused[key] = (status, function, detail, imma)
        _refused.move_to_end(key)
        while len(_refused) > _REFUSED_CAPACITY:
            _refused.popitem(last=False)


def _raise_refused(status: int, function: str, detail: str, imma: bool):
    if imma:
        raise UnsupportedOrderError(status, function, detail)
    raise CublasLtError(status, function, detail)


def _get_plan(key: tuple, build, imma: bool) -> _Plan:
    with _refused_lock:
        known = _refused.get(key)
    if known is not None:
        status, function, detail, was_imma = known
        _raise_refused(status, function, "(remembered refusal) " + detail, was_imma)
    failures_box: List[Tuple[int, str]] = []

    def create():
        plan, failures = build()
        if plan is None:
            failures_box.extend(failures)
            raise _NoPlan()
        return plan

    try:
        return _plans.get(key, create)
    except _NoPlan:
        status = failures_box[0][0]
        detail = "; ".join(f for _, f in failures_box)
        if imma:
            detail = "no cuBLASLt algorithm for this IMMA-order matmul on this device: " + detail
        _refuse(key, status, "cublasLtMatmulAlgoGetHeuristic", detail, imma)
        _raise_refused(status, "cublasLtMatmulAlgoGetHeuristic", detail, imma)


class _NoPlan(Exception):
    pass


def _scalars(plan: _Plan, alpha, alpha_kind: str):
    """(alpha argument, beta argument, objects to keep alive) for cublasLtMatmul."""
    if plan.scale_type is CudaDataType.CUDA_R_32I:
        a, b = ctypes.c_int32(1), ctypes.c_int32(0)
        return ctypes.addressof(a), ctypes.addressof(b), (a, b)
    beta = ctypes.c_float(0.0)
    if alpha_kind == "vector":
        return alpha.data_ptr(), ctypes.addressof(beta), (beta,)
    a = ctypes.c_float(1.0 if alpha is None else float(alpha))
    return ctypes.addressof(a), ctypes.addressof(beta), (a, beta)


def _launch(plan: _Plan, device: torch.device, h: int, a_ptr: int, b_ptr: int, d_ptr: int, alpha, alpha_kind: str,
            imma: bool, key: Optional[tuple] = None) -> None:
    stream = stream_ptr(device)
    ws = workspace(device, stream)
    alpha_arg, beta_arg, keep = _scalars(plan, alpha, alpha_kind)
    status = _lib.status_of(
        "cublasLtMatmul", h, plan.desc.ptr, alpha_arg, a_ptr, plan.a_layout.ptr, b_ptr, plan.b_layout.ptr, beta_arg,
        d_ptr, plan.d_layout.ptr, d_ptr, plan.d_layout.ptr, ctypes.addressof(plan.result.algo), ws.data_ptr(),
        WORKSPACE_BYTES, stream)
    del keep
    if status != 0:
        unsupported = status in _REFUSALS
        if unsupported and key is not None:  # the plan cannot run: forget it, remember the refusal
            _plans.pop(key)
            _refuse(key, status, "cublasLtMatmul", plan.description, imma)
        if imma and unsupported:
            raise UnsupportedOrderError(status, "cublasLtMatmul", plan.description)
        raise CublasLtError(status, "cublasLtMatmul", plan.description)


def clear() -> None:
    """Forget every plan and every remembered refusal."""
    _plans.clear()
    with _refused_lock:
        _refused.clear()
