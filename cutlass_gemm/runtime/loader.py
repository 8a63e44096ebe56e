"""Load compiled kernel libraries and find (or build) the one a config names.

A library exports a C ABI (see `emit.py`): `cg_launch` takes raw pointers, sizes, leading
dimensions and a stream, and builds the CUTLASS arguments itself, so a call from Python is one
ctypes call with integers.
"""
from __future__ import annotations

import ctypes
import os
import sys
import threading
import time
from pathlib import Path
from typing import Dict, Optional

from . import build
from ..kernels import heuristics
from ..kernels.config import KernelConfig
from ..kernels.emit import GEMM_LAUNCHER_ABI_VERSION, scalar_scales_served
from ..kernels.emit_conv import CONV_LAUNCHER_ABI_VERSION
from ..kernels.launcher_text import LAUNCHER_ABI_VERSION
from ..kernels.families import family_of
from ..errors import CudaRuntimeNotFoundError, KernelLaunchError, KernelNotBuiltError

JIT_ENV = "CUTLASS_GEMM_JIT"

_P = ctypes.c_void_p
_I = ctypes.c_int64
#: cg_launch of the scaled GEMMs (and the extension's GEMV): ..., stream, scale_flags (epilogues.SCALE_A_SCALAR | ...),
#: m_padded (the rows A holds beyond the m rows of d stored; 0: m)
_LAUNCH_ARGTYPES = [_P, _P, _P, _I, _I, _I, _I, _I, _I, _P, _P, _P, _P, _P, _P, _P, ctypes.c_size_t, _P, ctypes.c_int,
                    _I]


def _dlopen_kernel(path: Path) -> ctypes.CDLL:
    """dlopen a kernel library. It links the shared CUDA runtime: usually the copy torch loaded, else
    its toolkit's through the rpath; failing both, cuda.pathfinder loads one (a pip wheel or
    CUDA_HOME) globally and we try once more."""
    try:
        return ctypes.CDLL(str(path), mode=os.RTLD_LOCAL)
    except OSError as exc:
        if "libcudart" not in str(exc):
            raise
        first = exc
    try:
        from cuda.pathfinder import load_nvidia_dynamic_lib  # noqa: PLC0415 (only needed on this path)
        load_nvidia_dynamic_lib("cudart")
        return ctypes.CDLL(str(path), mode=os.RTLD_LOCAL)
    except Exception as exc:  # pathfinder's own errors, or a runtime of another major version
        raise CudaRuntimeNotFoundError(
            f"{path.name} needs the CUDA runtime it was compiled against and none could be loaded: {first}; "
            f"cuda.pathfinder: {exc}. Install the matching nvidia-cuda-runtime wheel or set CUDA_HOME / "
            f"LD_LIBRARY_PATH to that toolkit") from exc


