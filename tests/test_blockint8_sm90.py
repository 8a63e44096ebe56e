"""CPU: the SM90 per-block int8 kernels of the blockwise family (BlockwiseConfig in_dtype "s8",
kernels/emit_blockwise_int8.py) and their routing in `scaled_mm_blockwise_int8` (ops/_blockwise_int8_sm90.py):
names, cache keys, validation, selection, emitted source, the fp8 names/keys/sources left unchanged, and
which calls `plan` sends to the CUTLASS kernel (device capability patched: no GPU here)."""
import json
from pathlib import Path

import pytest
import torch

from cutlass_gemm.kernels.blockwise import (GENERATED_SUBDIR, INT8_SELECTION, BlockwiseConfig, default_configs,
                                            int8_candidate_configs, int8_default_configs, select_config,
                                            select_int8_config)
from cutlass_gemm.kernels.emit_blockwise import emit_blockwise_source
from cutlass_gemm.kernels.families import family_of
from cutlass_gemm.kernels.mixed_input import parse_kernel_name
from cutlass_gemm.ops import _blockwise_int8_sm90 as sm90
from cutlass_gemm.ops.blockwise_int8 import blockwise_int8_backend

ROOT = Path(__file__).resolve().parents[1]
KEY_ARGS = dict(cutlass_version="4.2.0.0", nvcc_version="13.0", flags=("-O3",))


def test_int8_names_round_trip_and_are_distinct():
    for cfg in int8_default_configs():
        assert cfg.name.startswith("sm90_blockwise_s8_")
        assert BlockwiseConfig.from_name(cfg.name) == cfg == parse_kernel_name(cfg.name)
        assert family_of(cfg).name == "blockwise"
        assert cfg.to_dict()["in_dtype"] == "s8" and BlockwiseConfig.from_dict(cfg.to_dict()) == cfg
    big = select_int8_config("bf16", 4096)
    assert big.name == "sm90_blockwise_s8_bf16_sfak_t128x128x128_c1x2x1_cooperative_persistent_s0_ovl"
    fp8 = big.replace(in_dtype="e4m3", overlap=False)
    assert fp8 == select_config("bf16", 4096) and fp8.name != big.name
    assert fp8.cache_key(**KEY_ARGS) != big.cache_key(**KEY_ARGS)


def test_fp8_names_dicts_and_keys_unchanged():
    """The fp8 configs spell and hash as before int8 joined (in_dtype is absent from their dict)."""
    cfg = select_config("bf16", 4096)
    assert cfg.name == "sm90_blockwise_e4m3_bf16_sfak_t128x128x128_c1x2x1_cooperative_persistent_s0"
    assert "in_dtype" not in cfg.to_dict()
    old = {"sm": 90, "out_dtype": "bf16", "activation": "none", "sfa_major": "k", "tile": [128, 128, 128],
           "cluster": [1, 2, 1], "schedule": "cooperative", "scheduler": "persistent", "stages": 0}
    assert cfg.to_dict() == old and BlockwiseConfig.from_dict(old) == cfg
    assert cfg.cache_key(**KEY_ARGS) == "7c57b1fc1b7562bbb08a"  # computed on main before int8 joined


def test_committed_fp8_manifest_entries_unchanged_and_int8_listed():
    folder = ROOT / "generated" / GENERATED_SUBDIR
    kernels = json.loads((folder / "manifest.json").read_text())["kernels"]
    for cfg in default_configs():
        entry = kernels[cfg.name]
        assert entry["config"] == cfg.to_dict()
        assert ("in_dtype" in entry["config"]) == (cfg.in_dtype == "s8")
    assert {c.name for c in int8_default_configs()} <= set(kernels)


@pytest.mark.parametrize("changes, field", [
    (dict(sfa_major="mn"), "sfa_major"), (dict(tile=(128, 256, 128)), "tile"), (dict(tile=(128, 96, 128)), "tile"),
    (dict(tile=(128, 128, 128), schedule="pingpong"), "tile"), (dict(in_dtype="s4"), "in_dtype"),
    (dict(in_dtype="e4m3", overlap=True), "overlap")])
def test_int8_validation_names_the_field(changes, field):
    base = dict(in_dtype="s8", tile=(128, 128, 128), schedule="cooperative")
    base.update(changes)
    with pytest.raises(ValueError, match=f"BlockwiseConfig.{field}"):
        BlockwiseConfig(**base)


def test_int8_tiles_the_fp8_rule_refuses_are_valid():
    # per-channel weight scales: tile N need not hold a 128-wide weight block
    cfg = BlockwiseConfig(in_dtype="s8", tile=(128, 64, 128), schedule="pingpong")
    assert cfg.tile == (128, 64, 128)
    with pytest.raises(ValueError, match="BlockwiseConfig.tile"):
        cfg.replace(in_dtype="e4m3")


def test_int8_selection_by_m():
    assert INT8_SELECTION[0] == (16, None)
    assert select_int8_config("bf16", 1) is None and select_int8_config("bf16", 16) is None
    mid = select_int8_config("f16", 17, "silu")
    assert (mid.tile, mid.schedule, mid.activation, mid.out_dtype) == ((64, 128, 128), "pingpong", "silu", "f16")
    big = select_int8_config("bf16", 8192)
    assert (big.tile, big.cluster, big.schedule, big.overlap) == ((128, 128, 128), (1, 2, 1), "cooperative", True)
    names = {c.name for c in int8_candidate_configs("bf16")}
    for cfg in (mid.replace(out_dtype="bf16", activation="none"), big):
        assert cfg.name in names and cfg.replace(overlap=False).name in names
    defaults = {c.name for c in int8_default_configs()}
    assert len(defaults) == 19 and mid.name.replace("_silu", "") in defaults
    for act in ("relu", "relu6", "gelu_tanh", "silu"):
        assert big.replace(activation=act).name in defaults


