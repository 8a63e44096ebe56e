"""Run nvcc on one generated kernel source and write one shared library (the step build.py takes under its
lock; build.py owns the cache, keys and metadata).

Two ways, chosen by the source:

* A source carrying ``launcher_text.SPLIT_BUILD_MARKER`` (every SM90 family) is built in two halves that run at
  the same time: the device pass (``-DCG_DEVICE_PASS -cubin``: the kernel, cicc + ptxas) and the host pass
  (``-c``: the launcher; the source hides every line from that compile's own device pass, so it neither parses
  nor instantiates device code). The cubin is then linked into the library as read-only data
  (``cg_cubin_image``, an ``.incbin`` in a two-line assembler stub), which the launcher hands to
  ``cudaLibraryLoadData``. One SM90 kernel on the CPU machine: 24 s device pass, 14 s host pass, against 49-57 s
  for the single nvcc run (whose host pass also instantiated the kernel's device code); on the H100 machine
  29-32 s against 45 s. A bulk build gains nothing (32 kernels 16 at a time: 129 s split, 117 s single runs,
  session 13): the split is for the one kernel a first use waits for.
* Anything else (the SM80 family, several real architectures per library) is one nvcc run, as before.

nvcc always runs in a private folder on relative file names, with an argument list (never a shell string)
and one time limit for the whole build; on expiry every nvcc process group is killed.
"""
from __future__ import annotations

import os
import shutil
import signal
import subprocess
import time
from pathlib import Path
from typing import List, Optional, Sequence, Tuple

from ..errors import BuildError, BuildTimeoutError
from ..kernels.launcher_text import SPLIT_BUILD_MARKER
from . import cache
from .cache import BUILD_TIMEOUT_ENV

#: Flags of the single nvcc run (and, less the linking ones, of the two passes of a split build).
BASE_FLAGS: Tuple[str, ...] = (
    "-std=c++17", "-O3", "-DNDEBUG", "--expt-relaxed-constexpr", "-shared", "-cudart=shared",
    "-Xcompiler=-fPIC,-fvisibility=hidden",
)
_LINK_ONLY = ("-shared", "-cudart=shared")


#: Extra machine-code targets for the SM80 kernel family, as TORCH_CUDA_ARCH_LIST does for torch
#: extensions: e.g. "80,86,90". The default, sm_80 SASS plus compute_80 PTX, runs on every 8.x GPU;
#: adding 90 lets the SM80 kernels run on an H100 without a PTX JIT (how the GPU tests exercise them).
SM80_ARCHS_ENV = "CUTLASS_GEMM_SM80_ARCHS"
#: The same for the SM89 (Ada fp8) kernel family: sm_89 SASS plus compute_89 PTX by default; "89,90" adds sm_90
#: machine code, with which the GPU tests run the family on an H100 / H200 (its mma.sync e4m3 exists there too).
SM89_ARCHS_ENV = "CUTLASS_GEMM_SM89_ARCHS"
#: family SM -> (its variable, the real architectures it may add)
_FAMILY_ARCHS = {80: (SM80_ARCHS_ENV, (80, 86, 87, 89, 90)), 89: (SM89_ARCHS_ENV, (89, 90))}


def family_targets(sm: int) -> Tuple[int, ...]:
    """The real architectures the `sm` (80 or 89) kernel family is compiled for (sorted; always includes `sm`)."""
    env, allowed = _FAMILY_ARCHS[sm]
    text = os.environ.get(env, "").replace(";", ",").replace(" ", ",")
    targets = {sm}
    for item in filter(None, text.split(",")):
        digits = item.replace(".", "")
        if not digits.isdigit() or int(digits) not in allowed:
            raise BuildError(f"{env}={os.environ[env]!r}: {item!r} is not an architecture the SM{sm} kernels "
                             f"compile for ({', '.join(map(str, allowed))}, comma-separated)")
        targets.add(int(digits))
    return tuple(sorted(targets))


def sm80_targets() -> Tuple[int, ...]:
    """The real architectures the SM80 family is compiled for (sorted; always includes 80)."""
    return family_targets(80)