class KernelLibrary:
    """One compiled kernel. `launch` is the hot path: a single ctypes call."""

    def __init__(self, config: KernelConfig, path: Path):
        """dlopen a library that `build` verified (size and sha256 against its metadata) and check
        that it is this kernel with this launcher ABI; KernelNotBuiltError otherwise."""
        self.config = config
        self.path = Path(path)
        try:
            lib = _dlopen_kernel(Path(path))
            lib.cg_abi_version.restype = ctypes.c_int
            lib.cg_kernel_name.restype = ctypes.c_char_p
            lib.cg_last_error.restype = ctypes.c_char_p
            for entry in self._ENTRIES:  # every entry point must exist (AttributeError otherwise)
                getattr(lib, entry)
        except (OSError, AttributeError) as exc:
            raise KernelNotBuiltError(f"{path} is not a loadable cutlass_gemm kernel library ({exc}); rebuild "
                                      f"it: {build_command(config)}") from exc
        abi = lib.cg_abi_version()
        if abi != self._ABI:
            raise KernelNotBuiltError(f"{path} has launcher ABI {abi}, this library needs {self._ABI}; "
                                      f"rebuild it: {build_command(config)}")
        name = (lib.cg_kernel_name() or b"").decode(errors="replace")
        if name != config.name:
            raise KernelNotBuiltError(f"{path} holds kernel {name}, expected {config.name}")
        self._lib = lib
        self._bind(lib)
        self._bind_programmatic(lib)
        #: address of the launch entry, for callers that launch without ctypes (the C++ fast path)
        self.function_address = ctypes.cast(self._launch, ctypes.c_void_p).value

    _ENTRIES = ("cg_workspace_size", "cg_launch")
    _ABI = GEMM_LAUNCHER_ABI_VERSION

    def _bind(self, lib) -> None:
        lib.cg_workspace_size.restype = ctypes.c_size_t
        lib.cg_workspace_size.argtypes = [_I, _I, _I]
        lib.cg_launch.restype = ctypes.c_int
        lib.cg_launch.argtypes = _LAUNCH_ARGTYPES
        self._launch = lib.cg_launch
        #: address of cg_workspace_size, for the C++ fast path (stream-K / split-K kernels size their workspace
        #: per call: it depends on K and the SM count)
        self.workspace_address = ctypes.cast(lib.cg_workspace_size, ctypes.c_void_p).value

    def workspace_size(self, m: int, n: int, k: int) -> int:
        return int(self._lib.cg_workspace_size(m, n, k))

    def _bind_programmatic(self, lib) -> None:
        # Kernels launched as programmatic dependents (each family's programmatic_launch) export their switch; the others,
        # and libraries built before it existed, have none and launch plainly.
        try:
            switch = lib.cg_set_programmatic_launch
        except AttributeError:
            switch = None
        if switch is not None:
            switch.restype = ctypes.c_int
            switch.argtypes = [ctypes.c_int]
            if _programmatic is not None:
                switch(int(_programmatic))
        self._programmatic_switch = switch

    @property
    def programmatic(self) -> bool:
        """Whether this kernel is launched as a programmatic dependent now (False: it has no such launch)."""
        return bool(self._programmatic_switch is not None and self._programmatic_switch(-1))

    @property
    def scalar_scales_served(self) -> int:
        """The scale_flags bits this kernel honours (a per-tensor scale broadcast in its epilogue)."""
        return scalar_scales_served(self.config)

    def launch(self, a, b, d, m, n, k, lda, ldb, ldd, scale_a, scale_b, azp, azp_adj, azp_with_adj, bias,
               workspace, workspace_bytes, stream, scale_flags: int = 0, m_padded: int = 0) -> None:
        """One cg_launch. `scale_flags`: epilogues.SCALE_A_SCALAR / SCALE_B_SCALAR when scale_a / scale_b is a
        single element for a kernel built for a vector (SM90 kernels broadcast it; others refuse it). `m_padded` > m:
        a (and a per-token scale_a / azp) hold that many rows, computed, of which d's first m are written."""
        rc = self._launch(a, b, d, m, n, k, lda, ldb, ldd, scale_a, scale_b, azp, azp_adj, azp_with_adj, bias,
                          workspace, workspace_bytes, stream, scale_flags, m_padded)
        if rc:
            self.raise_launch_error(rc, m, n, k)

    def raise_launch_error(self, rc: int, m: int, n: int, k: int):
        raise KernelLaunchError(f"{self.config.name} (m={m}, n={n}, k={k}) failed with code {rc}: "
                                f"{self._lib.cg_last_error().decode()}")


class MixedInputLibrary(KernelLibrary):
    """One compiled mixed-input (weight-only SM90) kernel: the C ABI of kernels/emit_mixed.py, whose entry
    points have their own names (`cg_mixed_launch`, `cg_mixed_workspace_size`), so a library of one family
    loaded as the other fails the symbol check instead of being called with the wrong arguments."""

    _ENTRIES = ("cg_mixed_workspace_size", "cg_mixed_launch")
    _ABI = LAUNCHER_ABI_VERSION
    _ARGTYPES = [_P, _P, _P, _P, _P, _P, _I, _I, _I, _I, _I, _I, _P, ctypes.c_size_t, _P]

    def _bind(self, lib) -> None:
        lib.cg_mixed_workspace_size.restype = ctypes.c_size_t
        lib.cg_mixed_workspace_size.argtypes = [_I, _I, _I, _I]
        lib.cg_mixed_launch.restype = ctypes.c_int
        lib.cg_mixed_launch.argtypes = self._ARGTYPES
        self._launch = lib.cg_mixed_launch
        #: address of cg_mixed_workspace_size, for the C++ fast path (csrc/wo_mixed_fast.cpp)
        self.workspace_address = ctypes.cast(lib.cg_mixed_workspace_size, ctypes.c_void_p).value

    def workspace_size(self, m: int, n: int, k: int, group_size: int = 0) -> int:  # type: ignore[override]
        return int(self._lib.cg_mixed_workspace_size(m, n, k, group_size))

    def launch(self, w, x, out, scales, zeros, bias, m, n, k, ldx, ldo, group_size,  # type: ignore[override]
               workspace, workspace_bytes, stream) -> None:
        rc = self._launch(w, x, out, scales, zeros, bias, m, n, k, ldx, ldo, group_size, workspace,
                          workspace_bytes, stream)
        if rc:
            self.raise_launch_error(rc, m, n, k)


