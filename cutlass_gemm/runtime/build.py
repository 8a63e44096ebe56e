"""Compile generated kernels with nvcc into shared libraries, and keep them in a verified disk cache.

Each library holds one kernel and its C-ABI launcher and links the shared CUDA runtime (the one torch
has already loaded, or the toolkit's, found through an rpath; the loader falls back to
cuda.pathfinder): ~90 KB per kernel instead of ~1 MB with the static runtime. It includes no torch
headers and needs no libcuda at link time (CUTLASS reaches the driver through
cudaGetDriverEntryPoint), so it builds on any machine with nvcc, CI included.

Cache key and verification (cache.py has the layout):

* The file name is ``<kernel name>-<key>.so`` with key = hash(config name, GENERATOR_VERSION, CUTLASS
  version, nvcc version, compile flags incl. the target arch). It deliberately does not hash the
  source text, so a machine without nvidia-cutlass (which cannot emit sources) still finds a
  prebuilt kernel by its config and toolchain.
* The source is pinned by the metadata instead: ``<name>-<key>.json`` records the sha256 of the
  exact .cu text compiled, a fingerprint of the generator code (kernels/emit.py, epilogues.py,
  config.py, _cuda_compat.py, the CUTLASS version) and the size and sha256 of the .so.
* Before every dlopen the .so's size and sha256 must match its metadata (a truncated, empty,
  random or foreign file is never loaded: no SIGBUS, no foreign constructors). A mismatch moves
  the file aside into ``quarantine/`` with a warning; it is then rebuilt (once) where possible.
* The recorded source must be the current one: ``build(cfg, source)`` compares it with the given
  text (a different text rebuilds the entry in place). ``lookup``/``build(cfg)`` without a source
  accept a record made by the same generator fingerprint (emission is deterministic); otherwise
  they compare with a fresh emission when nvidia-cutlass is installed, else with the sha256 in
  ``generated/sm<NN>/manifest.json`` when it lists the kernel, else (run-only install, nothing to
  compare with) accept the verified artifact. A stale record is rebuilt, or reported not built.
* Builds: per-entry file lock (``CUTLASS_GEMM_LOCK_TIMEOUT``), re-check after taking it, the
  "building" announcement only then, nvcc in a private ``.build-<host>-<pid>-<rand>`` folder with
  relative file names and an argument list (never a shell string; a cache path with shell
  metacharacters builds in the system temp folder instead, since nvcc's internal shell would
  interpret it), a time limit (``CUTLASS_GEMM_BUILD_TIMEOUT``; the whole nvcc process group is
  killed), an atomic rename into place, and a sweep of temp folders whose owner died or that are
  older than an hour.
"""
from __future__ import annotations

import functools
import hashlib
import importlib.util
import json
import logging
import re
import shutil
import subprocess
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Optional, Tuple

from ..kernels.config import KernelConfig
from ..kernels.families import family_of
from ..errors import BuildError, BuildTimeoutError, CacheDirError
from . import cache, prebuilt
from .cache import BUILD_TIMEOUT_ENV, CACHE_ENV, LOCK_TIMEOUT_ENV, cache_root  # noqa: F401  (re-exported)
from .nvcc import (BASE_FLAGS, SM80_ARCHS_ENV, SM89_ARCHS_ENV, arch_flags, compile_flags, compile_source,  # noqa: F401
                   cuda_root, default_jobs, family_targets, find_nvcc, sm80_targets)

log = logging.getLogger("cutlass_gemm")

ROOT = Path(__file__).resolve().parents[2]
GENERATED = ROOT / "generated"

def nvcc_version(nvcc: Optional[str] = None) -> Optional[str]:
    return _nvcc_version(nvcc or find_nvcc())


@functools.lru_cache(maxsize=None)
def _nvcc_version(nvcc: Optional[str]) -> Optional[str]:
    if not nvcc:
        return None
    try:
        out = subprocess.run([nvcc, "--version"], capture_output=True, text=True, timeout=60).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    m = re.search(r"release (\d+\.\d+), V([\d.]+)", out)
    return m.group(2) if m else None


