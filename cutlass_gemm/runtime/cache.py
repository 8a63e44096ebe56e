"""The on-disk kernel cache: where it is, how an artifact is verified, locked, quarantined and swept.

Layout under the root (``$CUTLASS_GEMM_CACHE_DIR``, default ``$XDG_CACHE_HOME/cutlass_gemm`` or
``~/.cache/cutlass_gemm``)::

    sm90/<kernel name>-<key>.so      the library
    sm90/<kernel name>-<key>.json    its metadata: size and sha256 of the .so, sha256 of the source
    sm90/<kernel name>-<key>.lock    the entry's file lock
    sm90/quarantine/                 artifacts that failed verification, renamed aside
    sm90/.build-<host>-<pid>-<rand>/ a build in progress (swept when its owner died or it is old)

An artifact is used only after its size and sha256 match the metadata (checked before dlopen, so a
truncated, empty or foreign file is never loaded). See build.py for the key and the source check.
"""
from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import socket
import tempfile
import threading
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Dict, Iterator, Optional, Tuple

from ..errors import BuildTimeoutError, CacheDirError, warn_user

CACHE_ENV = "CUTLASS_GEMM_CACHE_DIR"
LOCK_TIMEOUT_ENV = "CUTLASS_GEMM_LOCK_TIMEOUT"
BUILD_TIMEOUT_ENV = "CUTLASS_GEMM_BUILD_TIMEOUT"
DEFAULT_BUILD_TIMEOUT = 1800.0  # one SM90 kernel takes 60-75 s on one core; leave room for a loaded machine
METADATA_FORMAT = 2
#: Temporary folders and files younger than this are never swept (unless their owner is known dead).
STALE_SECONDS = 3600.0

_TEMP_PREFIXES = (".build-", ".src-", ".tmp-")
#: Characters allowed in a path handed to nvcc: it runs its sub-steps through a shell, so `$(...)`,
#: backticks, quotes, spaces and the like in a path would be interpreted (and `$(cmd)` executed).
_SAFE_PATH = re.compile(r"^[A-Za-z0-9_./+,@=:-]*$")

_resolved: Dict[str, Path] = {}
_resolved_lock = threading.Lock()


def _timeout_env(var: str, default: float) -> float:
    raw = os.environ.get(var)
    if raw is None or raw.strip() == "":
        return default
    try:
        value = float(raw)
    except ValueError:
        raise CacheDirError(f"{var}={raw!r} is not a number of seconds") from None
    return value if value > 0 else float("inf")  # 0 or negative: no limit


def build_timeout() -> float:
    """Seconds one nvcc run may take ($CUTLASS_GEMM_BUILD_TIMEOUT; default 1800; <= 0: no limit)."""
    return _timeout_env(BUILD_TIMEOUT_ENV, DEFAULT_BUILD_TIMEOUT)


def lock_timeout() -> float:
    """Seconds to wait for another process's build of the same kernel ($CUTLASS_GEMM_LOCK_TIMEOUT;
    default: the build timeout plus five minutes)."""
    return _timeout_env(LOCK_TIMEOUT_ENV, build_timeout() + 300.0)


def cache_root() -> Path:
    """The cache folder, always absolute. A relative $CUTLASS_GEMM_CACHE_DIR is resolved against the
    working directory once, at its first use in this process, so later chdir() calls do not move it."""
    env = os.environ.get(CACHE_ENV)
    if env:
        raw = env
    else:
        base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
        raw = os.path.join(base, "cutlass_gemm")
    hit = _resolved.get(raw)
    if hit is None:
        with _resolved_lock:
            hit = _resolved.get(raw)
            if hit is None:
                hit = _resolved[raw] = Path(os.path.abspath(os.path.expanduser(raw)))
    return hit


def is_safe_path(path) -> bool:
    return bool(_SAFE_PATH.match(str(path)))


