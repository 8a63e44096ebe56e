"""The SM90 mixed-input weight-only family on the CPU: config names and cache keys, the emitted C++, the
"cutlass_mixed_sm90_v1" prepack layout against two independent references (the wgmma A fragment table of
the PTX ISA + CUTLASS's converter orders, and CUTLASS's own `compute_memory_reordering_atom` compiled on the
host), the build/cache/loader path with a fake library, typed errors, the op's CPU path and the layer."""
import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
import torch

from cutlass_gemm.errors import InvalidArgumentError, KernelNotBuiltError
from cutlass_gemm.kernels import emit_mixed
from cutlass_gemm.kernels.config import KernelConfig
from cutlass_gemm.kernels.launcher_text import LAUNCHER_ABI_VERSION
from cutlass_gemm.kernels.emit_mixed import emit_mixed_source
from cutlass_gemm.kernels.generate import generate_mixed
from cutlass_gemm.kernels.families import config_from_name
from cutlass_gemm.kernels.mixed_input import MIXED_GENERATOR_VERSION, MixedInputConfig, default_configs, select_config
from cutlass_gemm.nn import WeightOnlyLinear
from cutlass_gemm.ops import weight_only as wo_ops
from cutlass_gemm.ops.weight_only import weight_only_backend, weight_only_linear, weight_only_mm
from cutlass_gemm.quant import prepack, quantize_weight_only, unpack
from cutlass_gemm.quant.prepack import LAYOUT, LAYOUT_MIXED, check_packed
from cutlass_gemm.quant.prepack_mixed import (atom_offsets, check_mixed_tensors, dequantize_mixed, prepack_mixed,
                                              storage_offsets, unpack_mixed, zero_term)
from cutlass_gemm.runtime import build, loader

ROOT = Path(__file__).resolve().parents[1]
FORMATS = [(bits, zp) for bits in (4, 8) for zp in (False, True)]


def _wq(n, k, bits, group, zp, dtype=torch.bfloat16, seed=0):
    g = torch.Generator().manual_seed(seed)
    w = torch.randn(n, k, generator=g) * torch.logspace(-1, 0, n).unsqueeze(1)
    return quantize_weight_only(w, bits, group, zero_point=zp, scale_dtype=dtype)


