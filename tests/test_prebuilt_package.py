"""Installed packages of prebuilt kernels (tools/package_kernels.py): found by lookup when the cache has
none, under the same checks as a cached build, and never modified."""
import json
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from cutlass_gemm.kernels import heuristics
from cutlass_gemm.runtime import build, cache, prebuilt

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def site(tmp_path, monkeypatch):
    """An empty kernel cache and a folder on sys.path for packages."""
    monkeypatch.setenv(build.CACHE_ENV, str(tmp_path / "cache"))
    site = tmp_path / "site"
    site.mkdir()
    monkeypatch.syspath_prepend(str(site))
    prebuilt.kernel_dirs.cache_clear()
    yield site
    prebuilt.kernel_dirs.cache_clear()


def _fake_package(site: Path, cfg, *, flags=None, payload=b"\x7fELF not really a kernel") -> Path:
    kernels = site / prebuilt.package_name(cfg.sm) / "kernels"
    kernels.mkdir(parents=True)
    (kernels.parent / "__init__.py").write_text("")
    so = kernels / f"{cfg.name}-0123456789abcdef.so"
    so.write_bytes(payload)
    size, digest = cache.file_digest(so)
    meta = {"format": cache.METADATA_FORMAT, "name": cfg.name, "so_size": size, "so_sha256": digest,
            "flags": list(flags if flags is not None else build.compile_flags(cfg.sm)),
            "generator_fingerprint": build.generator_fingerprint(), "source_sha256": "x", "built_at": 1.0}
    so.with_suffix(".json").write_text(json.dumps(meta))
    return so


def test_lookup_finds_a_verified_kernel_of_an_installed_package(site):
    cfg = heuristics.prebuilt_configs(90)[0]
    so = _fake_package(site, cfg)
    assert build.lookup(cfg) == so
    assert prebuilt.owns(so) and not prebuilt.owns(site / "other.so")


def test_a_package_kernel_that_fails_verification_is_skipped_and_left_in_place(site):
    cfg = heuristics.prebuilt_configs(90)[0]
    so = _fake_package(site, cfg)
    so.write_bytes(b"truncated")  # size and sha256 no longer match the metadata
    assert build.lookup(cfg) is None
    assert so.exists() and not (so.parent / "quarantine").exists()


def test_a_package_kernel_built_with_other_flags_is_not_used(site):
    cfg = heuristics.prebuilt_configs(90)[0]
    _fake_package(site, cfg, flags=["-cudart=static"])
    assert build.lookup(cfg) is None


needs_nvcc = pytest.mark.skipif(build.find_nvcc() is None, reason="nvcc not found (install the CUDA toolkit)")


@needs_nvcc
@pytest.mark.nvcc
@pytest.mark.parametrize("how", ["prebuilt set", "kernel list"])
def test_package_kernels_writes_a_wheel_that_lookup_uses_once_installed(site, tmp_path, how):
    cfg = heuristics.prebuilt_configs(80)[0 if how == "prebuilt set" else -1]
    out = tmp_path / "dist"
    if how == "prebuilt set":
        pick = ["--limit", "1"]
    else:  # a list as $CUTLASS_GEMM_RECORD_KERNELS writes it (runtime/kernel_list.py)
        (tmp_path / "kernels.txt").write_text(f"# recorded\n{cfg.name}\n")
        pick = ["--list", str(tmp_path / "kernels.txt")]
    proc = subprocess.run([sys.executable, str(ROOT / "tools" / "package_kernels.py"), "--sm", "80", *pick,
                           "--jobs", "1", "--out", str(out)], capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    wheels = list(out.glob("cutlass_gemm_kernels_sm80-*-py3-none-linux_x86_64.whl"))
    assert len(wheels) == 1, list(out.iterdir())
    names = zipfile.ZipFile(wheels[0]).namelist()
    assert any(n.startswith(f"cutlass_gemm_kernels_sm80/kernels/{cfg.name}-") and n.endswith(".so") for n in names)
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--no-index", "--target", str(site),
                    str(wheels[0])], check=True, capture_output=True, timeout=300)
    found = build.lookup(cfg)  # the cache (set by the fixture) is empty: the package serves
    assert found is not None and found.parent == site / "cutlass_gemm_kernels_sm80" / "kernels"
    assert build.cache_root() not in found.parents


def test_package_kernels_refuses_a_list_of_another_sm_before_compiling(tmp_path):
    listed = tmp_path / "kernels.txt"
    listed.write_text(f"{heuristics.prebuilt_configs(80)[0].name}\nsm90_conv2d_fprop_int8_f16_t128x128x128_c1x1x1_s0\n")
    proc = subprocess.run([sys.executable, str(ROOT / "tools" / "package_kernels.py"), "--sm", "80", "--list",
                           str(listed), "--out", str(tmp_path / "dist")], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 2 and "another SM than --sm 80: sm90_conv2d_fprop_int8" in proc.stderr, proc.stderr
    assert not (tmp_path / "dist").exists()


def test_a_missing_cuda_runtime_is_loaded_through_pathfinder_or_raises_a_typed_error(monkeypatch, tmp_path):
    import cuda.pathfinder
    from cutlass_gemm.errors import CudaRuntimeNotFoundError
    from cutlass_gemm.runtime import loader
    calls, asked = [], []

    def cdll(path, mode=0):  # the first dlopen misses libcudart; the retry succeeds
        calls.append(path)
        if len(calls) == 1:
            raise OSError("libcudart.so.13: cannot open shared object file: No such file or directory")
        return "loaded"

    monkeypatch.setattr(loader.ctypes, "CDLL", cdll)
    monkeypatch.setattr(cuda.pathfinder, "load_nvidia_dynamic_lib", lambda name: asked.append(name))
    assert loader._dlopen_kernel(tmp_path / "k.so") == "loaded" and asked == ["cudart"] and len(calls) == 2

    def missing(name):
        raise cuda.pathfinder.DynamicLibNotFoundError(f"{name} not found")

    calls.clear()
    monkeypatch.setattr(cuda.pathfinder, "load_nvidia_dynamic_lib", missing)
    with pytest.raises(CudaRuntimeNotFoundError, match="libcudart.so.13"):
        loader._dlopen_kernel(tmp_path / "k.so")
