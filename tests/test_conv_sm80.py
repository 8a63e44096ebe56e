"""The SM80 int8 implicit-GEMM conv kernels on the CPU: configs, selection, which family a device takes, emission and
the committed sources. Their GPU checks: tests/test_conv_int8_sm80_on_sm90_gpu.py."""
from pathlib import Path

import pytest
import torch

from cutlass_gemm.errors import UnsupportedDeviceError
from cutlass_gemm.kernels import conv2d
from cutlass_gemm.kernels.conv2d import Conv2dConfig, default_configs, resnet_configs, select_config
from cutlass_gemm.kernels.emit_conv import emit_conv_source
from cutlass_gemm.kernels.families import config_from_name, family_of
from cutlass_gemm.kernels.generate import generate_conv
from cutlass_gemm.ops import conv_igemm
from cutlass_gemm.ops import gemm as gemm_ops

ROOT = Path(__file__).resolve().parents[1]


def test_sm80_configs_validate_name_and_folder():
    cfg = Conv2dConfig(sm=80, activation="relu", tile=(128, 64, 64), stages=4)
    assert cfg.name == "sm80_conv2d_fprop_int8_bf16_relu_t128x64x64_c1x1x1_s4"
    assert config_from_name(cfg.name) == cfg and family_of(cfg).name == "conv2d"
    assert cfg.generated_subdir == "sm80_conv" and Conv2dConfig().generated_subdir == "sm90_conv"
    assert cfg.warp_shape == (64, 32, 64)
    for bad, field in ((dict(tile=(128, 128, 128)), "tile"), (dict(tile=(96, 128, 64)), "tile"),
                       (dict(cluster=(2, 1, 1)), "cluster"), (dict(stages=0), "stages"), (dict(sm=86), "sm")):
        with pytest.raises(ValueError, match=f"Conv2dConfig.{field}"):
            Conv2dConfig(**{"sm": 80, "tile": (128, 128, 64), "stages": 4, **bad})


def test_sm80_selection_and_sets():
    assert select_config("bf16", "none", 6272, 128, 128, sm=80).tile == (128, 128, 64)   # wide
    assert select_config("bf16", "relu", 6272, 64, 64, sm=80).tile == (128, 64, 64)      # narrow N
    assert select_config("s8", "relu", 49, 512, 512, sm=80).tile == (64, 128, 64)        # small M
    assert select_config("bf16", "none", 6272, 128, 128).sm == 90                        # SM90 unchanged
    cfgs = default_configs(80)
    assert len(cfgs) == 27 and all(c.sm == 80 and c.tile[2] == 64 and c.stages == 4 for c in cfgs)
    assert len(resnet_configs(sm=80)) == 12 and len(default_configs()) == 54
    for m in (49, 4095, 4096, 100000):
        for co in (8, 64, 65, 512):
            assert select_config("f16", "relu6", m, co, 64, sm=80) in cfgs


def test_kernel_config_follows_the_device_family(monkeypatch):
    """ops/conv_igemm.kernel_config: SM90 kernels on 9.0, SM80 ones on every 8.x (SM89's int8 family is SM80's),
    a typed error below."""
    for sm, want in ((90, 90), (89, 80), (80, 80)):
        monkeypatch.setattr(gemm_ops, "kernel_sm", lambda dev, sm=sm: sm)
        assert conv_igemm.kernel_config(0, "bf16", "relu", 6272, 128, 128).sm == want


def test_kernel_config_below_sm80_is_a_typed_device_error(monkeypatch):
    monkeypatch.setattr(torch.cuda, "get_device_capability", lambda device=None: (7, 5))
    monkeypatch.setattr(gemm_ops, "_device_sm", {})
    with pytest.raises(UnsupportedDeviceError, match="SM75"):
        conv_igemm.kernel_config(0, "bf16", "relu", 6272, 128, 128)


def test_emitted_sm80_kernel_joins_the_conv_mainloop_and_the_visitor_epilogue():
    text = emit_conv_source(Conv2dConfig(sm=80, out_dtype="s8", activation="relu6", tile=(64, 128, 64), stages=4))
    for part in ("DefaultConv2dFprop", "IteratorAlgorithm::kOptimized", "EpilogueWithVisitorCallbacks",
                 "ConvFpropWithVisitor", "static_assert(std::is_same<typename GemmBase::Mma::Operator",
                 "cg_act::GuardScale", "cg_act::ReLU6", "using ScaleOut", "cg_conv_launch", "cg_conv_workspace_size",
                 "GemmShape<32, 64, 64>", "cutlass::arch::Sm80"):
        assert part in text, part
    plain = emit_conv_source(Conv2dConfig(sm=80, tile=(128, 128, 64), stages=4))
    assert "ScaleOut" not in plain and "VisitorCompute<cg_act::ReLU" not in plain
    assert "Sm90EVT" not in plain and "arch::Sm90" not in plain and "griddepcontrol" not in plain


def test_committed_sm80_conv_sources_match_the_generator(tmp_path):
    """Drift check for generated/sm80_conv (tools/generate_kernels.py --conv --sm 80 rewrites it)."""
    generate_conv(default_configs(80), tmp_path)
    committed, fresh = ROOT / "generated" / "sm80_conv", tmp_path / "sm80_conv"
    assert sorted(p.name for p in committed.iterdir()) == sorted(p.name for p in fresh.iterdir())
    stale = [p.name for p in fresh.iterdir() if (committed / p.name).read_bytes() != p.read_bytes()]
    assert not stale, f"stale generated sources {stale}: run tools/generate_kernels.py --conv --sm 80"
    assert not (tmp_path / "sm90_conv").exists()  # only the SMs given are written
    assert conv2d.CONV_SMS == (80, 90)
