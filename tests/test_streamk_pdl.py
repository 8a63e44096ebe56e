"""Stream-K / split-K kernels launched as programmatic dependents, CPU side (kernels/emit_streamk.py): their sources
clear the scheduler's workspace through CUTLASS's host adapter with a fill kernel of their own (compiled by the
host pass only, so the device pass's cubin still holds the GEMM alone), use the scheduler whose is_last_tile
compiles with CUTLASS's grid-dependency hooks (GEMM, mixed-input and blockwise families), and persistent sources carry
none of it. A GEMM and a mixed-input source are compiled with nvcc (marker `nvcc`). The GPU side:
tests/test_streamk_gpu.py, tests/test_pdl_conv_mixed_gpu.py and tests/test_pdl_blockwise_gpu.py."""
import re
from pathlib import Path

import pytest

from cutlass_gemm.kernels import emit_streamk
from cutlass_gemm.kernels.config import KernelConfig
from cutlass_gemm.kernels.emit import emit_source
from cutlass_gemm.kernels.emit_mixed import emit_mixed_source
from cutlass_gemm.kernels.launcher_text import (_SM90_DEVICE_ENTRY, PROGRAMMATIC_DEFINE, SPLIT_BUILD_MARKER,
                                                sm90_split_source)
from cutlass_gemm.kernels.mixed_input import MixedInputConfig
from cutlass_gemm.runtime import build, nvcc

ROOT = Path(__file__).resolve().parents[1]
ADAPTED = f"initialize_workspace(args, workspace, stream, &{emit_streamk.WORKSPACE_FILLER});"
PLAIN = "initialize_workspace(args, workspace, stream);"
MIXED = "sm90_mixed_bf16_int4_sym_t128x64x64_c1x1x1_cooperative_s0_streamk"


def _gemm(scheduler, splits=1, **kw):
    return KernelConfig(sm=90, tile=(128, 64, 128), schedule="cooperative", scheduler=scheduler, splits=splits, **kw)


def _sources():
    yield "gemm streamk", emit_source(_gemm("streamk"))
    yield "gemm splitk", emit_source(_gemm("splitk", 4, a_dtype="e4m3", variant="scaled"))
    for path in sorted((ROOT / "generated" / "sm90_mixed").glob("*_streamk.cu")):
        yield path.name, path.read_text()
    for path in sorted((ROOT / "generated" / "sm90_blockwise").glob("*_streamk_*.cu")):
        yield path.name, path.read_text()


def _host_pass_part(text):
    """The lines the split build's host pass alone compiles ahead of the shared kernel types."""
    start = text.index(SPLIT_BUILD_MARKER)
    shared = text.index("#if defined(CG_DEVICE_PASS) || !defined(__CUDA_ARCH__)")
    return text[start:shared]


@pytest.mark.parametrize("name,text", list(_sources()), ids=lambda v: v if len(v) < 90 else "")
def test_streamk_source_clears_its_workspace_with_a_programmatic_kernel(name, text):
    # CUTLASS clears through the adapter: the macro comes before any CUTLASS header, with the grid-dependency hooks
    head = text.index('#include "cutlass/')
    assert text.count(emit_streamk.STREAMK_DEFINE) == 1 and text.index(emit_streamk.STREAMK_DEFINE) < head, name
    assert text.count(PROGRAMMATIC_DEFINE) == 1 and text.index(PROGRAMMATIC_DEFINE) < head, name
    assert text.count(ADAPTED) == 1 and PLAIN not in text, name
    assert f"CgWorkspaceFiller {emit_streamk.WORKSPACE_FILLER};" in text
    # the fill kernel is in the host pass's part only (the device pass's cubin must hold one kernel, the GEMM)
    host = _host_pass_part(text)
    assert host.startswith(SPLIT_BUILD_MARKER + "\n#if !defined(CG_DEVICE_PASS)\n"), name
    assert "cg_fill_workspace(" in host and text.count("__global__") == 1 + text.count("template __global__"), name
    # it lets the GEMM start first, and waits for the kernel ahead before it writes
    body = host[host.index("cg_fill_workspace("):]
    assert body.index("griddepcontrol.launch_dependents") < body.index("griddepcontrol.wait") < body.index("for ("), name
    # the adapter's launch follows the library's switch
    assert "config.numAttrs = cg_programmatic_on() ? 1 : 0;" in text, name
    # the scheduler: the tag that selects cutlass_gemm's subclass, never CUTLASS's own tag in the kernel type
    assert emit_streamk.CUTLASS_STREAMK_TAG not in text, name
    selector = "struct TileSchedulerSelector<" + emit_streamk.STREAMK_TAG
    assert text.count(selector) == 1 and text.count(emit_streamk.STREAMK_TAG) == 2, name  # the entry, the kernel
    assert text.index(selector) < text.rindex(emit_streamk.STREAMK_TAG), name