def ensure_dir(path: Path) -> Path:
    """Create `path` (and parents) and check it is writable; CacheDirError naming the env var if not."""
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise CacheDirError(f"cannot create the kernel cache folder {path} ({exc.strerror or exc}); set "
                            f"{CACHE_ENV} to a writable folder") from exc
    if not os.access(path, os.W_OK | os.X_OK):
        raise CacheDirError(f"the kernel cache folder {path} is not writable; set {CACHE_ENV} to a "
                            f"writable folder")
    return path


def cache_error(exc: OSError, what: str) -> CacheDirError:
    return CacheDirError(f"{what} in the kernel cache failed ({exc.strerror or exc}); set {CACHE_ENV} "
                         f"to a writable folder")


# ---------------------------------------------------------------------------------------- files
def file_digest(path: Path) -> Tuple[int, str]:
    """(size, sha256 hex) of a file."""
    h = hashlib.sha256()
    size = 0
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
            size += len(block)
    return size, h.hexdigest()


@contextmanager
def _replacing(path: Path) -> Iterator[Path]:
    """A temporary file beside `path` for the caller to fill; renamed onto `path` when the block ends, removed if
    it raises (readers see the old file or the whole new one, never a partial one)."""
    fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=path.parent)
    os.close(fd)
    try:
        yield Path(tmp)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def atomic_write(path: Path, text: str) -> None:
    """Write `text` to `path` by a temporary file and a rename."""
    with _replacing(path) as tmp:
        tmp.write_text(text)


def metadata_path(artifact: Path) -> Path:
    return artifact.with_suffix(".json")


def read_metadata(artifact: Path) -> Optional[dict]:
    try:
        meta = json.loads(metadata_path(artifact).read_text())
    except (OSError, ValueError):
        return None
    return meta if isinstance(meta, dict) else None


# (path, st_size, st_mtime_ns, st_ino) -> sha256: hashing once per file per process is enough.
_digests: Dict[tuple, str] = {}


def verify(artifact: Path, name: str) -> Tuple[Optional[dict], str]:
    """(metadata, "") when `artifact` exists and matches its metadata (size, sha256, kernel name);
    (None, reason) otherwise; reason "" means the artifact is simply absent."""
    try:
        st = artifact.stat()
    except OSError:
        return None, ""
    meta = read_metadata(artifact)
    if meta is None:
        return None, "no readable metadata"
    if meta.get("format") != METADATA_FORMAT or not isinstance(meta.get("so_sha256"), str):
        return None, "metadata of an older format (no checksum)"
    if meta.get("name") != name:
        return None, f"metadata names kernel {meta.get('name')!r}"
    if st.st_size != meta.get("so_size"):
        return None, f"size {st.st_size} bytes, metadata says {meta.get('so_size')}"
    stamp = (str(artifact), st.st_size, st.st_mtime_ns, st.st_ino)
    digest = _digests.get(stamp)
    if digest is None:
        try:
            digest = file_digest(artifact)[1]
        except OSError as exc:
            return None, f"unreadable ({exc})"
        _digests[stamp] = digest
    if digest != meta["so_sha256"]:
        return None, "sha256 differs from the metadata"
    return meta, ""


def quarantine(artifact: Path, reason: str) -> Optional[Path]:
    """Rename a bad artifact (and its metadata) aside into `quarantine/`, with a warning. Returns the
    new path, or None when nothing was moved (already gone, or the cache is read-only)."""
    qdir = artifact.parent / "quarantine"
    stamp = time.strftime("%Y%m%d-%H%M%S")
    target = qdir / f"{artifact.name}.{stamp}-{os.getpid()}"
    try:
        qdir.mkdir(exist_ok=True)
        os.replace(artifact, target)
    except FileNotFoundError:
        return None
    except OSError as exc:
        warn_user(f"cutlass_gemm: kernel library {artifact} is bad ({reason}) and could not be moved "
                  f"aside ({exc}); it is not used", RuntimeWarning)
        return None
    try:
        os.replace(metadata_path(artifact), target.with_name(target.name + ".json"))
    except OSError:
        pass
    warn_user(f"cutlass_gemm: kernel library {artifact.name} failed verification ({reason}); moved to "
              f"{target} and not loaded", RuntimeWarning)
    return target