class Conv2dLibrary(KernelLibrary):
    """One compiled int8 implicit-GEMM conv2d kernel: the C ABI of kernels/emit_conv.py (`cg_conv_launch`,
    `cg_conv_workspace_size`; names of its own, as for the mixed-input family). Sizes are, in order,
    n, h, w, c, k, r, s, pad_h, pad_w, stride_h, stride_w, dil_h, dil_w."""

    _ENTRIES = ("cg_conv_workspace_size", "cg_conv_launch")
    _ABI = CONV_LAUNCHER_ABI_VERSION
    _SIZES = [_I] * 13
    _ARGTYPES = [_P, _P, _P, _P, _P, _P, _P, _P, *_SIZES, _I, _I, _P, ctypes.c_size_t, _P]

    def _bind(self, lib) -> None:
        lib.cg_conv_workspace_size.restype = ctypes.c_size_t
        lib.cg_conv_workspace_size.argtypes = self._SIZES
        lib.cg_conv_launch.restype = ctypes.c_int
        lib.cg_conv_launch.argtypes = self._ARGTYPES
        self._launch = lib.cg_conv_launch

    def workspace_size(self, *sizes: int) -> int:  # type: ignore[override]
        return int(self._lib.cg_conv_workspace_size(*sizes))

    def launch(self, x, w, out, scale_x, scale_guard, scale_w, bias, scale_out,  # type: ignore[override]
               *rest) -> None:
        """scale_guard: a one-element float32 pointer or None (the kernel reads scale_x + 0 * guard);
        scale_out: the reciprocal output scale of an int8-output kernel (None otherwise); rest: the 13 sizes,
        p, q, workspace, workspace_bytes, stream."""
        rc = self._launch(x, w, out, scale_x, scale_guard, scale_w, bias, scale_out, *rest)
        if rc:
            n, h, wd, c, k = rest[:5]
            raise KernelLaunchError(f"{self.config.name} (x {n}x{h}x{wd}x{c}, {k} filters {rest[5]}x{rest[6]}) failed "
                                    f"with code {rc}: {self._lib.cg_last_error().decode()}")


class BlockwiseLibrary(KernelLibrary):
    """One compiled blockwise-scaled fp8 kernel: the C ABI of kernels/emit_blockwise.py (`cg_blockwise_launch`,
    `cg_blockwise_workspace_size`; names of its own, as for the mixed-input family)."""

    _ENTRIES = ("cg_blockwise_workspace_size", "cg_blockwise_launch")
    _ABI = LAUNCHER_ABI_VERSION
    _ARGTYPES = [_P, _P, _P, _P, _P, _P, _I, _I, _I, _I, _I, _I, _P, ctypes.c_size_t, _P]

    def _bind(self, lib) -> None:
        lib.cg_blockwise_workspace_size.restype = ctypes.c_size_t
        lib.cg_blockwise_workspace_size.argtypes = [_I, _I, _I]
        lib.cg_blockwise_launch.restype = ctypes.c_int
        lib.cg_blockwise_launch.argtypes = self._ARGTYPES
        self._launch = lib.cg_blockwise_launch

    def workspace_size(self, m: int, n: int, k: int) -> int:
        return int(self._lib.cg_blockwise_workspace_size(m, n, k))

    def launch(self, a, b, d, scale_a, scale_b, bias, m, n, k, lda, ldb, ldd,  # type: ignore[override]
               workspace, workspace_bytes, stream) -> None:
        rc = self._launch(a, b, d, scale_a, scale_b, bias, m, n, k, lda, ldb, ldd, workspace, workspace_bytes, stream)
        if rc:
            self.raise_launch_error(rc, m, n, k)


#: The library class of each kernel family (kernels/families.py): its C ABI.
_LIBRARY_CLASSES = {"gemm": KernelLibrary, "mixed_input": MixedInputLibrary, "conv2d": Conv2dLibrary,
                    "blockwise": BlockwiseLibrary}


def _library_class(cfg) -> type:
    return _LIBRARY_CLASSES[family_of(cfg).name]


def build_command(cfg: KernelConfig) -> str:
    if family_of(cfg).name == "conv2d":
        return (f"python tools/generate_kernels.py --conv --compile --name {cfg.name}"
                f"   (or call cutlass_gemm.runtime.build.build(Conv2dConfig.from_name({cfg.name!r})))")
    if family_of(cfg).name == "blockwise":
        return (f"python tools/generate_kernels.py --blockwise --compile --name {cfg.name}"
                f"   (or call cutlass_gemm.runtime.build.build(BlockwiseConfig.from_name({cfg.name!r})))")
    if family_of(cfg).name == "mixed_input":
        return (f"python tools/generate_kernels.py --mixed --compile --name {cfg.name}"
                f"   (or call cutlass_gemm.runtime.build.build(MixedInputConfig.from_name({cfg.name!r})))")
    if cfg.activation != "none" or not heuristics.in_default_set(cfg):
        return (f"python tools/generate_kernels.py --out /tmp/cutlass_gemm_gen --compile --name {cfg.name}"
                f"   (or call cutlass_gemm.runtime.build.build(KernelConfig.from_name({cfg.name!r})))")
    return (f"python tools/generate_kernels.py --sm {cfg.sm} --variant {cfg.variant} --compile --all"
            f"   (or call cutlass_gemm.runtime.build.build(KernelConfig.from_name({cfg.name!r})))")