# ------------------------------------------------------------------------------------ config
def test_names_round_trip_and_read_in_field_order():
    cfgs = default_configs() + [MixedInputConfig(tile=(64, 128, 64), schedule="pingpong", cluster=(2, 1, 1), stages=4)]
    assert len(default_configs()) == 56  # 14 kernels in each of the 4 formats
    for cfg in cfgs:
        assert MixedInputConfig.from_name(cfg.name) == cfg == config_from_name(cfg.name)
        assert MixedInputConfig.from_dict(json.loads(json.dumps(cfg.to_dict()))) == cfg
    assert select_config("bf16", 4, False).name == "sm90_mixed_bf16_int4_sym_t128x256x64_c2x1x1_cooperative_s0"
    assert select_config("bf16", 4, False, 17).name == "sm90_mixed_bf16_int4_sym_t128x32x64_c2x1x1_cooperative_s0_streamk"
    assert select_config("f16", 8, True, 128).name == "sm90_mixed_f16_int8_zp_t128x128x128_c1x1x1_cooperative_s0_streamk"
    # the 128-wide K tile needs the group and K to be multiples of it; otherwise the same tile with K 64
    assert select_config("f16", 8, True, 128, 8192, 8192, 64).name.endswith("_t128x128x64_c1x1x1_cooperative_s0_streamk")
    assert select_config("f16", 8, True, 64, 8192, 8192 + 64).name.endswith("_t128x64x64_c1x1x1_cooperative_s0_streamk")
    assert select_config("f16", 8, True, 64, 8192, 8192).name.endswith("_t128x64x128_c1x1x1_cooperative_s0_streamk")
    # wide layers (WIDE_N) up to 64 rows of int4: 256-row weight tiles
    assert select_config("bf16", 4, False, 64, 28672, 4096, 128).name.endswith("_t256x64x128_c1x1x1_cooperative_s0_streamk")
    assert select_config("bf16", 4, False, 64, 28672, 4096, 64).name.endswith("_t256x64x64_c1x1x1_cooperative_s0_streamk")
    assert select_config("bf16", 4, False, 64, 16384, 4096, 128).name.endswith("_t128x64x64_c1x1x1_cooperative_s0_streamk")
    assert select_config("bf16", 4, False, 65, 28672, 4096, 128).name.endswith("_t256x128x64_c1x1x1_cooperative_s0_streamk")
    assert select_config("bf16", 4, False, 200, 28672, 4096, 128).name.endswith("_t128x256x64_c2x1x1_cooperative_s0")
    assert select_config("bf16", 4, False, 300, 28672, 4096, 128).name.endswith("_t256x128x64_c1x1x1_cooperative_s0_streamk")
    assert select_config("bf16", 8, False, 100, 28672, 4096).name.endswith("_t128x128x64_c1x1x1_cooperative_s0")
    assert select_config("bf16", 8, False, 64, 28672, 4096).name.endswith("_t128x64x128_c1x1x1_cooperative_s0_streamk")
    sel = {select_config(a, b, z, m, n, 4096, g) for a in ("bf16", "f16") for b in (4, 8) for z in (False, True)
           for m in (1, 33, 64, 65, 256, 257, 512, 513, None) for n in (1024, 4096, 28672) for g in (64, 128, None)}
    assert sel == set(default_configs())  # every kernel built is one the selection can pick, and back
    # narrow layers keep the 128 x 128 tile at every M (mixed_input.SMALL_N)
    assert select_config("bf16", 4, False, 17, 4095).name == "sm90_mixed_bf16_int4_sym_t128x128x64_c1x1x1_cooperative_s0"
    assert select_config("bf16", 4, False, 17, 4096).name.endswith("_t128x32x64_c2x1x1_cooperative_s0_streamk")
    assert cfgs[-1].name == "sm90_mixed_bf16_int4_sym_t64x128x64_c2x1x1_pingpong_s4"
    gemm = "sm90_int8_bf16_scaled_bias_token_channel_t128x128x128_c1x2x1_pingpong_s0_a16x16x8"
    assert config_from_name(gemm) == KernelConfig.from_name(gemm)
    with pytest.raises(ValueError):
        MixedInputConfig.from_name(gemm)
    with pytest.raises(ValueError):
        KernelConfig.from_name(cfgs[0].name)


@pytest.mark.parametrize("change,field", [({"sm": 86}, "sm"), ({"sm": 80}, "bits"),
                                          ({"sm": 80, "bits": 8, "schedule": "multistage"}, "tile"), ({"act_dtype": "f32"}, "act_dtype"), ({"bits": 3}, "bits"),
                                          ({"tile": (128, 128, 256)}, "tile"), ({"tile": (64, 128, 64)}, "tile"),
                                          ({"tile": (128, 24, 64)}, "tile"), ({"cluster": (1, 1, 2)}, "cluster"),
                                          ({"schedule": "multistage"}, "schedule"), ({"stages": 1}, "stages"),
                                          ({"scheduler": "splitk"}, "scheduler"),
                                          ({"scheduler": "streamk", "schedule": "pingpong", "tile": (64, 128, 64)},
                                           "scheduler")])
def test_invalid_configs_name_the_field(change, field):
    with pytest.raises(ValueError, match=rf"MixedInputConfig\.{field}"):
        MixedInputConfig(**change)


