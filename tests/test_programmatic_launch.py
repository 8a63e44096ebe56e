"""Programmatic dependent launches of the CUTLASS GEMMs, CPU side: which kernels are launched so
(kernels/emit.programmatic_launch), what their sources carry (CUTLASS's grid-dependency hooks compiled in, the
launch attribute, the exported switch) and the loader's process-wide switch. The GPU side is
tests/test_pdl_gemm_gpu.py."""
import json
from pathlib import Path

import pytest

from cutlass_gemm.kernels.config import KernelConfig
from cutlass_gemm.kernels.emit import programmatic_launch
from cutlass_gemm.kernels.launcher_text import (LATE_SCALAR_STRIDE, LATE_SCALAR_VALUE, PROGRAMMATIC_DEFINE,
                                                _SM90_DEVICE_SETUP, sm90_device_setup)
from cutlass_gemm.runtime import loader

ROOT = Path(__file__).resolve().parents[1]
ATTRIBUTE = "cudaLaunchAttributeProgrammaticStreamSerialization"
SWITCH = "CG_EXPORT int cg_set_programmatic_launch(int on)"
TOKEN = "sm90_e4m3_bf16_scaled_bias_token_channel_t128x128x128_c1x1x1_pingpong_s0_a16x16x8"


@pytest.mark.parametrize("change, expected", [
    ({}, True),
    ({"a_dtype": "int8", "variant": "scaled_azp"}, True),
    ({"scale_a": "tensor"}, True),                         # its scalar read after the mainloop (emit_evt.late_scalars)
    ({"scale_a": "tensor", "scale_b": "tensor"}, True),
    # stream-K / split-K since generator 6: the workspace cleared by a programmatic kernel (emit_streamk)
    ({"scale_b": "tensor", "scheduler": "streamk", "schedule": "cooperative", "tile": (128, 128, 128)}, True),
    ({"schedule": "cooperative", "tile": (128, 128, 128), "scheduler": "streamk"}, True),
    ({"schedule": "cooperative", "tile": (128, 64, 128), "scheduler": "splitk", "splits": 4}, True),
])
def test_which_kernels_are_launched_as_programmatic_dependents(change, expected):
    cfg = KernelConfig.from_name(TOKEN).replace(**change)
    assert programmatic_launch(cfg) is expected


def test_sm80_kernels_are_never_programmatic():
    cfg = KernelConfig(sm=80, a_dtype="int8", out_dtype="bf16", variant="scaled", scale_a="token",
                       scale_b="channel", tile=(128, 128, 64), cluster=(1, 1, 1), schedule="multistage", stages=5)
    assert not programmatic_launch(cfg)


def _committed_gemm_sources(sm):
    manifest = json.loads((ROOT / "generated" / f"sm{sm}" / "manifest.json").read_text())
    names = sorted(manifest["kernels"]) if isinstance(manifest.get("kernels"), dict) else None
    paths = sorted((ROOT / "generated" / f"sm{sm}").glob("*.cu"))
    assert paths and (names is None or len(names) == len(paths))
    return paths


@pytest.mark.parametrize("sm", [90, 80])
def test_committed_sources_carry_the_hooks_exactly_when_launched_so(sm):
    """A programmatic source defines CUTLASS_ENABLE_GDC_FOR_SM90 before any CUTLASS header (else the kernel's
    griddepcontrol.wait is compiled out and an early start reads unfinished inputs), exports the switch and adds
    the attribute; every other source has none of the three."""
    seen = {True: 0, False: 0}
    for path in _committed_gemm_sources(sm):
        text = path.read_text()
        cfg = KernelConfig.from_name(path.stem)
        on = programmatic_launch(cfg)
        seen[on] += 1
        assert (PROGRAMMATIC_DEFINE in text) is on, path.name
        assert (SWITCH in text) is on, path.name
        assert (ATTRIBUTE in text) is on, path.name
        if on:
            assert text.index(PROGRAMMATIC_DEFINE) < text.index('#include "cutlass/'), path.name
            assert text.count(PROGRAMMATIC_DEFINE) == 1
    if sm == 90:
        # every committed SM90 kernel is persistent (no stream-K one is prebuilt): all programmatic since generator 5
        assert seen[True] and not seen[False], seen
    else:
        assert not seen[True]