def jit_enabled() -> bool:
    return os.environ.get(JIT_ENV, "1") not in ("0", "false", "no", "off")


_loaded: Dict[KernelConfig, KernelLibrary] = {}
_lock = threading.Lock()
#: The process-wide programmatic-launch setting pushed into every library that has the switch; None: each keeps
#: its own default (on unless CUTLASS_GEMM_PDL=0).
_programmatic: Optional[bool] = None


def set_programmatic_launch(enabled: bool) -> bool:
    """Launch the kernels that allow it (the `programmatic_launch` rule of kernels/emit.py, emit_mixed.py and
    emit_conv.py: the SM90 scaled GEMMs with per-token / per-channel scales, the persistent mixed-input GEMMs, the
    convs with 128-row tiles) as programmatic dependents (True, the default unless CUTLASS_GEMM_PDL=0) or plainly (False),
    from now on, in this process: loaded kernels and those loaded later. Returns the setting before. The switch
    exists for side-by-side measurements and as a way out; the extension's kernels have their own
    (`extension.load().pdl_set`)."""
    global _programmatic
    with _lock:
        before = _programmatic
        if before is None:
            before = os.environ.get("CUTLASS_GEMM_PDL", "1") != "0"
        _programmatic = bool(enabled)
        for lib in _loaded.values():
            switch = getattr(lib, "_programmatic_switch", None)
            if switch is not None:
                switch(int(enabled))
    return before
#: (config name, seconds) of every kernel this process had to compile; read by the benchmark.
jit_builds = []


def _load(cfg: KernelConfig, path: Path) -> Optional[KernelLibrary]:
    """Load a verified library; a wrong one (ABI, name, missing symbols) is quarantined -> None."""
    try:
        return _library_class(cfg)(cfg, path)
    except KernelNotBuiltError as exc:
        from . import cache, prebuilt
        if prebuilt.owns(Path(path)):  # an installed package is read only: report, leave it alone
            print(f"cutlass_gemm: skipping the prebuilt {Path(path).name}: {exc}", file=sys.stderr, flush=True)
        else:
            cache.quarantine(Path(path), str(exc))
        return None


def cached_kernel(cfg: KernelConfig) -> Optional[KernelLibrary]:
    """The kernel if it is loaded or verified in the disk cache; None otherwise (never builds)."""
    lib = _loaded.get(cfg)
    if lib is not None:
        return lib
    with _lock:
        lib = _loaded.get(cfg)
        if lib is None:
            path = build.lookup(cfg)
            lib = None if path is None else _load(cfg, path)
            if lib is not None:
                _loaded[cfg] = lib
    return lib


def _announce(cfg: KernelConfig) -> None:
    # Called by build() only in the process that compiles, after it took the lock and re-checked.
    print(f"cutlass_gemm: building kernel {cfg.name} (first use; nvcc takes 30-60 s)...",
          file=sys.stderr, flush=True)


def get_kernel(cfg: KernelConfig) -> KernelLibrary:
    """Load `cfg`'s kernel, building it first (once, announced on stderr) if JIT is allowed."""
    lib = cached_kernel(cfg)
    if lib is not None:
        return lib
    if not jit_enabled():
        raise KernelNotBuiltError(f"kernel {cfg.name} is not built and {JIT_ENV}=0 forbids building it now; "
                                  f"build it with: {build_command(cfg)}")
    if build.find_nvcc() is None:
        raise KernelNotBuiltError(f"kernel {cfg.name} is not built and nvcc is not available to build it "
                                  f"(set CUDA_HOME or CUDA_PATH, or put nvcc on PATH); on a machine with nvcc "
                                  f"run: {build_command(cfg)}")
    t0 = time.perf_counter()
    path, seconds = build.build(cfg, announce=_announce)
    if seconds:
        jit_builds.append((cfg.name, time.perf_counter() - t0))
        print(f"cutlass_gemm: built {cfg.name} in {time.perf_counter() - t0:.1f} s", file=sys.stderr, flush=True)
    with _lock:
        lib = _loaded.get(cfg)
        if lib is None:
            lib = _library_class(cfg)(cfg, path)  # a fresh, verified build that does not load: report it
            _loaded[cfg] = lib
    return lib


def _install_recorder() -> None:
    # $CUTLASS_GEMM_RECORD_KERNELS: the names this process loads are added to that file at exit (kernel_list.py).
    # Imported here, at the end, because kernel_list reads this module's registry.
    from .kernel_list import install_recorder
    install_recorder()


_install_recorder()
