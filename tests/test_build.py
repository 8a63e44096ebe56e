"""nvcc builds generated kernels into loadable libraries; the disk cache is safe under concurrency."""
import ctypes
import multiprocessing as mp
import os
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from cutlass_gemm.runtime import build
from cutlass_gemm.kernels import heuristics
from cutlass_gemm.kernels.config import KernelConfig
from cutlass_gemm.kernels.emit import GEMM_LAUNCHER_ABI_VERSION as LAUNCHER_ABI_VERSION

ROOT = Path(__file__).resolve().parents[1]
needs_nvcc = pytest.mark.skipif(build.find_nvcc() is None, reason="nvcc not found (install the CUDA toolkit)")


def _generated(sm: int) -> KernelConfig:
    return heuristics.default_configs(sm)[0]


@needs_nvcc
@pytest.mark.nvcc
def test_compile_one_sm90_and_one_sm80_kernel(tmp_path, monkeypatch):
    """Both compiles run at once (CI has two cores); each library exports the launcher ABI."""
    monkeypatch.setenv(build.CACHE_ENV, str(tmp_path))
    configs = [_generated(90), _generated(80)]
    sources = {c: (ROOT / "generated" / f"sm{c.sm}" / f"{c.name}.cu").read_text() for c in configs}
    with ThreadPoolExecutor(2) as pool:
        results = dict(zip(configs, pool.map(lambda c: build.build(c, sources[c]), configs)))
    for cfg, (path, seconds) in results.items():
        assert path.exists() and path.parent.parent == tmp_path and seconds > 0
        print(f"compiled {cfg.name} in {seconds:.1f} s")
        # small: the CUDA runtime is shared, not linked into every kernel (the static one made ~1 MB)
        assert path.stat().st_size <= 300 * 1024, f"{path.name}: {path.stat().st_size} bytes"
        lib = ctypes.CDLL(str(path))  # loads without a GPU (libcudart via the rpath; libcuda is not linked)
        lib.cg_kernel_name.restype = ctypes.c_char_p
        assert lib.cg_abi_version() == LAUNCHER_ABI_VERSION
        assert lib.cg_kernel_name().decode() == cfg.name
        assert hasattr(lib, "cg_launch") and hasattr(lib, "cg_workspace_size")
        assert build.lookup(cfg) == path
        # a second build is a cache hit
        assert build.build(cfg, sources[cfg]) == (path, 0.0)


TINY = r'''
extern "C" __attribute__((visibility("default"))) int cg_abi_version() { return 0; }
__global__ void touch(int* p) { *p = 1; }
'''


def _build_tiny(cache_dir: str, marker_dir: str) -> str:
    os.environ[build.CACHE_ENV] = cache_dir
    real = build.compile_source

    def counting(src, out, sm, **kw):  # leave a mark each time nvcc really runs
        Path(marker_dir, f"{os.getpid()}").write_text("compiled")
        return real(src, out, sm, **kw)

    build.compile_source = counting
    cfg = KernelConfig(sm=90, tile=(64, 64, 128))
    path, _ = build.build(cfg, TINY)
    return str(path)


@needs_nvcc
@pytest.mark.nvcc
def test_concurrent_builds_of_one_kernel_compile_once(tmp_path):
    cache, marks = tmp_path / "cache", tmp_path / "marks"
    marks.mkdir()
    ctx = mp.get_context("spawn")
    with ctx.Pool(3) as pool:
        paths = pool.starmap(_build_tiny, [(str(cache), str(marks))] * 3)
    assert len(set(paths)) == 1 and Path(paths[0]).exists()
    assert len(list(marks.iterdir())) == 1, "nvcc ran more than once for one cache entry"
    leftovers = [p.name for p in Path(paths[0]).parent.iterdir() if p.name.startswith(".")]
    assert not leftovers, f"temporary build files left behind: {leftovers}"