def test_cache_key_hashes_every_field_and_the_toolchain():
    base = MixedInputConfig()
    kw = dict(cutlass_version="4.2.0.0", nvcc_version="13.0.88", flags=build.compile_flags(90))
    variants = [base, base.replace(act_dtype="f16"), base.replace(bits=8), base.replace(zero_point=True),
                base.replace(tile=(128, 64, 64)), base.replace(cluster=(2, 1, 1)),
                base.replace(schedule="pingpong"), base.replace(stages=3), base.replace(scheduler="streamk")]
    keys = {c.cache_key(**kw) for c in variants}
    keys |= {base.cache_key(**{**kw, "nvcc_version": "12.8.0"}), base.cache_key(**{**kw, "cutlass_version": "4.3"}),
             base.cache_key(**{**kw, "flags": ("-O2",)})}
    assert len(keys) == len(variants) + 3
    assert build.cache_entry(base, nvcc_ver="13.0.88").path.name.startswith(base.name + "-")


# ------------------------------------------------------------------------------------ emitted C++
@pytest.mark.parametrize("bits,zp", FORMATS)
@pytest.mark.parametrize("act", ["bf16", "f16"])
def test_emitted_source_has_the_pieces(bits, zp, act):
    cfg = MixedInputConfig(act_dtype=act, bits=bits, zero_point=zp)
    src = emit_mixed_source(cfg)
    assert src == emit_mixed_source(cfg) and src.endswith("\n") and "  \n" not in src
    narrow = {(4, False): "int4b_t", (4, True): "uint4b_t", (8, False): "int8_t", (8, True): "uint8_t"}[(bits, zp)]
    assert f"using ElementW = cutlass::{narrow};" in src
    assert f"using ElementAct = cutlass::{'bfloat16_t' if act == 'bf16' else 'half_t'};" in src
    operand = "cute::tuple<ElementW, ElementScale, ElementZero>" if zp else "cute::tuple<ElementW, ElementScale>,"
    assert operand in src
    assert ("static_cast<ElementZero const*>(zeros)" in src) == zp
    for piece in ["LinCombPerRowBias<ElementOut, float, ElementAct, ElementOut, float>", "Shape<_128, _128, _64>",
                  "KernelTmaWarpSpecializedCooperative", "epilogue::TmaWarpSpecializedCooperative",
                  "using LayoutD = cutlass::layout::ColumnMajor;", "using LayoutX = cutlass::layout::ColumnMajor;",
                  "{static_cast<int>(n), static_cast<int>(m), static_cast<int>(k), 1}",
                  "cute::get<0>(stride_x) = ldx;", "cute::get<1>(stride_d) = ldo;",
                  "args.epilogue.thread.bias_ptr", "CG_EXPORT int cg_mixed_launch(", "CG_EXPORT size_t cg_mixed_workspace_size(",
                  f'cg_kernel_name() {{ return "{cfg.name}"; }}', f"cg_abi_version() {{ return {LAUNCHER_ABI_VERSION}; }}",
                  emit_mixed._ATOMS[bits], "cuTensorMapEncodeTiled", "setup_device(device)"]:
        assert piece in src, piece
    assert not re.search(r"/(home|root|tmp|work)/|\d{4}-\d{2}-\d{2}", src)
    assert "StreamK" not in src and "args.hw_info = " in src  # persistent: the launch's hw_info only


def test_streamk_kernels_emit_the_scheduler_and_an_hw_info_workspace():
    cfg = MixedInputConfig(tile=(128, 64, 64), scheduler="streamk")
    assert cfg.name.endswith("_cooperative_s0_streamk") and MixedInputConfig.from_name(cfg.name) == cfg
    src = emit_mixed_source(cfg)
    for piece in ["CollectiveEpilogue, cg_streamk::Scheduler>;",  # CUTLASS's stream-K scheduler (emit_streamk)
                  "args.scheduler.decomposition_mode = TileScheduler::DecompositionMode::StreamK;",
                  "args.scheduler.reduction_mode = TileScheduler::ReductionMode::Deterministic;"]:
        assert piece in src, piece
    # the workspace is sized with the launch's SM count (the stream-K scheduler's workspace depends on it)
    ws = src[src.index("CG_EXPORT size_t cg_mixed_workspace_size("):src.index("CG_EXPORT int cg_mixed_launch(")]
    assert "setup_device(device)" in ws and "args.hw_info = cutlass::KernelHardwareInfo{" in ws