def test_committed_per_tensor_gemm_kernels_read_their_scalars_after_the_mainloop():
    """SM90: every per-tensor scale node (Sm90ScalarBroadcast of a pointer) has the dynamic batch stride and the
    launcher passes it a nonzero value, so CUTLASS reads the scale after its griddepcontrol.wait, not in the
    node's constructor at kernel start (what let these kernels become programmatic dependents). The activations'
    constant nodes read no memory and keep their static stride; SM80 sources are unchanged."""
    # the shared constants (conv kernels take them too): static M / N modes, a dynamic batch stride valued 1
    late, value = LATE_SCALAR_STRIDE, LATE_SCALAR_VALUE
    assert late == "cute::Stride<cute::Int<0>, cute::Int<0>, int64_t>"
    assert value == late + "{cute::Int<0>{}, cute::Int<0>{}, int64_t(1)}"
    checked = 0
    for sm in (90, 80):
        for path in _committed_gemm_sources(sm):
            text = path.read_text()
            cfg = KernelConfig.from_name(path.stem)
            want = [name for name, kind in (("ScaleA", cfg.scale_a), ("ScaleB", cfg.scale_b)) if kind == "tensor"]
            if sm == 80:
                assert late not in text, path.name
                continue
            for name in ("ScaleA", "ScaleB"):
                head = text.split(f"using {name} = cutlass::epilogue::fusion::", 1)[1].split(">;", 1)[0]
                assert (late in head) is (name in want), (path.name, name)
            args = next(line for line in text.splitlines() if "ScaleA::Arguments" in line)
            assert args.count(value) == len(want), path.name
            checked += len(want)
    assert checked


def test_an_activation_kernels_constant_keeps_its_static_stride_and_its_per_tensor_scale_reads_late():
    """ReLU6's clamp bound is a constant Sm90ScalarBroadcast (a value, no pointer): it keeps the static stride while
    the per-tensor scale node of the same kernel takes the late one."""
    from cutlass_gemm.kernels.emit import emit_source
    cfg = KernelConfig.from_name(TOKEN).replace(scale_a="tensor", activation="relu6")
    text = emit_source(cfg)
    late = LATE_SCALAR_STRIDE
    broadcasts = text.split("Sm90ScalarBroadcast<")[1:]
    heads = [b.split(">;", 1)[0] for b in broadcasts]
    assert sum(late in h for h in heads) == 1, heads  # ScaleA only
    assert any(late not in h for h in heads), heads  # the constant
    assert programmatic_launch(cfg)


def _hooks(text: str, on: bool, name: str) -> None:
    assert (PROGRAMMATIC_DEFINE in text) is on, name
    assert (SWITCH in text) is on, name
    assert (ATTRIBUTE in text) is on, name
    if on:
        assert text.count(PROGRAMMATIC_DEFINE) == 1 and text.index(PROGRAMMATIC_DEFINE) < text.index('#include "cutlass/')


def test_blockwise_kernels_are_programmatic_but_one_tile_and_their_scale_loads_wait():
    """Since blockwise generator 8 the blockwise kernels are launched as programmatic dependents, but the persistent
    fp8 128x128 tiles without a cluster that gather a K-major scale_a (measured slower early, session 46). CUTLASS 4.2's
    cooperative kernel runs the scales' copies (the collective's load_auxiliary) in a producer warp that never waits
    for the kernel ahead; the kernel type wraps every mainloop (CUTLASS's, the overlapped, per-atom and int8 ones) in a
    collective whose load_auxiliary waits first."""
    from cutlass_gemm.kernels.emit_blockwise import programmatic_launch as blockwise_programmatic
    from cutlass_gemm.kernels.blockwise import BlockwiseConfig
    paths = sorted((ROOT / "generated" / "sm90_blockwise").glob("*.cu"))
    assert paths
    mainloops, seen = set(), {True: 0, False: 0}
    for path in paths:
        text = path.read_text()
        cfg = BlockwiseConfig.from_name(path.stem)
        on = blockwise_programmatic(cfg)
        assert on is not (cfg.ab == "e4m3" and cfg.tile[:2] == (128, 128) and cfg.cluster == (1, 1, 1)
                          and cfg.sfa_major == "k" and cfg.scheduler == "persistent"), path.name
        seen[on] += 1
        mainloops.add((cfg.ab, cfg.mainloop))
        _hooks(text, on, path.name)
        wrapper = text[text.index("struct WaitingAuxLoad"):]
        body = wrapper[wrapper.index("load_auxiliary("):]
        assert body.index("wait_on_dependent_grids();") < body.index("Mainloop::load_auxiliary("), path.name
        kernel = text[text.index("using GemmKernel = "):]
        kernel = kernel[:kernel.index(";")]
        assert "cg_blockwise_pdl::WaitingAuxLoad<CollectiveMainloop>" in kernel, path.name
    assert {("e4m3", "cutlass"), ("e4m3", "overlap"), ("e4m3", "atom"), ("s8", "overlap")} <= mainloops, mainloops
    assert seen[True] and seen[False], seen


def test_every_mixed_input_kernel_is_programmatic():
    """Mixed-input kernels (CUTLASS's waits before the producers' loads; bias read after the mainloop; alpha / beta
    values, not pointers) are launched as programmatic dependents: the persistent ones since mixed generator 4, the
    stream-K ones since 5 (their workspace cleared by a programmatic kernel, not a memset: test_streamk_pdl.py)."""
    from cutlass_gemm.kernels.emit_mixed import programmatic_launch as mixed_programmatic
    from cutlass_gemm.kernels.mixed_input import MixedInputConfig
    seen = {"persistent": 0, "streamk": 0}
    for path in sorted((ROOT / "generated" / "sm90_mixed").glob("*.cu")):
        cfg = MixedInputConfig.from_name(path.stem)
        assert mixed_programmatic(cfg) is True
        seen[cfg.scheduler] += 1
        _hooks(path.read_text(), True, path.name)
    assert seen["persistent"] and seen["streamk"], seen