def test_cache_location_follows_the_environment(monkeypatch, tmp_path):
    monkeypatch.setenv(build.CACHE_ENV, str(tmp_path / "x"))
    assert build.cache_root() == tmp_path / "x"
    entry = build.cache_entry(_generated(90), nvcc_ver="13.0.88")
    assert entry.path.parent == tmp_path / "x" / "sm90" and entry.path.name.startswith(_generated(90).name)
    monkeypatch.delenv(build.CACHE_ENV)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert build.cache_root() == tmp_path / "xdg" / "cutlass_gemm"


def test_cache_key_changes_with_nvcc_version():
    cfg = _generated(90)
    assert build.cache_entry(cfg, "13.0.88").key != build.cache_entry(cfg, "13.1.0").key


def test_nvcc_failure_raises_build_error(tmp_path, monkeypatch):
    if build.find_nvcc() is None:
        pytest.skip("nvcc not found")
    monkeypatch.setenv(build.CACHE_ENV, str(tmp_path))
    with pytest.raises(build.BuildError, match="nvcc failed"):
        build.build(KernelConfig(sm=90, tile=(64, 64, 128), out_dtype="f16"), "this is not C++")
    assert not list((tmp_path / "sm90").glob("*.so"))


def test_lookup_without_nvidia_cutlass_finds_a_prebuilt_kernel(monkeypatch, tmp_path):
    """A run-only install (no nvidia-cutlass metadata) still finds kernels someone built earlier,
    but only verified ones (size and sha256 recorded in their metadata)."""
    monkeypatch.setenv(build.CACHE_ENV, str(tmp_path))
    monkeypatch.setattr(build, "compile_source", lambda src, out, sm, **kw: Path(out).write_bytes(b"\x7fELF-ish") or 1.0)
    cfg = _generated(90)
    prebuilt, _ = build.build(cfg, "// source")
    unverified = tmp_path / "sm90" / f"{cfg.name}-zzzzzzzzzzzzzzzzzzzz.so"
    unverified.write_bytes(b"")  # sorts last; no metadata: never chosen
    monkeypatch.setattr(build, "_cutlass_version", lambda: "none")
    assert build.cache_entry(cfg).path != prebuilt  # the toolchain key differs here
    assert build.lookup(cfg) == prebuilt
    prebuilt.write_bytes(b"\x7fELF-is")  # truncated: no longer verifies
    assert build.lookup(cfg) is None


def test_sm80_machine_code_targets_come_from_the_environment_and_change_the_cache_key(monkeypatch):
    cfg = heuristics.default_configs(80)[0]
    monkeypatch.delenv(build.SM80_ARCHS_ENV, raising=False)
    assert build.sm80_targets() == (80,)
    assert build.arch_flags(80) == ("-gencode=arch=compute_80,code=[sm_80,compute_80]",)
    plain = build.cache_entry(cfg, "13.0").key
    monkeypatch.setenv(build.SM80_ARCHS_ENV, "9.0; 86")
    assert build.sm80_targets() == (80, 86, 90)
    assert build.arch_flags(80) == ("-gencode=arch=compute_80,code=[sm_80,sm_86,sm_90,compute_80]",)
    assert build.cache_entry(cfg, "13.0").key != plain  # an sm_90-capable build is another artifact
    assert build.arch_flags(90) == ("-gencode=arch=compute_90a,code=sm_90a",)  # the SM90 family is untouched
    for bad in ("75", "sm_90", "100"):
        monkeypatch.setenv(build.SM80_ARCHS_ENV, bad)
        with pytest.raises(build.BuildError, match=build.SM80_ARCHS_ENV):
            build.compile_flags(80)


def test_extension_name_hashes_every_source_and_header():
    """A header left out of extension.HASHED would let an edited kernel reuse a stale build."""
    from cutlass_gemm.runtime import extension
    on_disk = {p.name for p in extension.CSRC.iterdir() if p.suffix in {".cu", ".cuh", ".cpp", ".h"}}
    assert set(extension.HASHED) == on_disk
