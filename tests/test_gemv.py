"""CPU tests of the W8A8 decode GEMV's description and routing (kernels/gemv.py, heuristics.GEMV, ops/gemm.py
`_plan`); the kernel itself runs in tests/test_gemv_gpu.py."""
import pytest
import torch

from cutlass_gemm.errors import InvalidArgumentError
from cutlass_gemm.kernels import heuristics
from cutlass_gemm.kernels.gemv import MAX_M, GemvConfig
from cutlass_gemm.ops import gemm as ops
from cutlass_gemm.runtime import extension, gemv


def test_config_names_are_stable_and_validated():
    assert GemvConfig().name == "gemv_w8a8_int8_bf16_token_channel"
    assert GemvConfig("e4m3", "f16", "tensor", "tensor").name == "gemv_w8a8_e4m3_f16_tensor_tensor"
    assert GemvConfig.scheduler == "persistent"  # what ops/gemm.py reads: no workspace
    for bad in (dict(a_dtype="int4"), dict(out_dtype="f32"), dict(scale_a="channel"), dict(scale_b="token")):
        with pytest.raises(InvalidArgumentError):
            GemvConfig(**bad)


@pytest.mark.parametrize("m,variant,activation,a_dtype,want", [
    (1, "scaled", "none", "int8", True), (16, "scaled_bias", "none", "e4m3", True),
    (MAX_M + 1, "scaled", "none", "int8", False), (0, "scaled", "none", "int8", False),
    (4, "scaled_azp_per_token", "none", "int8", False), (4, "scaled_bias", "relu", "int8", False),
])
def test_heuristic_rows_route_only_what_the_kernel_serves(m, variant, activation, a_dtype, want):
    assert heuristics.gemv_serves(90, m, 4096, a_dtype, variant, activation) is want
    assert heuristics.gemv_serves(80, m, 8192, a_dtype, variant, activation) is False  # SM80: not measured


def test_extension_builds_the_gemv_sources():
    assert "gemv_w8a8.cu" in extension.SOURCES
    assert {"gemv_w8a8.cuh", "gemv_w8a8.h"} <= set(extension.HASHED)


class _FakeGemv:
    config = GemvConfig()
    _launch = object()
    function_address = 0
    workspace_address = 0
    scalar_scales_served = 3


def test_plan_takes_the_gemv_without_broadcast_or_workspace(monkeypatch):
    """The plan a decode call gets: the GEMV's launcher, scalar scales passed as they are (it reads one element
    itself), no workspace; with the GEMV unavailable the CUTLASS selection serves."""
    monkeypatch.setattr(ops, "kernel_sm", lambda dev: 90)
    monkeypatch.setattr(ops.fastpath, "module", lambda: None)
    seen = []
    monkeypatch.setattr(gemv, "kernel", lambda cfg: seen.append(cfg) or _FakeGemv())
    ops._plans.clear()
    plan = ops._plan(0, "scaled_bias", torch.int8, torch.bfloat16, "tensor", "tensor", 8, 4096, 4096)
    assert plan[1] is not None and isinstance(plan[1], _FakeGemv) and plan[2:] == (False, False, False, 0, 8)
    assert seen == [GemvConfig("int8", "bf16", "tensor", "tensor")]
    monkeypatch.setattr(gemv, "kernel", lambda cfg: None)
    monkeypatch.setattr(ops, "select_kernel", lambda *a, **kw: ("cutlass", a[4], a[5]))
    with pytest.raises(AttributeError):  # the stand-in "kernel" has no config: proves select_kernel was asked
        ops._plan(0, "scaled_bias", torch.int8, torch.bfloat16, "token", "channel", 9, 4096, 4096)
    ops._plans.clear()


def test_switch_off_by_environment(monkeypatch):
    monkeypatch.setenv(gemv.GEMV_ENV, "0")
    assert not gemv.enabled() and gemv.kernel(GemvConfig()) is None
    monkeypatch.setenv(gemv.GEMV_ENV, "1")
    assert gemv.enabled()


def test_e4m3_rows_follow_the_measurements():
    """Since the 4-chunk step at M 9..16 (session 15) e4m3 takes the GEMV at every N up to M = 16, as int8 does."""
    assert heuristics.gemv_serves(90, 8, 28672, "e4m3", "scaled") and heuristics.gemv_serves(90, 16, 28672, "int8", "scaled")
    assert heuristics.gemv_serves(90, 16, 4096, "e4m3", "scaled_bias")
    assert heuristics.gemv_serves(90, 16, 8192, "e4m3", "scaled_bias")
    assert not heuristics.gemv_serves(90, 17, 8192, "e4m3", "scaled_bias")


def test_kernel_wrapper_calls_the_launcher_address_and_names_its_error():
    """GemvKernel through a stand-in launcher with the cg_launch ABI (a ctypes callback): the arguments arrive in
    order, rc 0 returns, a nonzero rc raises KernelLaunchError with the extension's message."""
    import ctypes

    from cutlass_gemm.errors import KernelLaunchError
    seen = []

    @gemv._LAUNCH_TYPE
    def fake_launch(*args):
        seen.append(args)
        return 0 if args[3] <= 16 else 7

    class FakeModule:
        def gemv_w8a8_address(self, fp8, bf16, sa_vec, sb_vec):
            assert (fp8, bf16, sa_vec, sb_vec) == (True, False, False, True)
            return ctypes.cast(fake_launch, ctypes.c_void_p).value

        def gemv_w8a8_last_error(self):
            return "gemv_w8a8: M = 17 is outside 1..16"

    kern = gemv.GemvKernel(GemvConfig("e4m3", "f16", "tensor", "channel"), FakeModule())
    assert kern.workspace_size(16, 64, 64) == 0 and kern.config.scheduler == "persistent"
    kern.launch(16, 32, 48, 16, 64, 64, 64, 64, 64, 80, 96, None, None, None, None, None, 0, None)
    assert seen[0][3:9] == (16, 64, 64, 64, 64, 64) and seen[0][0] == 16
    with pytest.raises(KernelLaunchError, match="M = 17"):
        kern.launch(16, 32, 48, 17, 64, 64, 64, 64, 64, 80, 96, None, None, None, None, None, 0, None)
