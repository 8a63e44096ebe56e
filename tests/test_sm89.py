"""The SM89 (Ada) fp8 kernel family on the CPU: emission, build flags, which family a call on an SM89 device takes.
Its kernels run in tests/test_sm89_on_sm90_gpu.py."""
import types

import pytest
import torch

from cutlass_gemm.errors import BuildError, UnsupportedDeviceError
from cutlass_gemm.kernels import emit, heuristics
from cutlass_gemm.kernels.config import KernelConfig
from cutlass_gemm.ops import gemm as ops
from cutlass_gemm.runtime import build


def test_kernel_sm_of_each_device_capability(monkeypatch):
    for cap, sm in (((9, 0), 90), ((8, 9), 89), ((8, 6), 80), ((8, 0), 80), ((8, 7), 80)):
        monkeypatch.setattr(torch.cuda, "get_device_capability", lambda device=None, cap=cap: cap)
        monkeypatch.setattr(ops, "_device_sm", {})
        assert ops.kernel_sm(0) == sm, cap


def test_family_sm_sends_int8_on_sm89_to_the_sm80_kernels():
    assert heuristics.family_sm(89, "int8") == 80
    assert heuristics.family_sm(89, "e4m3") == 89
    assert heuristics.family_sm(80, "e4m3") == 80  # SM80-SM87: no fp8 family; select_kernel raises
    assert heuristics.family_sm(90, "int8") == heuristics.family_sm(90, "e4m3") == 90


def test_sm89_default_set_is_fp8_multistage_and_its_table_row_per_m():
    configs = heuristics.default_configs(89)
    assert len(configs) == 24
    assert all(c.sm == 89 and c.a_dtype == "e4m3" and c.schedule == "multistage" for c in configs)
    assert {c.variant for c in configs} == set(heuristics.FP8_VARIANTS)
    assert {(c.scale_a, c.scale_b) for c in configs} == set(heuristics.SCALE_KINDS["e4m3"])
    for m, tile in ((1, (32, 128, 128)), (32, (32, 128, 128)), (33, (128, 128, 64)), (256, (128, 128, 64)),
                    (257, (256, 128, 64)), (8192, (256, 128, 64))):
        assert heuristics.choose_tile(89, m, 4096, "e4m3", 4096).tile == tile, m
        assert heuristics.padded_rows(89, m, 4096, "e4m3") == m  # no TMA, no partial-tile padding
        assert not heuristics.gemv_serves(89, m, 4096, "e4m3", "scaled")


def test_select_kernel_on_sm89_names_the_sm89_fp8_kernel_and_refuses_fp8_on_sm80(monkeypatch):
    asked = []

    def fake(cfg):
        asked.append(cfg)
        return types.SimpleNamespace(config=cfg)
    monkeypatch.setattr(ops.loader, "cached_kernel", fake)
    monkeypatch.setattr(ops, "_selected", {})
    lib, sa, sb = ops.select_kernel(89, "scaled_bias", "e4m3", "bf16", "token", "channel", 200, n=4096, k=4096)
    assert lib.config.name == "sm89_e4m3_bf16_scaled_bias_token_channel_t128x128x64_c1x1x1_multistage_s4_a16x16x8"
    assert (sa, sb) == ("token", "channel")
    lib, _, _ = ops.select_kernel(89, "scaled_bias", "int8", "bf16", "token", "channel", 200, n=4096, k=4096)
    assert lib.config.sm == 80 and lib.config.a_dtype == "int8"  # a device's kernel SM is mapped to the int8 family
    with pytest.raises(UnsupportedDeviceError, match="SM89"):
        ops.select_kernel(80, "scaled", "e4m3", "bf16", "token", "channel", 16)


def test_plan_on_an_sm89_device_takes_the_family_of_the_input_type(monkeypatch):
    """ops._plan asks select_kernel with heuristics.family_sm: SM80 kernels for int8, SM89 ones for fp8."""
    seen = []

    def fake_select(sm, variant, a_dtype, out_dtype, sa, sb, m, choice=None, activation="none", n=0, k=0):
        seen.append((sm, a_dtype))
        cfg = heuristics.make_config(sm, variant, out_dtype, heuristics.choose_tile(sm, m, n, a_dtype, k),
                                     a_dtype=a_dtype)
        return types.SimpleNamespace(config=cfg, _launch=None, scalar_scales_served=0), sa, sb
    monkeypatch.setattr(ops, "select_kernel", fake_select)
    monkeypatch.setattr(ops, "kernel_sm", lambda dev: 89)
    monkeypatch.setattr(ops, "_plans", {})
    monkeypatch.setattr(ops.fastpath, "module", lambda: None)
    monkeypatch.setattr(ops.autotune, "enabled", lambda: False)
    for dtype, want in ((torch.int8, (80, "int8")), (torch.float8_e4m3fn, (89, "e4m3"))):
        plan = ops._plan(0, "scaled_bias", dtype, torch.bfloat16, "token", "channel", 16, 4096, 4096)
        assert seen[-1] == want and plan[1].config.sm == want[0]


def test_emitted_sm89_kernel_is_ada_fp8_with_the_sm80_evt():
    text = (build.GENERATED / "sm89" / f"{heuristics.default_configs(89)[0].name}.cu").read_text()
    assert "cutlass::arch::Sm89" in text and "cutlass::float_e4m3_t" in text
    assert "cutlass::gemm::GemmShape<16, 8, 32>" in text  # mma.sync m16n8k32 e4m3
    assert "Sm80EVT" in text and "Sm90" not in text


def test_an_sm89_tile_cutlass_does_not_list_is_a_typed_error():
    cfg = KernelConfig(sm=89, a_dtype="e4m3", tile=(96, 64, 128), schedule="multistage", stages=3)
    with pytest.raises(BuildError, match="SM89 offers"):
        emit.emit_source(cfg)


def test_sm89_machine_code_targets_come_from_the_environment_and_change_the_cache_key(monkeypatch):
    cfg = heuristics.default_configs(89)[0]
    monkeypatch.delenv(build.SM89_ARCHS_ENV, raising=False)
    monkeypatch.delenv(build.SM80_ARCHS_ENV, raising=False)
    assert build.family_targets(89) == (89,)
    assert build.arch_flags(89) == ("-gencode=arch=compute_89,code=[sm_89,compute_89]",)
    plain = build.cache_entry(cfg, "13.0").key
    monkeypatch.setenv(build.SM89_ARCHS_ENV, "90")
    assert build.arch_flags(89) == ("-gencode=arch=compute_89,code=[sm_89,sm_90,compute_89]",)
    assert build.cache_entry(cfg, "13.0").key != plain
    assert build.arch_flags(80) == ("-gencode=arch=compute_80,code=[sm_80,compute_80]",)  # SM80's own variable
    for bad in ("80", "86", "sm_90"):  # an SM89 kernel cannot run as sm_80 / sm_86 machine code
        monkeypatch.setenv(build.SM89_ARCHS_ENV, bad)
        with pytest.raises(BuildError, match=build.SM89_ARCHS_ENV):
            build.compile_flags(89)