def test_int8_emitted_source():
    cfg = select_int8_config("bf16", 4096, "relu6").replace(overlap=False)
    src = emit_blockwise_source(cfg)
    assert src == emit_blockwise_source(cfg)  # deterministic
    assert "using ElementAB = int8_t;" in src and "float_e4m3" not in src
    assert "Sm90BlockwiseScaleConfig<1, 1, 128, cute::GMMA::Major::K," in src
    assert "CgInt8BlockwiseMma<BaseMainloop, TiledMmaS32,\n" in src and "MMA_Traits<MmaOp, cg_bi8::F32Regs>" in src
    assert "    false>;" in src
    assert "0x4B400000" in src and "KernelTmaWarpSpecializedCooperativeFP8Blockwise" in src
    assert "LinCombPerColBiasEltAct<CgReLu6" in src and f'"{cfg.name}"' in src
    assert "in_dtype = s8" in src
    pp = emit_blockwise_source(select_int8_config("bf16", 100))
    assert "KernelTmaWarpSpecializedPingpongFP8Blockwise" in pp and "Layout<Shape<_1, _1, _1>>" in pp
    ovl = cfg.replace(overlap=True)
    assert ovl.name.endswith("_s0_ovl") and BlockwiseConfig.from_name(ovl.name) == ovl
    assert "    true>;" in emit_blockwise_source(ovl)
    st = emit_blockwise_source(cfg.replace(stages=5, activation="none"))
    assert "constexpr int kStages = 5;" in st
    fp8 = emit_blockwise_source(select_config("bf16", 4096))
    assert "in_dtype" not in fp8 and "cg_bi8" not in fp8


# ------------------------------------------------------------------------------------------- routing
def _call(m, n=256, k=512, block=128):
    a = torch.zeros(m, k, dtype=torch.int8)
    b = torch.zeros(n, k, dtype=torch.int8)
    return a, b, torch.ones(m, k // block), torch.ones(n, k // block)


@pytest.fixture
def as_sm90(monkeypatch):
    monkeypatch.setattr(sm90, "is_sm90", lambda device: True)
    monkeypatch.setattr(sm90, "ENABLED", True)
    monkeypatch.setattr(sm90, "_unavailable", {})


def test_plan_routes_sm90_calls(as_sm90, monkeypatch):
    a, b, sa, sb = _call(300)
    cfg = sm90.plan(a, b, sa, sb, None, torch.bfloat16, "silu", 128)
    assert cfg == select_int8_config("bf16", 300, "silu")
    assert sm90.plan(*_call(16), None, torch.bfloat16, "none", 128) is None          # decode: extension
    assert sm90.plan(*_call(300, block=64), None, torch.bfloat16, "none", 64) is None  # block 64: extension
    assert sm90.plan(*_call(300, n=100), None, torch.float16, "none", 128) is None    # N % 8: extension
    # views are no routing condition: strided scales and offset operands take the same kernel (copied in run)
    assert sm90.plan(a[:, 16:272], b[:, 16:272], sa[:, :2], sb.t().contiguous().t()[:, :2], None,
                     torch.bfloat16, "none", 128) == select_int8_config("bf16", 300)
    sm90._unavailable[cfg.name] = "not built"
    assert sm90.plan(a, b, sa, sb, None, torch.bfloat16, "silu", 128) is None
    monkeypatch.setattr(sm90, "ENABLED", False)
    assert sm90.plan(a, b, sa, sb, None, torch.bfloat16, "none", 128) is None


def test_plan_off_sm90(monkeypatch):
    monkeypatch.setattr(sm90, "is_sm90", lambda device: False)
    assert sm90.plan(*_call(4096), None, torch.bfloat16, "none", 128) is None


def test_backend_names(as_sm90, monkeypatch):
    assert blockwise_int8_backend("cpu") == "torch_reference"
    assert blockwise_int8_backend("cuda", m=4096) == "cutlass_sm90"
    monkeypatch.setattr(sm90, "ENABLED", False)
    from cutlass_gemm.runtime import extension
    monkeypatch.setattr(extension, "load", lambda: object())
    assert blockwise_int8_backend("cuda", m=4096) == "cuda_kernel"


def test_unloadable_kernel_warns_once_and_falls_back(as_sm90, monkeypatch):
    from cutlass_gemm.errors import KernelNotBuiltError
    from cutlass_gemm.runtime import loader

    def refuse(cfg):
        raise KernelNotBuiltError(f"{cfg.name} is not built")
    monkeypatch.setattr(loader, "get_kernel", refuse)
    cfg = select_int8_config("bf16", 4096)
    with pytest.warns(sm90.BlockwiseInt8KernelWarning, match=cfg.name):
        assert sm90.load(cfg) is None
    assert sm90.plan(*_call(4096), None, torch.bfloat16, "none", 128) is None
    with pytest.raises(ValueError):
        sm90.run_config(select_config("bf16", 4096), *_call(4096))
