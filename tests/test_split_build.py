"""SM90 kernels build in two halves at once (runtime/nvcc.py): the emitted layout, the nvcc steps, their
failures and time limit (a fake toolkit), and with the real nvcc the library that results."""
import ctypes
import re
import time
from pathlib import Path

import pytest

from cutlass_gemm.errors import BuildError, BuildTimeoutError
from cutlass_gemm.kernels.launcher_text import SPLIT_BUILD_MARKER
from cutlass_gemm.runtime import build, nvcc

ROOT = Path(__file__).resolve().parents[1]
SM90_FOLDERS = ("sm90", "sm90_mixed", "sm90_blockwise", "sm90_conv")


def _committed(folder: str):
    return sorted((ROOT / "generated" / folder).glob("*.cu"))


@pytest.mark.parametrize("folder", SM90_FOLDERS)
def test_every_sm90_source_builds_apart(folder):
    """The device pass sees one kernel entry; the launcher names no CUTLASS kernel template (so the host pass
    instantiates no device code and the cubin holds exactly one kernel)."""
    paths = _committed(folder)
    assert paths
    for path in paths:
        text = path.read_text()
        assert nvcc.is_split(text), path.name
        assert text.count("#if defined(CG_DEVICE_PASS)\n") == 1, path.name
        # the device pass instantiates CUTLASS's entry; nothing else names it (the launcher takes the image's
        # one kernel by enumeration) and no adapter launches it
        assert text.count("device_kernel<") == 1, path.name
        assert "template __global__ void cutlass::device_kernel<CgDeviceKernel>(" in text, path.name
        assert "cudaLibraryEnumerateKernels" in text and "::run(" not in text, path.name
        # every line but the header is inside the guard that hides it from the host compile's device pass, except
        # a stream-K launcher's own fill kernel (emit_streamk), which the device pass does not see
        body = text.split(SPLIT_BUILD_MARKER + "\n", 1)[1]
        if body.startswith("#if !defined(CG_DEVICE_PASS)\n"):
            assert "_streamk" in path.stem, path.name
            own, body = body.split("#endif\n#if defined(CG_DEVICE_PASS) || !defined(__CUDA_ARCH__)\n", 1)
            body = "#if defined(CG_DEVICE_PASS) || !defined(__CUDA_ARCH__)\n" + body
            assert own.count("__global__") == 1 and "cg_fill_workspace(" in own, path.name
        assert body.startswith("#if defined(CG_DEVICE_PASS) || !defined(__CUDA_ARCH__)\n")
        assert body.rstrip().endswith("#endif")


def test_sm80_sources_stay_single_pass():
    paths = _committed("sm80")
    assert paths and not any(nvcc.is_split(p.read_text()) for p in paths)


def _fake_nvcc(root: Path, body: str) -> str:
    """A fake nvcc (test_cache_integrity's) whose script knows its -o argument as $out."""
    from test_cache_integrity import _fake_toolkit
    out_arg = "out=''; prev=''\nfor a in \"$@\"; do [ \"$prev\" = \"-o\" ] && out=\"$a\"; prev=\"$a\"; done\n"
    return str(_fake_toolkit(root, out_arg + body) / "bin" / "nvcc")


SPLIT_TEXT = SPLIT_BUILD_MARKER + "\n// a source in the split layout\n"
LOGGING = r'''
mode=link
for a in "$@"; do case "$a" in -cubin) mode=device;; -c) mode=host;; esac; done
echo "start $mode $(date +%s.%N)" >> log
[ "$mode" != link ] && sleep 1
[ "$mode" = device ] && [ -n "$FAIL_DEVICE" ] && { echo "ptxas fatal: boom" >&2; exit 3; }
echo "$mode" > "$out"
echo "end $mode $(date +%s.%N)" >> log
'''


def _intervals(log: Path):
    spans = {}
    for line in log.read_text().splitlines():
        kind, mode, t = line.split()
        spans.setdefault(mode, {})[kind] = float(t)
    return spans