@functools.lru_cache(maxsize=None)
def _cutlass_version() -> str:
    from importlib.metadata import PackageNotFoundError, version
    try:
        return version("nvidia-cutlass")
    except PackageNotFoundError:  # a run-only install with prebuilt kernels
        return "none"


def can_emit() -> bool:
    """Whether kernel sources can be emitted here (nvidia-cutlass installed)."""
    return _cutlass_version() != "none" and importlib.util.find_spec("cutlass_cppgen") is not None


def _generator_version(cfg) -> str:
    """The generator version of `cfg`'s family (recorded in the metadata and the manifests)."""
    return family_of(cfg).generator_version()


#: Emission runs one config at a time per process: the emitters drive cutlass_cppgen, whose tracing is not
#: thread-safe. Compiles (the long part) still run side by side: build() holds this lock only while emitting.
_EMIT_LOCK = threading.Lock()


def _emit(cfg) -> str:
    """The source text of `cfg`, from its family's emitter."""
    with _EMIT_LOCK:
        return family_of(cfg).emit(cfg)


def generator_fingerprint(cfg=None) -> str:
    """Hash of the code that writes kernel sources of `cfg`'s family (None: the scaled GEMMs): equal
    fingerprints emit equal text per config. Per family, so editing one family's emitter leaves the
    other family's records valid."""
    fam = family_of(cfg)
    return _fingerprint(fam.name, fam.generator_version(), fam.generator_files)


@functools.lru_cache(maxsize=None)
def _fingerprint(family: str, version: str, files: Tuple[str, ...]) -> str:
    h = hashlib.sha256(f"gen={version}|cutlass={_cutlass_version()}".encode())
    kernels = Path(__file__).resolve().parents[1] / "kernels"
    for name in files:
        h.update(name.encode() + b"\0" + (kernels / name).read_bytes())
    return h.hexdigest()[:20]


def source_sha256(source: str) -> str:
    return hashlib.sha256(source.encode()).hexdigest()


def manifest_sha256(cfg: KernelConfig, generated: Optional[Path] = None) -> Optional[str]:
    """sha256 of `cfg`'s source as listed in its family's generated/<folder>/manifest.json, if listed."""
    path = Path(generated or GENERATED) / family_of(cfg).generated_subdir(cfg) / "manifest.json"
    try:
        st = path.stat()
    except OSError:
        return None
    data = _read_manifest(str(path), st.st_mtime_ns, st.st_size)
    if not data or data.get("generator") != _generator_version(cfg):
        return None
    entry = (data.get("kernels") or {}).get(cfg.name) or {}
    return entry.get("sha256") if isinstance(entry.get("sha256"), str) else None


@functools.lru_cache(maxsize=8)
def _read_manifest(path: str, mtime_ns: int, size: int) -> Optional[dict]:
    try:
        data = json.loads(Path(path).read_text())
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


@dataclass(frozen=True)
class CacheEntry:
    config: KernelConfig
    key: str
    path: Path

    @property
    def lock_path(self) -> Path:
        return self.path.with_suffix(".lock")

    @property
    def meta_path(self) -> Path:
        return cache.metadata_path(self.path)


def cache_entry(cfg: KernelConfig, nvcc_ver: Optional[str] = None) -> CacheEntry:
    nvcc_ver = nvcc_ver or nvcc_version() or "none"
    key = cfg.cache_key(cutlass_version=_cutlass_version(), nvcc_version=nvcc_ver, flags=compile_flags(cfg.sm))
    return CacheEntry(cfg, key, cache_root() / f"sm{cfg.sm}" / f"{cfg.name}-{key}.so")