def arch_flags(sm: int) -> Tuple[str, ...]:
    # wgmma/TMA kernels need the arch-specific sm_90a target; older kernels also embed PTX so that
    # newer GPUs can JIT them.
    if sm == 90:
        return ("-gencode=arch=compute_90a,code=sm_90a",)
    real = ",".join(f"sm_{t}" for t in (family_targets(sm) if sm in _FAMILY_ARCHS else (sm,)))
    return (f"-gencode=arch=compute_{sm},code=[{real},compute_{sm}]",)


def default_jobs() -> int:
    """Parallel nvcc processes by default: the CPUs this process may run on (cgroup/affinity-aware)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


def compile_flags(sm: int) -> Tuple[str, ...]:
    return BASE_FLAGS + arch_flags(sm)


def cuda_root() -> Optional[str]:
    """The CUDA toolkit: $CUDA_HOME, then $CUDA_PATH, then the folder of nvcc on PATH, then /usr/local/cuda."""
    for var in ("CUDA_HOME", "CUDA_PATH"):
        root = os.environ.get(var)
        if root and os.path.isfile(os.path.join(root, "bin", "nvcc")):
            return os.path.abspath(root)
    found = shutil.which("nvcc")
    if found:
        return os.path.dirname(os.path.dirname(os.path.realpath(found)))
    return "/usr/local/cuda" if os.path.isfile("/usr/local/cuda/bin/nvcc") else None


def find_nvcc() -> Optional[str]:
    root = cuda_root()
    return os.path.join(root, "bin", "nvcc") if root else None


#: The assembler stub that puts the cubin into the library (hidden: nothing outside it binds to the image).
_IMAGE_STUB = """\
// The kernel's cubin as read-only data of the library (runtime/nvcc.py).
__asm__(".section .rodata\\n.balign 128\\n.globl cg_cubin_image\\n.hidden cg_cubin_image\\n"
        ".type cg_cubin_image, @object\\ncg_cubin_image:\\n.incbin \\"kernel.cubin\\"\\n.byte 0\\n.previous\\n");
