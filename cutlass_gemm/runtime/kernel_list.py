"""Kernel lists: record which kernels a workload loads, and build a list ahead of time in one pool of nvcc jobs.

A kernel outside the prebuilt set compiles on first use, one at a time (30-60 s of nvcc each), inside the call
that needs it. A model that selects forty kernels then waits half an hour on its first run on a new machine. With a
list, the same forty build at once, N nvcc processes side by side, before the model runs:

    CUTLASS_GEMM_RECORD_KERNELS=kernels.txt python serve.py        # once, where it runs: what it loaded
    python tools/generate_kernels.py --compile --list kernels.txt  # any machine with nvcc (no GPU needed)

or from Python: ``prebuild(read_list("kernels.txt"))``. This is the habit of shipping a compile cache's key list
with a deployment (torch.compile's cache artifacts, vLLM's recorded capture sizes): the list names configs, not
binaries, so it holds across nvcc versions, machines and cache folders; each entry builds for the toolchain at hand.

File format: one kernel name per line (any family: scaled GEMM, mixed-input, conv2d, blockwise), sorted and
without repeats when this module writes it; blank lines and ``#`` comments are ignored. Writing merges with what
the file already lists, under a file lock (in the temp folder), by a temporary file and a rename, so concurrent
processes (pytest workers, tensor-parallel ranks) recording into one file lose nothing.
"""
from __future__ import annotations

import atexit
import hashlib
import os
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Dict, Iterable, List, Optional, Sequence, Tuple, Union

from ..errors import InvalidArgumentError
from ..kernels.families import config_from_name
from . import build, cache, loader

#: When set to a file path, every process that loads kernels adds their names to that file at exit.
RECORD_ENV = "CUTLASS_GEMM_RECORD_KERNELS"

PathLike = Union[str, "os.PathLike[str]"]


def loaded_names() -> List[str]:
    """Names of the compiled kernels this process has loaded so far (built, cached or from an installed package
    of prebuilt kernels), sorted. The extension's own kernels (quantization, GEMV, weight-only small-M) are not
    separate libraries and never appear."""
    with loader._lock:
        return sorted({cfg.name for cfg in loader._loaded})


def parse_list(text: str, origin: str = "<list>") -> List[str]:
    """The kernel names of a list's text, in order, without repeats; InvalidArgumentError naming `origin` and the
    line for a name no family spells."""
    names: Dict[str, None] = {}
    for number, line in enumerate(text.splitlines(), 1):
        name = line.split("#", 1)[0].strip()
        if not name:
            continue
        try:
            config_from_name(name)
        except ValueError as exc:
            raise InvalidArgumentError("path", f"{origin}:{number}: {exc}") from None
        names[name] = None
    return list(names)


def read_list(path: PathLike) -> List[str]:
    """The kernel names a list file holds (see the module docstring); InvalidArgumentError for a missing file or
    a bad name (with its line)."""
    path = Path(path)
    try:
        text = path.read_text()
    except OSError as exc:
        raise InvalidArgumentError("path", f"cannot read the kernel list {path}: {exc.strerror or exc}") from None
    return parse_list(text, str(path))


def write_list(path: PathLike, names: Iterable[str], header: str = "", merge: bool = True) -> List[str]:
    """Write `names` to the list file `path` (merged with the names it already holds when `merge`), sorted; the
    file is replaced atomically (temporary file and rename) under a file lock kept in the temp folder. `header`
    lines become ``#`` comments (only when the file is new or not merged: a merge keeps the existing header).
    Returns the names written."""
    path = Path(path)
    wanted = list(dict.fromkeys(names))
    parse_list("\n".join(wanted), "names")  # every name checked before the file is touched
    path.parent.mkdir(parents=True, exist_ok=True)
    with cache.entry_lock(_lock_path(path), what=str(path)):
        comments: List[str] = []
        if merge and path.exists():
            text = path.read_text()
            comments = [line for line in text.splitlines() if line.startswith("#")]
            wanted += parse_list(text, str(path))
        if not comments and header:
            comments = [f"# {line}".rstrip() for line in header.splitlines()]
        final = sorted(set(wanted))
        text = "\n".join(comments + final) + "\n"
        if not path.exists() or path.read_text() != text:  # deterministic: rewritten only when it changes
            cache.atomic_write(path, text)
    return final


def _lock_path(path: Path) -> Path:
    # In the temp folder, keyed by the list's absolute path: a lock file beside the list would be left behind in
    # the user's folder (filelock never deletes one: deleting it races with the next locker).
    key = hashlib.sha256(str(path.resolve()).encode()).hexdigest()[:16]
    return Path(tempfile.gettempdir()) / f"cutlass_gemm-kernel-list-{key}.lock"