# ---------------------------------------------------------------------------------------- lookup
def _refresh_fingerprint(path: Path, cfg: KernelConfig, sha: str) -> None:
    """Record the current generator on an artifact whose source a fresh emission confirmed, so that
    later lookups need not emit again (best effort; skipped when the entry is locked)."""
    try:
        with cache.entry_lock(path.with_suffix(".lock"), timeout=0):
            meta, _ = cache.verify(path, cfg.name)
            if meta is not None and meta.get("source_sha256") == sha:
                meta["generator_fingerprint"] = generator_fingerprint(cfg)
                cache.atomic_write(cache.metadata_path(path), json.dumps(meta, indent=1, sort_keys=True))
    except (BuildError, OSError):
        pass


def _source_current(cfg: KernelConfig, meta: dict, want: Optional[str], path: Optional[Path] = None) -> bool:
    """Whether the source recorded in `meta` is the one `cfg` compiles from now (see the docstring)."""
    recorded = meta.get("source_sha256")
    if want is not None:
        return recorded == want
    if meta.get("generator_fingerprint") == generator_fingerprint(cfg):
        return True
    if can_emit():
        try:
            fresh = source_sha256(_emit(cfg))
        except BuildError as exc:
            log.warning("cutlass_gemm: cannot emit %s to check its cached build (%s)", cfg.name, exc)
        else:
            if recorded == fresh and path is not None:
                _refresh_fingerprint(path, cfg, fresh)
            return recorded == fresh
    expected = manifest_sha256(cfg)
    return expected is None or recorded == expected


STALE_SOURCE = "built from another source text"


def _check(entry: CacheEntry, want: Optional[str], *, locked: bool) -> Tuple[Optional[dict], str]:
    """(metadata, "") for a verified, current artifact at the entry; else (None, why), quarantining a
    bad one. Without the entry lock (`locked` False) a bad file is left for a locked re-check: a
    build may be between renaming the library and its metadata."""
    meta, why = cache.verify(entry.path, entry.config.name)
    if meta is None:
        if why and locked:
            cache.quarantine(entry.path, why)
        return None, why
    if not _source_current(entry.config, meta, want, entry.path):
        return None, STALE_SOURCE
    return meta, ""


def _verified_lookup(entry: CacheEntry, want: Optional[str]) -> Optional[Path]:
    meta, why = _check(entry, want, locked=False)
    if meta is not None:
        return entry.path
    if why and why != STALE_SOURCE:
        try:  # re-check under the lock, then quarantine; a build in progress means "not yet"
            with cache.entry_lock(entry.lock_path, timeout=0):
                meta, _ = _check(entry, want, locked=True)
        except (BuildTimeoutError, CacheDirError):
            return None
        if meta is not None:
            return entry.path
    return None


def _newest_verified(directory: Path, cfg: KernelConfig, want: Optional[str], *, writable: bool) -> Optional[Path]:
    """The newest artifact of `cfg` in `directory`, by any nvcc, that verifies, was compiled with this
    machine's flags and from the current source; None if none."""
    best, best_time = None, -1.0
    for path in directory.glob(f"{cfg.name}-*.so"):
        meta, _ = cache.verify(path, cfg.name)
        if meta is None or meta.get("flags") != list(compile_flags(cfg.sm)):
            continue
        if not _source_current(cfg, meta, want, path if writable else None):
            continue
        built = float(meta.get("built_at") or 0.0)
        if built > best_time:
            best, best_time = path, built
    return best


def lookup(cfg: KernelConfig, source: Optional[str] = None) -> Optional[Path]:
    """The verified cached library for `cfg` built by this toolchain from the current source; else one
    from an installed package of prebuilt kernels (prebuilt.py; any nvcc, same flags and source); else,
    when this machine cannot build (no nvcc or no nvidia-cutlass), the newest verified build of `cfg`
    in the cache by any nvcc with the same flags. None if there is none (never builds)."""
    want = None if source is None else source_sha256(source)
    found = _verified_lookup(cache_entry(cfg), want)
    if found is not None:
        return found
    for directory in prebuilt.kernel_dirs(cfg.sm):
        found = _newest_verified(directory, cfg, want, writable=False)
        if found is not None:
            return found
    if nvcc_version() is not None and _cutlass_version() != "none":
        return None
    return _newest_verified(cache_root() / f"sm{cfg.sm}", cfg, want, writable=True)


