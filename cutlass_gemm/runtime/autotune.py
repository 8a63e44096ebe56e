"""Opt-in autotuning: time the candidate kernels for a new shape once and remember the winner on disk.

Set ``CUTLASS_GEMM_AUTOTUNE=1`` (or true/yes/on) to turn it on; `enabled()` reads the variable.
The first call for a (variant, input dtype, output dtype, M, N, K) times every candidate tile
once through a caller-supplied timing function, stores the fastest, and later calls (in this
process or any later one on the same kind of GPU) get it back without timing anything.

The winners live in one JSON file per kind of device,
``build.cache_root() / "autotune" / f"{device_key}.json"``, where `device_key` is a filename-safe
string from the device name and SM (`make_device_key`, e.g. ``NVIDIA_H100_80GB_HBM3-sm90``)::

    {"device": "...", "format": 1,
     "entries": {"scaled:int8:bf16:128x4096x4096":
                   {"tile": [64, 128, 128], "cluster": [2, 1, 1], "schedule": "pingpong", "stages": 0,
                    "times_us": {"64x128x128-c2x1x1-pingpong": 10.5, "...": null},
                    "failed": {"...": "KernelLaunchError: ..."}}}}

``times_us`` holds every candidate timed (``null`` for one that failed; the error text is in
``failed``, which is present only when something failed). The file is written deterministically
(sorted keys, indented) so that the same content gives the same bytes.

Concurrency: writers take a `filelock.FileLock` on a sibling ``.lock`` file, re-read the file
under it, merge in their one new entry and write through a temporary file and `os.replace`, so
concurrent processes never lose each other's entries and readers never see a torn file (readers
take no lock). Timing happens outside the lock: two processes meeting a new shape at once may both
time it, and the later write wins for that key (both winners are valid kernels).

Each `Autotuner` keeps what it has read in memory: after the first lookup for a device, a lookup
is a couple of dict accesses and never touches the disk again. Entries that other processes add
later become visible when this process next stores an entry (the merge re-reads the file) or
after `Autotuner.reload`.

M is kept exact: every distinct M is its own entry. Callers that see many M values (e.g. decode
batches) may bucket M before calling, e.g. with `bucket_m` (next power of two), to bound the table
and the number of timing runs; the kernel chosen for the bucket then serves every M in it.
"""
from __future__ import annotations

import json
import logging
import math
import os
import re
import statistics
import threading
from pathlib import Path
from typing import Callable, Dict, List, Optional, Sequence, Tuple

from filelock import FileLock

from . import build, cache
from ..kernels.heuristics import SELECTION, TileChoice, table_tiles

log = logging.getLogger("cutlass_gemm")

AUTOTUNE_ENV = "CUTLASS_GEMM_AUTOTUNE"
_TRUE = frozenset({"1", "true", "yes", "on"})

#: Version of the table file's layout; a file with another one is ignored (and replaced on write).
FORMAT_VERSION = 1

_DEVICE_KEY_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")
_MAX_ERROR_CHARS = 500

__all__ = [
    "AUTOTUNE_ENV", "FORMAT_VERSION", "Autotuner", "autotune_dir", "bucket_m", "candidate_label",
    "current_device_key", "default_candidates", "enabled", "entry_key", "get_autotuner",
    "make_device_key", "time_gpu_us",
]


def enabled() -> bool:
    """Whether autotuning is switched on (``CUTLASS_GEMM_AUTOTUNE`` is 1/true/yes/on, any case)."""
    return os.environ.get(AUTOTUNE_ENV, "").strip().lower() in _TRUE


def bucket_m(m: int) -> int:
    """The next power of two >= m (1 stays 1): an optional M bucketing for callers."""
    if m < 1:
        raise ValueError(f"bucket_m needs m >= 1, got {m}")
    return 1 << (m - 1).bit_length()


def make_device_key(name: str, sm: int) -> str:
    """A filename-safe key from a device name and SM: ("NVIDIA H100 80GB HBM3", 90) ->
    "NVIDIA_H100_80GB_HBM3-sm90"."""
    safe = re.sub(r"[^A-Za-z0-9._-]+", "_", name).strip("._-") or "unknown"
    return f"{safe}-sm{int(sm)}"


def current_device_key(device=None) -> str:
    """`make_device_key` for a CUDA device (default: the current one). Needs a GPU."""
    import torch
    major, minor = torch.cuda.get_device_capability(device)
    return make_device_key(torch.cuda.get_device_name(device), major * 10 + minor)


def default_candidates(sm: int) -> List[TileChoice]:
    """The distinct tiles of the heuristic table for `sm`, in table order: the tiles of the default
    kernel set, so every one of them is normally built already."""
    return table_tiles(sm)


def candidate_label(choice: TileChoice) -> str:
    """A readable, unique label for a candidate: "64x128x128-c2x1x1-pingpong" (+ "-s4" with stages)."""
    label = "x".join(map(str, choice.tile)) + "-c" + "x".join(map(str, choice.cluster)) + "-" + choice.schedule
    return f"{label}-s{choice.stages}" if choice.stages else label