"""


def is_split(source_text: str) -> bool:
    """Whether `source_text` is built in two passes (see the module docstring)."""
    return SPLIT_BUILD_MARKER in source_text


def _start(cmd: Sequence[str], cwd: Path, what: str) -> subprocess.Popen:
    env = dict(os.environ, TMPDIR=str(cwd))  # nvcc's intermediate files: in the safe folder too
    try:
        return subprocess.Popen(list(cmd), cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                text=True, start_new_session=True)  # own group: a timeout kills cicc/ptxas too
    except OSError as exc:
        raise BuildError(f"cannot run nvcc ({cmd[0]}) for {what}: {exc}") from exc


def _kill(procs: Sequence[subprocess.Popen]) -> None:
    for proc in procs:
        if proc.poll() is None:
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except OSError:
                pass
    for proc in procs:
        proc.communicate()


def _finish(procs: Sequence[subprocess.Popen], what: str, timeout: float, t0: float) -> List[Tuple[int, str]]:
    """Wait for every process under one deadline; [(returncode, stderr)] in order. Any failure to wait (the
    deadline, an interrupt) kills them all."""
    results = []
    try:
        for proc in procs:
            left = None if timeout == float("inf") else max(0.0, timeout - (time.perf_counter() - t0))
            _, err = proc.communicate(timeout=left)
            results.append((proc.returncode, err))
    except BaseException as exc:
        _kill(procs)
        if isinstance(exc, subprocess.TimeoutExpired):
            raise BuildTimeoutError(f"nvcc ran past {timeout:g} s building {what} and was killed; raise "
                                    f"{BUILD_TIMEOUT_ENV} (seconds; 0 = no limit) if the machine is just slow") \
                from None
        raise
    return results


def rpath_flags(nvcc: str) -> Tuple[str, ...]:
    # Where this toolkit's libcudart lives, for processes that have not loaded one of the same major
    # version (torch built for another CUDA). Not part of the cache key, like the include paths: it
    # changes where the runtime is looked up, not the code.
    root = Path(nvcc).resolve().parent.parent
    for lib in (root / "lib64", root / "targets" / "x86_64-linux" / "lib", root / "lib"):
        if any(lib.glob("libcudart.so*")) and cache.is_safe_path(str(lib)) and "," not in str(lib):
            return (f"-Xlinker=-rpath,{lib}",)
    return ()


def _failed(what: str, step: str, code: int, cmd: Sequence[str], work: Path, err: str) -> BuildError:
    return BuildError(f"nvcc failed ({code}) for {what} ({step}):\n(in {work}) {' '.join(cmd)}\n{err[-6000:]}")


def compile_in(work: Path, source_text: str, flags: Sequence[str], includes: Sequence[str], nvcc: str, what: str,
               timeout: float) -> Path:
    """Build `source_text` in the private folder `work`; returns the library's path there."""
    (work / "kernel.cu").write_text(source_text)
    inc = [f"-I{d}" for d in includes]
    rpath = list(rpath_flags(nvcc))
    t0 = time.perf_counter()
    if not is_split(source_text):
        cmd = [nvcc, *flags, *inc, *rpath, "kernel.cu", "-o", "kernel.so"]
        (code, err), = _finish([_start(cmd, work, what)], what, timeout, t0)
        if code != 0 or not (work / "kernel.so").is_file():
            raise _failed(what, "single pass", code, cmd, work, err)
        return work / "kernel.so"
    cflags = [f for f in flags if f not in _LINK_ONLY]
    device = [nvcc, *cflags, *inc, "-DCG_DEVICE_PASS", "-cubin", "kernel.cu", "-o", "kernel.cubin"]
    host = [nvcc, *cflags, *inc, "-c", "kernel.cu", "-o", "kernel.o"]
    procs = [_start(device, work, what)]
    try:
        procs.append(_start(host, work, what))
    except BaseException:
        _kill(procs)
        raise
    for (code, err), cmd, step, out in zip(_finish(procs, what, timeout, t0), (device, host),
                                           ("device pass", "host pass"), ("kernel.cubin", "kernel.o")):
        if code != 0 or not (work / out).is_file():
            raise _failed(what, step, code, cmd, work, err)
    (work / "image.cpp").write_text(_IMAGE_STUB)
    link = [nvcc, *[f for f in flags if f.startswith("-Xcompiler")], *_LINK_ONLY, *rpath, "kernel.o", "image.cpp",
            "-o", "kernel.so"]
    (code, err), = _finish([_start(link, work, what)], what, timeout, t0)
    if code != 0 or not (work / "kernel.so").is_file():
        raise _failed(what, "link", code, link, work, err)
    return work / "kernel.so"


def compile_source(source_path: Path, out_path: Path, sm: int, *, nvcc: Optional[str] = None,
                   timeout: Optional[float] = None) -> float:
    """nvcc source -> shared library at out_path (written atomically). Returns seconds taken."""
    from ..kernels.emit import cutlass_include_dirs
    nvcc = nvcc or find_nvcc()
    name = Path(source_path).name
    if not nvcc:
        raise BuildError(f"nvcc not found for {name}: install the CUDA toolkit or set CUDA_HOME (or CUDA_PATH)")
    try:
        includes = cutlass_include_dirs()
    except Exception as exc:
        raise BuildError(f"the CUTLASS headers (nvidia-cutlass) are needed to compile {name}: {exc}") from exc
    for path in [nvcc, *includes]:
        if not cache.is_safe_path(path):
            raise BuildError(f"refusing to run nvcc with the path {path!r}: nvcc passes paths through a shell and "
                             f"this one has shell metacharacters")
    timeout = cache.build_timeout() if timeout is None else timeout
    try:
        text = Path(source_path).read_text()
    except OSError as exc:
        raise BuildError(f"cannot read the source {source_path}: {exc}") from exc
    out_path = Path(out_path)
    work = cache.work_dir(out_path.parent)
    try:
        t0 = time.perf_counter()
        built = compile_in(work, text, compile_flags(sm), includes, nvcc, name, timeout)
        elapsed = time.perf_counter() - t0
        try:
            cache.install(built, out_path)
        except OSError as exc:
            raise cache.cache_error(exc, f"installing {out_path.name}") from exc
        return elapsed
    finally:
        shutil.rmtree(work, ignore_errors=True)