def test_committed_sources_match_the_generator(tmp_path):
    """Drift check for generated/sm90_mixed (tools/generate_kernels.py --mixed rewrites it)."""
    generate_mixed(default_configs(), tmp_path)
    committed, fresh = ROOT / "generated" / "sm90_mixed", tmp_path / "sm90_mixed"
    assert sorted(p.name for p in committed.iterdir()) == sorted(p.name for p in fresh.iterdir())
    stale = [p.name for p in fresh.iterdir() if p.read_text() != (committed / p.name).read_text()]
    assert not stale, f"stale {stale}: run tools/generate_kernels.py --mixed"
    before = {p.name: p.stat().st_mtime_ns for p in fresh.iterdir()}
    generate_mixed(default_configs(), tmp_path)  # unchanged text: nothing rewritten
    assert before == {p.name: p.stat().st_mtime_ns for p in fresh.iterdir()}
    generate_mixed(default_configs()[:1], tmp_path, prune=False)  # a --name run keeps the manifest's set
    assert len(json.loads((fresh / "manifest.json").read_text())["kernels"]) == len(default_configs())
    generate_mixed(default_configs()[:1], tmp_path)
    assert sorted(p.name for p in fresh.iterdir()) == ["manifest.json", default_configs()[0].name + ".cu"]