def _check_name(what: str, value: str) -> None:
    if not isinstance(value, str) or not value or ":" in value or value != value.strip():
        raise ValueError(f"{what} must be a non-empty string without ':' or surrounding spaces, got {value!r}")


def _check_dim(what: str, value: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"{what} must be a positive int, got {value!r}")


def entry_key(variant: str, a_dtype: str, out_dtype: str, m: int, n: int, k: int) -> str:
    """The table key of a problem: "scaled:int8:bf16:128x4096x4096"."""
    for what, v in (("variant", variant), ("a_dtype", a_dtype), ("out_dtype", out_dtype)):
        _check_name(what, v)
    for what, v in (("m", m), ("n", n), ("k", k)):
        _check_dim(what, v)
    return f"{variant}:{a_dtype}:{out_dtype}:{m}x{n}x{k}"


def _parse_entry_key(key: str) -> Optional[Tuple[str, str, str, int, int, int]]:
    parts = key.split(":")
    if len(parts) != 4:
        return None
    dims = parts[3].split("x")
    if len(dims) != 3 or not all(d.isdigit() for d in dims):
        return None
    m, n, k = (int(d) for d in dims)
    return parts[0], parts[1], parts[2], m, n, k


def _entry_choice(entry) -> Optional[TileChoice]:
    try:
        tile = tuple(int(x) for x in entry["tile"])
        cluster = tuple(int(x) for x in entry["cluster"])
        schedule, stages = entry["schedule"], int(entry["stages"])
        if len(tile) != 3 or len(cluster) != 3 or not isinstance(schedule, str):
            return None
        return TileChoice(tile, cluster, schedule, stages)
    except (KeyError, TypeError, ValueError):
        return None


def _dumps(table: Dict[str, dict], device_key: str) -> str:
    doc = {"format": FORMAT_VERSION, "device": device_key, "entries": table}
    return json.dumps(doc, sort_keys=True, indent=1, allow_nan=False) + "\n"


def autotune_dir() -> Path:
    """Where the winner tables live: ``build.cache_root() / "autotune"``."""
    return build.cache_root() / "autotune"