# ---------------------------------------------------------------------------------------- build
def build(cfg: KernelConfig, source: Optional[str] = None, *,
          announce: Optional[Callable[[KernelConfig], None]] = None) -> Tuple[Path, float]:
    """Make sure `cfg` is in the cache, built from the current source; return (path, build seconds;
    0.0 when it was cached).

    `source` is the emitted .cu text; when None, a cached build of the current generator is accepted
    as is, else the source is emitted now (needs nvidia-cutlass). `announce(cfg)` is called only by
    the process that really compiles, after it took the lock and re-checked the cache."""
    entry = cache_entry(cfg)
    want = None if source is None else source_sha256(source)
    if _check(entry, want, locked=False)[0] is not None:
        return entry.path, 0.0
    if source is None:
        source = _emit(cfg)  # BuildError naming the kernel on failure
        want = source_sha256(source)
        if _check(entry, want, locked=False)[0] is not None:
            return entry.path, 0.0
    directory = cache.ensure_dir(entry.path.parent)
    with cache.entry_lock(entry.lock_path, what=cfg.name):
        meta, why = _check(entry, want, locked=True)  # another process may have built it meanwhile
        if meta is not None:
            return entry.path, 0.0
        if why == STALE_SOURCE:
            log.info("cutlass_gemm: %s was built from another source; rebuilding", cfg.name)
        cache.sweep(directory)
        if not cache.is_safe_path(directory):  # its builds run in the system temp folder
            cache.sweep(Path(cache.tempfile.gettempdir()), ours_only=True)
        if announce is not None:
            announce(cfg)
        log.info("cutlass_gemm: compiling %s", cfg.name)
        elapsed = _build_locked(entry, source, want)
        log.info("cutlass_gemm: compiled %s in %.1f s", cfg.name, elapsed)
        return entry.path, elapsed


def _build_locked(entry: CacheEntry, source: str, want: str) -> float:
    cfg = entry.config
    work = cache.work_dir(entry.path.parent)
    try:
        try:
            src = work / f"{cfg.name}.cu"
            src.write_text(source)
        except OSError as exc:
            raise cache.cache_error(exc, f"writing the source of {cfg.name}") from exc
        staged = work / "out.so"
        elapsed = compile_source(src, staged, cfg.sm)
        try:
            size, digest = cache.file_digest(staged)
        except OSError as exc:
            raise BuildError(f"cannot read the library nvcc wrote for {cfg.name}: {exc}") from exc
        if size == 0:
            raise BuildError(f"nvcc produced an empty library for {cfg.name}")
        meta = {"format": cache.METADATA_FORMAT, "name": cfg.name, "config": cfg.to_dict(), "key": entry.key,
                "generator": _generator_version(cfg), "generator_fingerprint": generator_fingerprint(cfg),
                "cutlass": _cutlass_version(), "nvcc": nvcc_version(), "flags": list(compile_flags(cfg.sm)),
                "source_sha256": want, "so_size": size, "so_sha256": digest,
                "compile_seconds": round(elapsed, 1), "built_at": time.time()}
        try:
            cache.install(staged, entry.path)
            cache.atomic_write(entry.meta_path, json.dumps(meta, indent=1, sort_keys=True))
        except OSError as exc:
            raise cache.cache_error(exc, f"installing {entry.path.name}") from exc
    finally:
        shutil.rmtree(work, ignore_errors=True)
    meta, why = cache.verify(entry.path, cfg.name)
    if meta is None:  # rebuilt once; never loop
        cache.quarantine(entry.path, why)
        raise BuildError(f"the library just built for {cfg.name} failed verification ({why})")
    return elapsed