def test_conv_kernels_are_programmatic_by_tile_and_read_their_scalars_after_the_mainloop():
    """The conv kernels with 128-row tiles are launched as programmatic dependents, the 64-row ones plainly
    (emit_conv.programmatic_launch, measured). CUTLASS's conv kernel waits (griddepcontrol.wait)
    in its producer before the first load; its scalar broadcasts (scale_x with the guard, scale_out) read their
    pointers in the constructor at kernel start unless their batch stride is dynamic and nonzero, in which case
    they read in the consumer's store callbacks after the mainloop. So every scalar node has the dynamic stride
    type, and the launcher passes it a nonzero value."""
    from cutlass_gemm.kernels.conv2d import Conv2dConfig
    from cutlass_gemm.kernels.emit_conv import programmatic_launch as conv_programmatic
    paths = sorted((ROOT / "generated" / "sm90_conv").glob("*.cu"))
    seen = {True: 0, False: 0}
    for path in paths:
        text = path.read_text()
        on = conv_programmatic(Conv2dConfig.from_name(path.stem))
        assert on is (Conv2dConfig.from_name(path.stem).tile[0] >= 128)
        seen[on] += 1
        _hooks(text, on, path.name)
        assert f"using ScalarStride = {LATE_SCALAR_STRIDE};" in text, path.name
        scalars = [line for line in text.splitlines() if "Sm90ScalarBroadcast<" in line]
        assert scalars and all("Sm90ScalarBroadcast<float, ScalarStride," in line for line in scalars), path.name
        assert f"kLateScalar = {LATE_SCALAR_VALUE};" in text, path.name
        args = next(line for line in text.splitlines() if line.strip().startswith("args.epilogue = "))
        assert args.count("kLateScalar") == len(scalars) + 1, path.name  # scale_x and its guard, scale_out
    assert seen[True] and seen[False], seen


def test_the_plain_setup_is_the_shared_text_and_the_programmatic_one_differs_only_in_the_launch():
    plain, prog = sm90_device_setup(False), sm90_device_setup(True)
    assert plain == _SM90_DEVICE_SETUP
    assert ATTRIBUTE not in plain and ATTRIBUTE in prog and SWITCH in prog
    # both keep the cluster attribute for clusters larger than one CTA
    assert plain.count("cudaLaunchAttributeClusterDimension") == prog.count("cudaLaunchAttributeClusterDimension") == 1


class _FakeLib:
    def __init__(self, state=1):
        self.state = state
        self.calls = []

    def _programmatic_switch(self, on):
        self.calls.append(on)
        before = self.state
        if on in (0, 1):
            self.state = on
        return before


def test_loader_switch_reaches_every_loaded_kernel_and_returns_the_previous_setting(monkeypatch):
    libs = {"a": _FakeLib(), "b": _FakeLib(), "plain": type("Plain", (), {"_programmatic_switch": None})()}
    monkeypatch.setattr(loader, "_loaded", libs)
    monkeypatch.setattr(loader, "_programmatic", None)
    monkeypatch.delenv("CUTLASS_GEMM_PDL", raising=False)
    assert loader.set_programmatic_launch(False) is True  # the default: on
    assert libs["a"].state == libs["b"].state == 0
    assert loader.set_programmatic_launch(True) is False
    assert libs["a"].state == libs["b"].state == 1
    monkeypatch.setattr(loader, "_programmatic", None)
    monkeypatch.setenv("CUTLASS_GEMM_PDL", "0")
    assert loader.set_programmatic_launch(True) is False  # the variable's default: off


class _Switch:
    """A ctypes function's stand-in (restype / argtypes settable, callable)."""

    def __init__(self):
        self.calls = []
        self.restype = self.argtypes = None

    def __call__(self, on):
        self.calls.append(on)
        return 1


def test_a_library_loaded_later_takes_the_process_setting(monkeypatch):
    monkeypatch.setattr(loader, "_programmatic", False)
    native = type("Native", (), {})()
    native.cg_set_programmatic_launch = _Switch()
    lib = object.__new__(loader.KernelLibrary)
    lib._bind_programmatic(native)
    assert native.cg_set_programmatic_launch.calls == [0]
    assert lib._programmatic_switch is native.cg_set_programmatic_launch


def test_a_library_without_the_switch_launches_plainly():
    lib = object.__new__(loader.KernelLibrary)
    lib._bind_programmatic(object())
    assert lib._programmatic_switch is None and lib.programmatic is False
