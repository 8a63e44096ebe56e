"""Per-device cuBLASLt state: one handle per device, one workspace per (device, stream), the current torch
stream, and a small bounded cache of cuBLASLt descriptors.

A cuBLASLt handle is tied to the device that was current when it was created, and calls with it must run with
that device current, so every entry point here makes the tensor's device current (``torch.cuda.device``).
Work is enqueued on ``torch.cuda.current_stream(device)``. Workspaces are torch allocations, so they come from
(and stay in) torch's caching allocator; one per stream keeps concurrent streams from sharing scratch memory.
"""
from __future__ import annotations

import collections
import contextlib
import threading
import weakref
from typing import Callable, Dict, Hashable, Tuple

import torch

from . import _lib

__all__ = ["WORKSPACE_BYTES", "handle", "workspace", "stream_ptr", "on_device", "Descriptor", "DescriptorCache"]

WORKSPACE_BYTES = 32 * 1024 * 1024

_lock = threading.RLock()
_handles: Dict[int, int] = {}
_workspaces: Dict[Tuple[int, int], torch.Tensor] = {}


def _index(device: torch.device) -> int:
    return device.index if device.index is not None else torch.cuda.current_device()


def handle(device: torch.device) -> int:
    """The cublasLtHandle_t (as int) of the device, created on first use with that device current."""
    idx = _index(device)
    h = _handles.get(idx)
    if h is not None:
        return h
    with _lock:
        h = _handles.get(idx)
        if h is None:
            with torch.cuda.device(idx):
                torch.cuda.init()
                h = int(_lib.call("cublasLtCreate", detail=f"device cuda:{idx}"))
            _handles[idx] = h
        return h


# torch's own accessor of the raw current stream: no Stream object per call (part of the call-path cut that took
# int8_matmul from 46-52 to 28-34 us on the H100, session13/call7; not measured on its own)
_raw_stream = getattr(torch._C, "_cuda_getCurrentRawStream", None)


def stream_ptr(device: torch.device) -> int:
    """cudaStream_t (as int) of torch's current stream on the device."""
    if _raw_stream is not None:
        return int(_raw_stream(_index(device)))
    return int(torch.cuda.current_stream(device).cuda_stream)


def on_device(device: torch.device):
    """A context making the device current: torch's guard, or nothing when it already is (the common case;
    entering and leaving the guard is avoidable host work on every call)."""
    idx = _index(device)
    return contextlib.nullcontext() if torch.cuda.current_device() == idx else torch.cuda.device(idx)


def workspace(device: torch.device, stream: int) -> torch.Tensor:
    """A WORKSPACE_BYTES uint8 tensor on the device, one per (device, stream), 256-byte aligned."""
    idx = _index(device)
    key = (idx, stream)
    ws = _workspaces.get(key)
    if ws is not None:
        return ws
    with _lock:
        ws = _workspaces.get(key)
        if ws is None:
            ws = torch.empty(WORKSPACE_BYTES, dtype=torch.uint8, device=torch.device("cuda", idx))
            if ws.data_ptr() % 256:
                raise RuntimeError("torch returned a workspace that is not 256-byte aligned")
            _workspaces[key] = ws
        return ws


class Descriptor:
    """Owns one cuBLASLt descriptor (layout, matmul desc, transform desc, preference); ``destroy_fn`` (the
    matching cublasLt*Destroy name) runs when the last Python reference goes away, so an entry evicted from a
    cache while another thread still uses it stays valid until that thread drops it. Nothing runs at
    interpreter exit (the process teardown frees host memory anyway)."""

    __slots__ = ("ptr", "_finalizer", "__weakref__")

    def __init__(self, ptr: int, destroy_fn: str):
        self.ptr = int(ptr)
        # bind the bindings' function that matches the creator: it alone may destroy the descriptor
        self._finalizer = weakref.finalize(self, _destroy, getattr(_lib.lt(), _lib.NAMES[destroy_fn]), self.ptr)
        self._finalizer.atexit = False


def _destroy(destroy, ptr: int) -> None:
    try:
        destroy(ptr)
    except Exception:  # noqa: BLE001 - a failed release must never raise from a finalizer
        pass


class DescriptorCache:
    """Thread-safe LRU map key -> value (values are Descriptor-owning objects, released by refcounting)."""

    def __init__(self, capacity: int = 1024):
        self._capacity = capacity
        self._items: "collections.OrderedDict[Hashable, object]" = collections.OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: Hashable, create: Callable[[], object]):
        with self._lock:
            value = self._items.get(key)
            if value is not None:
                self._items.move_to_end(key)
                return value
        value = create()  # outside the lock: it calls cuBLASLt, which may raise
        with self._lock:
            existing = self._items.get(key)
            if existing is not None:  # another thread won the race; keep theirs
                return existing
            self._items[key] = value
            while len(self._items) > self._capacity:
                self._items.popitem(last=False)
        return value

    def pop(self, key: Hashable) -> None:
        """Forget one entry (no-op if absent)."""
        with self._lock:
            self._items.pop(key, None)

    def clear(self) -> None:
        with self._lock:
            self._items.clear()

    def __len__(self) -> int:
        return len(self._items)