class Autotuner:
    """Remembers, per device key, the fastest candidate tile of each problem shape.

    `directory` defaults to `autotune_dir()` at construction time."""

    def __init__(self, directory: Optional[Path] = None):
        self.directory = Path(directory) if directory is not None else autotune_dir()
        self._lock = threading.RLock()
        self._tables: Dict[str, Dict[str, dict]] = {}  # device_key -> raw entries, as on disk
        self._memo: Dict[str, Dict[tuple, TileChoice]] = {}  # device_key -> problem tuple -> winner

    # -- files -----------------------------------------------------------------------------------
    def path(self, device_key: str) -> Path:
        if not isinstance(device_key, str) or not _DEVICE_KEY_RE.match(device_key):
            raise ValueError(f"device_key must be filename-safe ([A-Za-z0-9._-], see make_device_key), "
                             f"got {device_key!r}")
        return self.directory / f"{device_key}.json"

    def _lock_for(self, path: Path) -> FileLock:
        return FileLock(str(path.with_suffix(".lock")))

    def _read(self, path: Path) -> Dict[str, dict]:
        try:
            text = path.read_text()
        except FileNotFoundError:
            return {}
        try:
            doc = json.loads(text)
        except ValueError:
            log.warning("cutlass_gemm: ignoring unreadable autotune table %s", path)
            return {}
        if not isinstance(doc, dict) or doc.get("format") != FORMAT_VERSION or not isinstance(doc.get("entries"), dict):
            log.warning("cutlass_gemm: ignoring autotune table %s of another format", path)
            return {}
        return {k: v for k, v in doc["entries"].items() if isinstance(v, dict)}

    def _install(self, device_key: str, table: Dict[str, dict]) -> Dict[tuple, TileChoice]:
        memo = {}
        for key, entry in table.items():
            problem, choice = _parse_entry_key(key), _entry_choice(entry)
            if problem is not None and choice is not None:
                memo[problem] = choice
        self._tables[device_key] = table
        self._memo[device_key] = memo
        return memo

    def _load(self, device_key: str) -> Dict[tuple, TileChoice]:
        with self._lock:
            memo = self._memo.get(device_key)
            if memo is None:
                memo = self._install(device_key, self._read(self.path(device_key)))
            return memo

    def reload(self, device_key: Optional[str] = None) -> None:
        """Drop what this instance has read (for one device, or all), so the next lookup re-reads."""
        with self._lock:
            if device_key is None:
                self._tables.clear()
                self._memo.clear()
            else:
                self._tables.pop(device_key, None)
                self._memo.pop(device_key, None)

    def _store(self, device_key: str, key: str, entry: dict) -> None:
        path = self.path(device_key)
        with self._lock:
            path.parent.mkdir(parents=True, exist_ok=True)
            with self._lock_for(path):
                table = self._read(path)  # what other processes wrote since we last looked
                table[key] = entry
                cache.atomic_write(path, _dumps(table, device_key))
            self._install(device_key, table)

    # -- queries -----------------------------------------------------------------------------------
    def lookup(self, device_key: str, variant: str, a_dtype: str, out_dtype: str,
               m: int, n: int, k: int) -> Optional[TileChoice]:
        """The remembered winner for a problem, or None; never times anything."""
        memo = self._memo.get(device_key)
        if memo is None:
            memo = self._load(device_key)
        return memo.get((variant, a_dtype, out_dtype, m, n, k))

    def table(self, device_key: str) -> Dict[str, dict]:
        """A copy of the raw entries known for a device (as in the file)."""
        with self._lock:
            self._load(device_key)
            return json.loads(json.dumps(self._tables.get(device_key, {})))

    def best(self, device_key: str, variant: str, a_dtype: str, out_dtype: str, m: int, n: int, k: int,
             candidates: Sequence[TileChoice], time_candidate: Callable[[TileChoice], float]) -> TileChoice:
        """The fastest of `candidates` for a problem.

        A remembered winner that is among `candidates` is returned at once. Otherwise every
        candidate is timed once with `time_candidate` (microseconds; an exception, or a negative or
        non-finite result, marks that candidate failed and skips it), the fastest is stored (ties go
        to the earlier candidate) and returned. Raises RuntimeError when every candidate fails
        (nothing is stored then, so a later call tries again)."""
        hit = self.lookup(device_key, variant, a_dtype, out_dtype, m, n, k)
        if hit is not None and hit in candidates:
            return hit
        key = entry_key(variant, a_dtype, out_dtype, m, n, k)
        self.path(device_key)  # validate before spending time on timing
        unique: List[TileChoice] = []
        for c in candidates:
            if not isinstance(c, TileChoice):
                raise TypeError(f"candidates must be TileChoice, got {type(c).__name__}")
            if c not in unique:
                unique.append(c)
        if not unique:
            raise ValueError("best() needs at least one candidate")

        times: Dict[str, Optional[float]] = {}
        failed: Dict[str, str] = {}
        winner: Optional[TileChoice] = None
        winner_us = math.inf
        for c in unique:
            label = candidate_label(c)
            try:
                us = float(time_candidate(c))
                if not math.isfinite(us) or us < 0:
                    raise ValueError(f"timing function returned {us!r}")
            except Exception as e:  # noqa: BLE001 - any failure just disqualifies the candidate
                msg = f"{type(e).__name__}: {e}"
                failed[label] = msg if len(msg) <= _MAX_ERROR_CHARS else msg[:_MAX_ERROR_CHARS] + "..."
                times[label] = None
                log.info("cutlass_gemm: autotune %s on %s: %s failed: %s", key, device_key, label, msg)
                continue
            times[label] = round(us, 4)
            if us < winner_us:
                winner, winner_us = c, us
        if winner is None:
            detail = "; ".join(f"{lbl}: {msg}" for lbl, msg in failed.items())
            raise RuntimeError(f"autotune: all {len(unique)} candidates failed for {key} on {device_key}: {detail}")

        entry = {"tile": list(winner.tile), "cluster": list(winner.cluster), "schedule": winner.schedule,
                 "stages": winner.stages, "times_us": times}
        if failed:
            entry["failed"] = failed
        self._store(device_key, key, entry)
        log.info("cutlass_gemm: autotune %s on %s: %s (%.2f us)", key, device_key, candidate_label(winner), winner_us)
        return winner

    def forget(self, device_key: str) -> None:
        """Delete the remembered winners of a device, on disk and in this instance."""
        path = self.path(device_key)
        with self._lock:
            if path.parent.exists():
                with self._lock_for(path):
                    try:
                        path.unlink()
                    except FileNotFoundError:
                        pass
            self.reload(device_key)


_instances: Dict[Path, Autotuner] = {}
_instances_lock = threading.Lock()


def get_autotuner() -> Autotuner:
    """The process-wide Autotuner for the current `autotune_dir()` (one per directory)."""
    d = autotune_dir()
    inst = _instances.get(d)
    if inst is None:
        with _instances_lock:
            inst = _instances.setdefault(d, Autotuner(d))
    return inst


def time_gpu_us(fn: Callable[[], object], warmup: int = 3, reps: int = 10) -> float:
    """Median GPU time of `fn()` in microseconds, measured with CUDA events on the current stream.

    `fn` must queue its work on the current stream. Each rep is queued behind
    `torch.cuda._sleep` (about a millisecond of GPU spin), so the host has queued the start event,
    `fn`'s launches and the end event before the GPU reaches them: the events time the GPU work,
    not the host's launch latency. Needs a GPU."""
    import torch
    if reps < 1 or warmup < 0:
        raise ValueError(f"need reps >= 1 and warmup >= 0, got reps={reps}, warmup={warmup}")
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(reps):
        start = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        torch.cuda._sleep(1_000_000)
        start.record()
        fn()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end) * 1000.0)  # ms -> us
    return float(statistics.median(times))