# ---------------------------------------------------------------------------------------- temp folders
def _host_tag() -> str:
    return hashlib.sha256(socket.gethostname().encode()).hexdigest()[:8]


def temp_prefix(kind: str = "build") -> str:
    """Prefix of a temporary folder owned by this process: .<kind>-<host>-<pid>-"""
    return f".{kind}-{_host_tag()}-{os.getpid()}-"


def _owner_dead(name: str) -> bool:
    parts = name.split("-")
    if len(parts) < 4 or parts[1] != _host_tag() or not parts[2].isdigit():
        return False
    pid = int(parts[2])
    if pid == os.getpid():
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except OSError:  # exists, owned by someone else
        return False
    return False


_OURS = re.compile(r"^\.build-[0-9a-f]{8}-\d+-")


def sweep(directory: Path, max_age: Optional[float] = None, *, ours_only: bool = False) -> int:
    """Remove temporary build folders/files left by killed builds: those whose owner process (same
    host) is dead, and any older than `max_age` seconds (default max(1 h, 2 x the build timeout)).
    `ours_only` (for a shared folder such as the system temp) considers only names this module makes.
    Returns the number removed."""
    if max_age is None:
        max_age = max(STALE_SECONDS, 2 * min(build_timeout(), 10 * STALE_SECONDS))
    removed = 0
    now = time.time()
    try:
        entries = list(os.scandir(directory))
    except OSError:
        return 0
    for e in entries:
        if not e.name.startswith(_TEMP_PREFIXES) or (ours_only and not _OURS.match(e.name)):
            continue
        try:
            old = now - e.stat(follow_symlinks=False).st_mtime > max_age
        except OSError:
            continue
        if not (old or _owner_dead(e.name)):
            continue
        try:
            if e.is_dir(follow_symlinks=False):
                shutil.rmtree(e.path)
            else:
                os.unlink(e.path)
            removed += 1
        except OSError:
            pass
    return removed


def work_dir(near: Path) -> Path:
    """A fresh private build folder with a shell-safe path: next to `near` when that path is safe
    (same filesystem: the result is renamed into place), else in the system temp folder."""
    parent = near if is_safe_path(near) else Path(tempfile.gettempdir())
    if not is_safe_path(parent):
        raise CacheDirError(f"neither the cache folder {near} nor the temp folder {parent} is a path nvcc can be "
                            f"given safely (shell metacharacters); set {CACHE_ENV} or TMPDIR to a plain path")
    try:
        return Path(tempfile.mkdtemp(prefix=temp_prefix("build"), dir=parent))
    except OSError as exc:
        raise cache_error(exc, f"creating a build folder in {parent}") from exc


def install(staged: Path, target: Path) -> None:
    """Atomically put `staged` at `target` (copying first when they are on different filesystems)."""
    try:
        os.replace(staged, target)
        return
    except OSError:
        pass
    with _replacing(target) as tmp:
        shutil.copyfile(staged, tmp)


# ---------------------------------------------------------------------------------------- locks
@contextmanager
def entry_lock(lock_path: Path, timeout: Optional[float] = None, what: str = "") -> Iterator[None]:
    """Hold the entry's file lock; BuildTimeoutError after `timeout` seconds (default lock_timeout())."""
    from filelock import FileLock, Timeout
    timeout = lock_timeout() if timeout is None else timeout
    lock = FileLock(str(lock_path), timeout=-1 if timeout == float("inf") else timeout)
    try:
        lock.acquire()
    except Timeout:
        raise BuildTimeoutError(
            f"waited {timeout:g} s for the build lock {lock_path}{' of ' + what if what else ''}: another process "
            f"holds it (a build still running, or a hung one); raise {LOCK_TIMEOUT_ENV} or remove the "
            f"process") from None
    except OSError as exc:
        raise cache_error(exc, f"creating the lock {lock_path}") from exc
    try:
        yield
    finally:
        lock.release()