# ------------------------------------------------------------------------------------ layout
def _fragment_reference(bits):
    """Atom offsets from the PTX ISA's wgmma A fragment (16-bit, registers a0..a7 of lane l = 4 g + t:
    row g (+8 for a2, a3, a6, a7), column 2 t + (0, 1) (+8 for a4..a7)) and CUTLASS's converter input
    orders (int4: nibble p holds register (0 2 4 6 1 3 5 7)[p]; int8: byte p of each 32-bit word holds
    (0 2 1 3)[p]), written independently of prepack_mixed's formula."""
    order = (0, 2, 4, 6, 1, 3, 5, 7) if bits == 4 else (0, 2, 1, 3, 4, 6, 5, 7)
    ref = torch.full((16, 16), -1, dtype=torch.int64)
    for lane in range(32):
        g, t = lane // 4, lane % 4
        for p in range(8):
            r = order[p]
            row = g + 8 * ((r // 2) % 2)
            col = 2 * t + r % 2 + 8 * (r // 4)
            ref[row, col] = 8 * lane + p
    return ref


@pytest.mark.parametrize("bits", [4, 8])
def test_atom_matches_the_fragment_table_and_tiles_are_n_fastest(bits):
    assert torch.equal(atom_offsets(bits), _fragment_reference(bits))
    n, k = 64, 128
    off = storage_offsets(n, k, bits)
    assert torch.equal(off.reshape(-1).sort().values, torch.arange(n * k))  # a permutation
    assert torch.equal(off[16:32, 0:16] - off[0:16, 0:16], torch.full((16, 16), 256))  # next block along N
    assert torch.equal(off[0:16, 16:32] - off[0:16, 0:16], torch.full((16, 16), 256 * n // 16))


_PROBE = r'''
#include <cstdio>
#include "cute/tensor.hpp"
#include "cute/atom/mma_traits_sm90_gmma.hpp"
#include "cutlass/numeric_types.h"
namespace cutlass {
%(cutlass_atom)s
}
using namespace cute;
template <class Layout> void dump(Layout layout, int n, int k, char const* tag) {
  printf("%%s", tag);
  for (int i = 0; i < n; ++i) for (int j = 0; j < k; ++j) printf(" %%d", int(layout(i, j, 0)));
  printf("\n");
}
int main() {
  int n = %(n)d, k = %(k)d;
  using CutlassInt4 = decltype(cutlass::compute_memory_reordering_atom<cutlass::bfloat16_t, Layout<Shape<_1, _1>>,
                                                                        Layout<Shape<_2, _4>, Stride<_4, _1>>>());
  using CutlassInt8 = decltype(cutlass::compute_memory_reordering_atom<cutlass::half_t, Layout<Shape<_1, _1>>,
                                                                        Layout<Shape<_2, _2>, Stride<_2, _1>>>());
  dump(tile_to_shape(CutlassInt4{}, make_shape(n, k, 1)), n, k, "cutlass4");
  dump(tile_to_shape(CutlassInt8{}, make_shape(n, k, 1)), n, k, "cutlass8");
  dump(tile_to_shape(%(emitted4)s{}, make_shape(n, k, 1)), n, k, "emitted4");
  dump(tile_to_shape(%(emitted8)s{}, make_shape(n, k, 1)), n, k, "emitted8");
}
'''


@pytest.mark.nvcc
def test_layout_matches_cutlass_compute_memory_reordering_atom(tmp_path):
    """CUTLASS's own reorder atom (the function text from the installed headers; its header cannot be
    included without curand) and the atoms the emitter writes, evaluated by CuTe on the host, against
    storage_offsets element by element. Not a GPU run: the kernel's use of the layout is CUTLASS's."""
    nvcc = build.find_nvcc()
    if nvcc is None:
        pytest.skip("nvcc not found")
    from cutlass_gemm.kernels.emit import cutlass_include_dirs
    inc = cutlass_include_dirs()
    text = (Path(inc[1]) / "cutlass" / "util" / "mixed_dtype_utils.hpp").read_text()
    start = text.index("template <class ElementMma,")
    end = text.index("return layout_atom;\n}", start) + len("return layout_atom;\n}")
    n, k = 48, 128
    src = _PROBE % {"cutlass_atom": text[start:end], "n": n, "k": k, "emitted4": emit_mixed._ATOMS[4],
                    "emitted8": emit_mixed._ATOMS[8]}
    (tmp_path / "probe.cu").write_text(src)
    subprocess.run([nvcc, "-std=c++17", "--expt-relaxed-constexpr", f"-I{inc[0]}", "probe.cu", "-o", "probe"],
                   cwd=tmp_path, check=True, capture_output=True, timeout=600)
    out = subprocess.run([str(tmp_path / "probe")], check=True, capture_output=True, text=True).stdout
    got = {line.split()[0]: torch.tensor([int(v) for v in line.split()[1:]]).view(n, k) for line in out.splitlines()}
    for bits in (4, 8):
        assert torch.equal(got[f"cutlass{bits}"], storage_offsets(n, k, bits)), f"int{bits} vs CUTLASS"
        assert torch.equal(got[f"emitted{bits}"], storage_offsets(n, k, bits)), f"int{bits} emitted atom"


@pytest.mark.parametrize("bits,zp", FORMATS)
@pytest.mark.parametrize("group", [64, 128, None])
@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16])
def test_prepack_unpack_round_trip_is_exact(bits, zp, group, dtype):
    wq = _wq(96, 384, bits, group, zp, dtype, seed=bits + 2 * zp)
    p = prepack(wq, "cutlass_mixed_sm90")
    assert p.layout == LAYOUT_MIXED and p.qweight.shape == (384 // 16, 96 * bits // 2) and p.qweight.dtype == torch.int32
    assert p.scales.shape == (384 // (group or 384), 96) and torch.equal(p.scales, wq.scale.t())
    back = unpack(p)
    assert torch.equal(back.q, wq.q) and torch.equal(back.scale, wq.scale) and back.bits == bits
    assert (back.zero is None) == (not zp) and (not zp or torch.equal(back.zero, wq.zero))
    # the small-M layout of the same weight unpacks to the same thing
    small = unpack(prepack(wq))
    assert torch.equal(small.q, back.q)


@pytest.mark.parametrize("bits,zp", FORMATS)
def test_packed_bits_follow_the_documented_storage(bits, zp):
    n, k = 32, 64
    wq = _wq(n, k, bits, 64, zp, seed=7)
    words = prepack_mixed(wq).qweight.reshape(-1).tolist()
    off = storage_offsets(n, k, bits)
    per = 32 // bits
    for i in range(0, n, 5):
        for j in range(0, k, 3):
            o = int(off[i, j])
            field = ((words[o // per] & 0xFFFFFFFF) >> (bits * (o % per))) & (2 ** bits - 1)
            assert field == int(wq.q[i, j]) & (2 ** bits - 1)  # two's complement (sym) or unsigned (zp)


def test_act_order_perm_travels_with_the_weight():
    wq = _wq(64, 256, 4, 128, False)
    perm = torch.randperm(256, generator=torch.Generator().manual_seed(3))
    wq = type(wq)(wq.q, wq.scale, wq.zero, wq.bits, wq.group_size, perm)
    p = prepack_mixed(wq)
    assert torch.equal(p.perm, perm) and torch.equal(unpack_mixed(p).perm, perm)
    assert torch.equal(dequantize_mixed(p, torch.bfloat16).double(), wq.dequantize().to(torch.bfloat16).double())


@pytest.mark.parametrize("bits", [4, 8])
def test_kernel_weight_formula(bits):
    """Symmetric: q * s rounded once (= the exact weight in the dtype); zero points: q * s + (-(z * s)),
    each rounded (within 2 roundings of the exact weight)."""
    sym = prepack_mixed(_wq(64, 128, bits, 64, False))
    assert torch.equal(dequantize_mixed(sym, torch.bfloat16), unpack(sym).dequantize().to(torch.bfloat16))
    zp = prepack_mixed(_wq(64, 128, bits, 64, True))
    exact = unpack(zp).dequantize()
    got = dequantize_mixed(zp, torch.bfloat16).double()
    s = unpack(zp).scale.double().repeat_interleave(64, dim=1)
    zt = zero_term(zp.scales, zp.zeros, torch.bfloat16).double().t().repeat_interleave(64, dim=1)
    bound = 2 ** -8 * ((unpack(zp).q.double() * s).abs() + zt.abs() + exact.abs()) + 1e-30
    assert ((got - exact).abs() <= bound).all()


# ------------------------------------------------------------------------------------ typed errors
def test_layouts_are_not_interchangeable():
    wq = _wq(64, 128, 4, 64, False)
    small, mixed = prepack(wq), prepack(wq, "cutlass_mixed_sm90")
    kw = dict(bits=4, group_size=64, n=64, k=128)
    with pytest.raises(InvalidArgumentError) as e:
        check_packed(mixed.qweight, mixed.scales, None, layout=LAYOUT_MIXED, **kw)
    assert e.value.argument == "layout"
    with pytest.raises(InvalidArgumentError) as e:
        check_mixed_tensors(small.qweight, small.scales, None, layout=LAYOUT, **kw)
    assert e.value.argument == "layout"
    x = torch.randn(3, 128).to(torch.bfloat16)
    with pytest.raises(InvalidArgumentError) as e:  # mixed tensors labelled as the small-M layout
        weight_only_mm(x, mixed.qweight, mixed.scales, layout=LAYOUT, bits=4, group_size=64)
    assert e.value.argument == "qweight"
    with pytest.raises(InvalidArgumentError) as e:  # and the other way round
        weight_only_mm(x, small.qweight, small.scales, layout=LAYOUT_MIXED, bits=4, group_size=64)
    assert e.value.argument == "qweight"
    with pytest.raises(InvalidArgumentError) as e:
        WeightOnlyLinear.from_packed(mixed)
    assert e.value.argument == "packed"


def test_group_32_and_bad_shapes_are_refused():
    with pytest.raises(InvalidArgumentError) as e:
        prepack(_wq(64, 128, 4, 32, False), "cutlass_mixed_sm90")
    assert e.value.argument == "group_size"
    with pytest.raises(InvalidArgumentError) as e:
        prepack(_wq(48, 128, 4, 64, False), "cutlass_mixed_sm90")
    assert e.value.argument == "weight"
    with pytest.raises(InvalidArgumentError) as e:
        prepack(_wq(64, 128, 4, 64, False), "machete")
    assert e.value.argument == "layout"


# ------------------------------------------------------------------------------------ op and layer (CPU)
@pytest.mark.parametrize("bits,zp", FORMATS)
def test_cpu_op_on_either_layout_gives_the_same_result(bits, zp):
    wq = _wq(64, 256, bits, 128, zp)
    x = torch.randn(2, 70, 256).to(torch.bfloat16)
    bias = torch.randn(64).to(torch.bfloat16)
    a = weight_only_linear(x, prepack(wq), bias)
    b = weight_only_linear(x, prepack(wq, "cutlass_mixed_sm90"), bias)
    assert b.shape == (2, 70, 64) and torch.equal(a, b)


def test_backend_reporting_and_the_opt_in(monkeypatch):
    wq = _wq(64, 128, 4, 64, False)
    small, mixed = prepack(wq), prepack(wq, "cutlass_mixed_sm90")
    assert weight_only_backend(2048, mixed) == "cpu_reference"
    assert weight_only_backend(2048, small, mixed) == "cpu_reference"
    with pytest.raises(InvalidArgumentError) as e:
        weight_only_backend(2048, small, small)
    assert e.value.argument == "mixed"
    for value, on in [("1", True), ("yes", True), ("0", False), ("", True), ("off", False), ("false", False)]:
        monkeypatch.setenv(wo_ops.MIXED_INPUT_ENV, value)
        assert wo_ops.mixed_input_enabled() is on
    monkeypatch.delenv(wo_ops.MIXED_INPUT_ENV)
    assert wo_ops.mixed_input_enabled()  # on by default since it ran on the H100


@pytest.mark.parametrize("zp", [False, True])
def test_layer_keeps_a_mixed_copy_only_when_asked(zp):
    lin = torch.nn.Linear(256, 96, bias=True).to(torch.bfloat16)
    plain = WeightOnlyLinear.from_float(lin, bits=4, group_size=128, zero_point=zp)
    both = WeightOnlyLinear.from_float(lin, bits=4, group_size=128, zero_point=zp, large_m_backend="cutlass_mixed")
    assert plain.packed_mixed is None and "qweight_mixed" not in plain.state_dict()
    pm = both.packed_mixed
    assert pm.layout == LAYOUT_MIXED and torch.equal(unpack(pm).q, unpack(both.packed).q)
    assert torch.equal(unpack(pm).scale, unpack(both.packed).scale)
    x = torch.randn(100, 256).to(torch.bfloat16)
    assert torch.equal(plain(x), both(x))  # CPU: the reference either way
    fresh = WeightOnlyLinear(256, 96, bits=4, group_size=128, zero_point=zp, large_m_backend="cutlass_mixed")
    fresh.load_state_dict(both.state_dict())
    assert torch.equal(fresh.qweight_mixed, both.qweight_mixed) and "large_m_backend='cutlass_mixed'" in repr(fresh)
    with pytest.raises(InvalidArgumentError) as e:
        WeightOnlyLinear(256, 96, group_size=32, large_m_backend="cutlass_mixed")
    assert e.value.argument == "group_size"
    with pytest.raises(InvalidArgumentError) as e:
        WeightOnlyLinear(256, 96, large_m_backend="machete")
    assert e.value.argument == "large_m_backend"


# ------------------------------------------------------------------------------------ build, cache, loader
_FAKE = r'''
#include <stddef.h>
#include <stdint.h>
#define X __attribute__((visibility("default")))
static int64_t seen[16];
X int cg_abi_version(void) { return %(abi)d; }
X const char* cg_kernel_name(void) { return "%(name)s"; }
X const char* cg_last_error(void) { return "fake"; }
X size_t cg_mixed_workspace_size(int64_t m, int64_t n, int64_t k, int64_t g) { return (size_t)(m + n + k + g); }
X int cg_mixed_launch(void* w, void* x, void* o, void* s, void* z, void* b, int64_t m, int64_t n, int64_t k,
                     int64_t ldx, int64_t ldo, int64_t g, void* ws, size_t wsb, void* stream) {
  int64_t v[] = {(int64_t)w, (int64_t)x, (int64_t)o, (int64_t)s, (int64_t)z, (int64_t)b, m, n, k, ldx, ldo, g,
                 (int64_t)ws, (int64_t)wsb, (int64_t)stream};
  for (int i = 0; i < 15; ++i) seen[i] = v[i];
  return m == 13 ? 1 : 0;
}
X void seen_args(int64_t* out) { for (int i = 0; i < 15; ++i) out[i] = seen[i]; }
'''


def test_build_path_and_loader_with_a_fake_library(tmp_path, monkeypatch):
    """The real build()/lookup()/get_kernel() path (cache entry, metadata, per-family generator version and
    fingerprint, verification, dlopen, name and ABI check) with cc standing in for nvcc; the ctypes launch
    passes its 15 arguments in the C ABI's order."""
    if shutil.which("cc") is None:
        pytest.skip("needs a C compiler (cc)")
    import ctypes
    cfg = select_config("bf16", 4, False)
    monkeypatch.setenv(build.CACHE_ENV, str(tmp_path / "cache"))
    monkeypatch.setattr(build, "_nvcc_version", lambda nvcc: "13.0.88")
    monkeypatch.setattr(loader, "_loaded", {})

    def fake_compile(source_path, out_path, sm, **kw):
        src = Path(out_path).with_suffix(".c")
        src.write_text(Path(source_path).read_text())
        subprocess.run(["cc", "-shared", "-fPIC", "-x", "c", str(src), "-o", str(out_path)], check=True)
        return 0.01

    monkeypatch.setattr(build, "compile_source", fake_compile)
    monkeypatch.setattr(emit_mixed, "emit_mixed_source",
                        lambda c: _FAKE % {"abi": LAUNCHER_ABI_VERSION, "name": c.name})
    lib = loader.get_kernel(cfg)
    assert isinstance(lib, loader.MixedInputLibrary)
    meta = json.loads(lib.path.with_suffix(".json").read_text())
    assert meta["generator"] == MIXED_GENERATOR_VERSION
    assert meta["generator_fingerprint"] == build.generator_fingerprint(cfg)
    assert build.generator_fingerprint(cfg) != build.generator_fingerprint()
    assert lib.workspace_size(2, 3, 4, 5) == 14
    lib.launch(1, 2, 3, 4, None, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15)
    out = (ctypes.c_int64 * 15)()
    lib._lib.seen_args(out)
    assert list(out) == [1, 2, 3, 4, 0, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15]
    with pytest.raises(Exception, match="failed with code 1: fake"):
        lib.launch(0, 0, 0, 0, 0, 0, 13, 1, 1, 1, 1, 1, 0, 0, 0)
    # a GEMM-family library under a mixed name lacks cg_mixed_launch: refused, never called
    gemm_src = "int cg_abi_version(void){return %d;} const char* cg_kernel_name(void){return \"%s\";}" \
               " const char* cg_last_error(void){return \"\";} int cg_launch(void){return 0;}" \
               " unsigned long cg_workspace_size(void){return 0;}" % (LAUNCHER_ABI_VERSION, cfg.name)
    (tmp_path / "g.c").write_text(gemm_src)
    subprocess.run(["cc", "-shared", "-fPIC", str(tmp_path / "g.c"), "-o", str(tmp_path / "g.so")], check=True)
    with pytest.raises(KernelNotBuiltError, match="generate_kernels.py --mixed"):
        loader.MixedInputLibrary(cfg, tmp_path / "g.so")