def _record_at_exit(path: str) -> None:
    names = loaded_names()
    if names:
        try:
            write_list(path, names, header=f"kernels recorded by {RECORD_ENV} (cutlass_gemm.runtime.kernel_list)")
        except Exception as exc:  # at exit nothing can be raised to the user: say it instead of failing silently
            print(f"cutlass_gemm: could not record the loaded kernels into {path}: {exc}", flush=True)


def install_recorder() -> Optional[str]:
    """Register the at-exit recording when $CUTLASS_GEMM_RECORD_KERNELS names a file (once per process; the
    loader calls this on import). Returns the path, or None when recording is off."""
    path = os.environ.get(RECORD_ENV, "").strip()
    if not path:
        return None
    if path not in _recorders:
        _recorders.add(path)
        atexit.register(_record_at_exit, path)
    return path


_recorders: set = set()


@dataclass
class PrebuildReport:
    """What `prebuild` did: kernels compiled now (name, seconds), already cached, failed (name, message)."""
    built: List[Tuple[str, float]] = field(default_factory=list)
    cached: List[str] = field(default_factory=list)
    failed: List[Tuple[str, str]] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        return not self.failed

    def __str__(self) -> str:
        text = (f"{len(self.built)} kernels built, {len(self.cached)} already cached, {len(self.failed)} failed "
                f"in {self.seconds:.1f} s")
        return text + "".join(f"\n  FAILED {name}: {msg.splitlines()[0] if msg else ''}" for name, msg in self.failed)


def prebuild(kernels: Sequence[Union[str, object]], jobs: Optional[int] = None,
             sources: Optional[Dict[str, str]] = None, progress: bool = True,
             echo: Optional[Callable[[str], None]] = None, packaged: bool = True) -> PrebuildReport:
    """Build every kernel of `kernels` (names or configs, any family) that neither the cache nor an installed package
    of prebuilt kernels holds (what `build.lookup` finds, as the loader would), `jobs` nvcc processes at once
    (default: the CPUs this process may use), and report. `sources` maps a name to the .cu text to build from (the
    committed generated/ file); other kernels are emitted now (needs nvidia-cutlass; one at a time, build._emit).
    A failure is reported and the others go on; nothing is raised for one. Works without a GPU; the cache is the one
    the ops read ($CUTLASS_GEMM_CACHE_DIR), with its per-entry locks, so a concurrent process building the same
    kernel waits for it instead of compiling it twice. `packaged=False`: a kernel only an installed package holds is
    compiled into the cache all the same (tools/package_kernels.py packs what its own cache holds)."""
    configs = []
    for k in kernels:
        configs.append(config_from_name(k) if isinstance(k, str) else k)
    configs = list({c.name: c for c in configs}.values())
    sources = sources or {}
    report = PrebuildReport()
    t0 = time.perf_counter()
    bar = None
    if progress and configs:
        from tqdm import tqdm  # a dependency of the package; imported only when a bar is shown
        bar = tqdm(total=len(configs), desc="nvcc", unit="kernel")
    say = echo or (bar.write if bar is not None else (lambda line: None))
    with ThreadPoolExecutor(max_workers=max(1, jobs or build.default_jobs())) as pool:
        futures = {}
        for c in configs:
            # what the loader would find already (the cache, or an installed package of prebuilt kernels) is not
            # compiled again into the cache
            if packaged and build.lookup(c, sources.get(c.name)) is not None:
                report.cached.append(c.name)
                say(f"  cached  {c.name}")
                if bar is not None:
                    bar.update(1)
                continue
            futures[pool.submit(build.build, c, sources.get(c.name))] = c
        for fut in as_completed(futures):
            cfg = futures[fut]
            try:
                _, seconds = fut.result()
            except Exception as exc:  # every failure reported, not only the first
                report.failed.append((cfg.name, str(exc)))
                say(f"FAILED  {cfg.name}\n{exc}")
            else:
                if seconds:
                    report.built.append((cfg.name, seconds))
                else:
                    report.cached.append(cfg.name)
                say(f"{seconds:6.1f} s  {cfg.name}" if seconds else f"  cached  {cfg.name}")
            if bar is not None:
                bar.update(1)
    if bar is not None:
        bar.close()
    report.built.sort()
    report.cached.sort()
    report.failed.sort()
    report.seconds = time.perf_counter() - t0
    return report