def test_persistent_sources_carry_none_of_it():
    committed = sorted((ROOT / "generated" / "sm90").glob("*.cu"))
    mixed = sorted(p for p in (ROOT / "generated" / "sm90_mixed").glob("*.cu") if "_streamk" not in p.name)
    blockwise = sorted(p for p in (ROOT / "generated" / "sm90_blockwise").glob("*.cu") if "_streamk" not in p.name)
    assert committed and mixed and blockwise
    assert len(list((ROOT / "generated" / "sm90_blockwise").glob("*_streamk_*.cu"))) == 2  # bf16 and f16
    for path in committed + mixed + blockwise:
        text = path.read_text()
        assert emit_streamk.STREAMK_DEFINE not in text and "cg_fill_workspace" not in text, path.name
        assert "cg_streamk" not in text and ADAPTED not in text and PLAIN in text, path.name


def test_split_source_places_host_pass_kernels_ahead_and_is_unchanged_without_them():
    tail = "T\n\n" + _SM90_DEVICE_ENTRY + "L\n\n#endif  // CG_DEVICE_PASS\n#endif\n"
    shared = "#if defined(CG_DEVICE_PASS) || !defined(__CUDA_ARCH__)\n"
    assert sm90_split_source("H\n", "T\n", "L\n") == "H\n" + SPLIT_BUILD_MARKER + "\n" + shared + tail
    assert sm90_split_source("H\n", "T\n", "L\n", "K\n") == (
        "H\n" + SPLIT_BUILD_MARKER + "\n#if !defined(CG_DEVICE_PASS)\nK\n#endif\n" + shared + tail)


def test_own_tag_replaces_exactly_one_cutlass_tag():
    assert emit_streamk.own_streamk_tag("X<a, cutlass::gemm::StreamKScheduler>") == "X<a, cg_streamk::Scheduler>"
    for bad in ("X<a>", "cutlass::gemm::StreamKScheduler cutlass::gemm::StreamKScheduler"):
        with pytest.raises(RuntimeError, match="StreamKScheduler"):
            emit_streamk.own_streamk_tag(bad)


def test_fill_refuses_what_it_cannot_write():
    """The adapter's checks, read from its text: sizes 1, 2, 4; words when the range is word-aligned; a byte fill only
    when every byte of the pattern is the same."""
    text = emit_streamk.WORKSPACE_FILLER_TEXT
    assert "fill_size != 1 && fill_size != 2 && fill_size != 4" in text
    assert re.search(r"if \(!words && !uniform\) return cutlass::Status::kErrorMisalignedOperand;", text)


@pytest.mark.nvcc
@pytest.mark.skipif(build.find_nvcc() is None, reason="nvcc not found")
@pytest.mark.parametrize("cfg", [_gemm("splitk", 4), MixedInputConfig.from_name(MIXED)], ids=lambda c: c.name)
def test_streamk_sources_compile_with_one_kernel_in_the_cubin(cfg, tmp_path):
    """CUTLASS 4.2's stream-K is_last_tile does not compile with the grid-dependency hooks (cg_streamk's subclass
    replaces it); the fill kernel goes into the host pass's image, the cubin keeps the GEMM's entry alone."""
    from cutlass_gemm.kernels.emit import cutlass_include_dirs
    text = emit_source(cfg) if isinstance(cfg, KernelConfig) else emit_mixed_source(cfg)
    out = nvcc.compile_in(tmp_path, text, build.compile_flags(90), cutlass_include_dirs(), build.find_nvcc(),
                          cfg.name, 900)
    cubin = (tmp_path / "kernel.cubin").read_bytes()
    kernels = set(re.findall(rb"\.text\.([A-Za-z_][A-Za-z0-9_]*)", cubin))
    assert len(kernels) == 1 and next(iter(kernels)).startswith(b"_ZN7cutlass13device_kernel"), kernels
    assert b"cg_fill_workspace" in out.read_bytes()  # the host pass's embedded image and its registration
