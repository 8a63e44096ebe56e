"""Device-side offset tables for the IMMA orders: the fallback of :mod:`.transforms` when cuBLASLt refuses a
cublasLtMatrixTransform (or disagrees with the verified formulas).

``offset_table(rows, cols, order, device)`` is an int64 tensor of rows*cols elements on ``device``: entry
r*cols + c is the element offset of (r, c) in the order's buffer, computed with torch ops from
:func:`layouts.offsets_from_indices` -- the same closed forms as the numpy reference. Tables are built once
per (rows, cols, order, device) on the current stream and kept in a small LRU cache bounded in bytes; a table
used from another stream than the one that built it is waited for (event) and recorded on that stream (so the
caching allocator never reuses it under a running kernel).

``scatter`` / ``gather`` / ``gather_col_major`` then move the data with ``index_copy_`` / ``index_select``
(plus a transposing copy for the column-major result) on the current stream.
"""
from __future__ import annotations

import collections
import threading
from typing import Hashable, Optional, Tuple

import torch

from . import layouts
from .enums import Order

__all__ = ["offset_table", "scatter", "gather", "gather_col_major", "clear_tables", "CACHE_BYTES"]

CACHE_BYTES = 256 * 1024 * 1024  # tables larger than this are built per call and not kept


class _Entry:
    __slots__ = ("table", "event", "stream")

    def __init__(self, table: torch.Tensor, event, stream):
        self.table, self.event, self.stream = table, event, stream


_lock = threading.Lock()
_tables: "collections.OrderedDict[Hashable, _Entry]" = collections.OrderedDict()
_bytes = 0


def _device_key(device: torch.device) -> Tuple[str, Optional[int]]:
    if device.type == "cuda" and device.index is None:
        return device.type, torch.cuda.current_device()
    return device.type, device.index


def build_table(rows: int, cols: int, order, device) -> torch.Tensor:
    """A fresh (uncached) int64 table of rows*cols offsets on ``device`` (torch ops; current stream)."""
    o = Order.parse(order)
    device = torch.device(device)
    r = torch.arange(rows, dtype=torch.int64, device=device)[:, None]
    c = torch.arange(cols, dtype=torch.int64, device=device)[None, :]
    return layouts.offsets_from_indices(r, c, rows, o).reshape(-1).contiguous()


def offset_table(rows: int, cols: int, order, device) -> torch.Tensor:
    """Cached int64 offsets (rows*cols,) on ``device``, safe to use on the current stream."""
    global _bytes
    o = Order.parse(order)
    device = torch.device(device)
    key = (rows, cols, o, _device_key(device))
    with _lock:
        entry = _tables.get(key)
        if entry is not None:
            _tables.move_to_end(key)
    if entry is not None:
        if entry.event is not None:
            current = torch.cuda.current_stream(entry.table.device)
            if current != entry.stream:
                current.wait_event(entry.event)
                entry.table.record_stream(current)
        return entry.table
    table = build_table(rows, cols, o, device)
    size = table.numel() * table.element_size()
    if size > CACHE_BYTES:
        return table
    event = stream = None
    if table.device.type == "cuda":
        stream = torch.cuda.current_stream(table.device)
        event = torch.cuda.Event()
        event.record(stream)
    with _lock:
        existing = _tables.get(key)
        if existing is not None:  # another thread built it first; ours stays valid for this call
            return table
        _tables[key] = _Entry(table, event, stream)
        _bytes += size
        while _bytes > CACHE_BYTES and _tables:
            _, old = _tables.popitem(last=False)
            _bytes -= old.table.numel() * old.table.element_size()
    return table


def scatter(x: torch.Tensor, order, size: int) -> torch.Tensor:
    """Row-major (R, C) -> 1-D buffer of ``size`` elements in the order, padding zero."""
    rows, cols = (int(s) for s in x.shape)
    out = torch.zeros(size, dtype=x.dtype, device=x.device)
    out.index_copy_(0, offset_table(rows, cols, order, x.device), x.reshape(-1))
    return out


def gather(buf: torch.Tensor, order, rows: int, cols: int) -> torch.Tensor:
    """1-D buffer in the order -> row-major (rows, cols) tensor."""
    return buf.reshape(-1).index_select(0, offset_table(rows, cols, order, buf.device)).view(rows, cols)


def gather_col_major(buf: torch.Tensor, order, rows: int, cols: int) -> torch.Tensor:
    """1-D buffer in the order -> the matrix column-major, as the row-major (cols, rows) tensor."""
    return gather(buf, order, rows, cols).t().contiguous()


def clear_tables() -> None:
    """Drop every cached table."""
    global _bytes
    with _lock:
        _tables.clear()
        _bytes = 0


def cached_tables() -> int:
    return len(_tables)