def test_device_and_host_passes_run_at_once_then_link(tmp_path):
    fake = _fake_nvcc(tmp_path / "cuda", LOGGING)
    work = tmp_path / "work"
    work.mkdir()
    t0 = time.perf_counter()
    out = nvcc.compile_in(work, SPLIT_TEXT, build.compile_flags(90), [], fake, "k.cu", 60)
    elapsed = time.perf_counter() - t0
    assert out == work / "kernel.so" and out.read_text().strip() == "link"
    spans = _intervals(work / "log")
    assert set(spans) == {"device", "host", "link"}
    assert spans["device"]["start"] < spans["host"]["end"] and spans["host"]["start"] < spans["device"]["end"]
    assert spans["link"]["start"] >= max(spans["device"]["end"], spans["host"]["end"])
    assert elapsed < 1.9, f"the two 1 s passes took {elapsed:.2f} s together: not in parallel"
    stub = (work / "image.cpp").read_text()
    assert '.incbin \\"kernel.cubin\\"' in stub and ".hidden cg_cubin_image" in stub


def test_a_single_pass_source_is_one_nvcc_run(tmp_path):
    fake = _fake_nvcc(tmp_path / "cuda", LOGGING)
    work = tmp_path / "work"
    work.mkdir()
    nvcc.compile_in(work, "// no marker\n", build.compile_flags(80), [], fake, "k.cu", 60)
    assert list(_intervals(work / "log")) == ["link"]  # neither -cubin nor -c


def test_a_failing_pass_is_named_in_the_build_error(tmp_path, monkeypatch):
    fake = _fake_nvcc(tmp_path / "cuda", LOGGING)
    monkeypatch.setenv("FAIL_DEVICE", "1")
    work = tmp_path / "work"
    work.mkdir()
    with pytest.raises(BuildError, match=r"nvcc failed \(3\) for k.cu \(device pass\)[\s\S]*ptxas fatal: boom"):
        nvcc.compile_in(work, SPLIT_TEXT, build.compile_flags(90), [], fake, "k.cu", 60)


def test_one_time_limit_for_both_passes_kills_them(tmp_path):
    pids = tmp_path / "pids"
    fake = _fake_nvcc(tmp_path / "cuda", f"sleep 60 &\necho $! >> {pids}\nwait\n")
    work = tmp_path / "work"
    work.mkdir()
    t0 = time.monotonic()
    with pytest.raises(BuildTimeoutError, match="nvcc ran past 1 s building k.cu"):
        nvcc.compile_in(work, SPLIT_TEXT, build.compile_flags(90), [], fake, "k.cu", 1)
    assert time.monotonic() - t0 < 10
    time.sleep(0.2)
    found = [int(p) for p in pids.read_text().split()]
    assert len(found) == 2
    for pid in found:
        status = Path(f"/proc/{pid}/status")
        assert not status.exists() or "zombie" in status.read_text(), "a pass survived the time limit"


@pytest.mark.nvcc
@pytest.mark.skipif(build.find_nvcc() is None, reason="nvcc not found")
def test_real_split_build_embeds_one_kernel_cubin(tmp_path):
    """The library carries the cubin (an ELF image with CUTLASS's one device_kernel<> entry) as hidden data and
    exports only the launcher."""
    from cutlass_gemm.kernels import heuristics
    from cutlass_gemm.kernels.emit import cutlass_include_dirs
    cfg = heuristics.default_configs(90)[0]
    text = (ROOT / "generated" / "sm90" / f"{cfg.name}.cu").read_text()
    work = tmp_path / "work"
    work.mkdir()
    out = nvcc.compile_in(work, text, build.compile_flags(90), cutlass_include_dirs(), build.find_nvcc(),
                          cfg.name, 900)
    cubin = (work / "kernel.cubin").read_bytes()
    data = out.read_bytes()
    assert cubin[:4] == b"\x7fELF" and data.find(cubin) > 0, "the cubin is not inside the library"
    kernels = set(re.findall(rb"\.text\.([A-Za-z_][A-Za-z0-9_]*)", cubin))
    assert len(kernels) == 1 and next(iter(kernels)).startswith(b"_ZN7cutlass13device_kernel"), kernels
    lib = ctypes.CDLL(str(out))
    assert hasattr(lib, "cg_launch") and not hasattr(lib, "cg_cubin_image")
    assert out.stat().st_size <= 300 * 1024
