"""W8A16 on SM80-SM89 at large M: the layout "cutlass_upcast_sm80_v1", the SM80 kernel of the mixed-input family
(CUTLASS 2's upcast GEMM), the op's routing and WeightOnlyLinear(large_m_backend="cutlass_upcast"), on the CPU.
The kernel runs in tests/test_weight_only_upcast_sm80_on_sm90_gpu.py."""
import inspect
from pathlib import Path

import pytest
import torch

import cutlass_gemm.nn as cnn
from cutlass_gemm.errors import InvalidArgumentError
from cutlass_gemm.kernels.emit_mixed import emit_mixed_source
from cutlass_gemm.kernels.generate import generate_mixed
from cutlass_gemm.kernels.mixed_input import MixedInputConfig, default_configs, sm80_config
from cutlass_gemm.nn.weight_only import resolve_large_m_backend
from cutlass_gemm.ops import gemm as gemm_ops
from cutlass_gemm.ops import weight_only as wo
from cutlass_gemm.quant import quantize_weight_only
from cutlass_gemm.quant.prepack import LAYOUT_UPCAST, dequantize_packed, prepack, unpack
from cutlass_gemm.runtime import extension

ROOT = Path(__file__).resolve().parents[1]


def _wq(n=96, k=160, bits=8, group=None, zp=False, seed=0):
    g = torch.Generator().manual_seed(seed)
    return quantize_weight_only(torch.randn(n, k, generator=g), bits, group, zero_point=zp, scale_dtype=torch.bfloat16)


def test_prepack_round_trip_and_the_formats_it_refuses():
    wq = _wq()
    packed = prepack(wq, "cutlass_upcast_sm80")
    assert packed.layout == LAYOUT_UPCAST and packed.qweight.dtype == torch.int8 and packed.qweight.shape == (96, 160)
    assert packed.scales.shape == (1, 96) and packed.zeros is None
    back = unpack(packed)
    assert torch.equal(back.q, wq.q) and torch.equal(back.scale, wq.scale)
    assert torch.equal(dequantize_packed(packed, torch.float32), wq.dequantize(torch.float64).float())
    for kw in (dict(bits=4), dict(group=32), dict(zp=True), dict(n=92)):
        with pytest.raises(InvalidArgumentError, match="^wq"):
            prepack(_wq(**kw), "cutlass_upcast_sm80")


def test_the_op_on_the_cpu_is_the_float_reference_and_checks_its_arguments():
    wq = _wq(seed=1)
    packed = prepack(wq, "cutlass_upcast_sm80")
    x = torch.randn(5, 160).bfloat16()
    bias = torch.randn(96).bfloat16()
    y = wo.weight_only_mm(x, packed.qweight, packed.scales, None, bias, layout=LAYOUT_UPCAST, bits=8, group_size=0,
                          n=96)
    ref = (x.float() @ wq.dequantize(torch.float32).t() + bias.float()).bfloat16()
    assert torch.equal(y, ref)
    with pytest.raises(InvalidArgumentError, match="^qweight"):
        wo.weight_only_mm(x, packed.qweight.int(), packed.scales, None, None, layout=LAYOUT_UPCAST, bits=8,
                          group_size=0, n=96)
    with pytest.raises(InvalidArgumentError, match="^bits"):
        wo.weight_only_mm(x, packed.qweight, packed.scales, None, None, layout=LAYOUT_UPCAST, bits=8, group_size=64,
                          n=96)


def test_upcast_usable_follows_the_device_family(monkeypatch):
    dev = torch.device("cuda", 0)
    for sm, want in ((80, True), (89, True), (90, False)):
        monkeypatch.setattr(gemm_ops, "kernel_sm", lambda index, sm=sm: sm)
        assert wo.upcast_usable(dev) is want
    monkeypatch.setattr(gemm_ops, "kernel_sm", lambda index: 80)
    assert wo.upcast_usable(torch.device("cpu")) is False
    monkeypatch.setenv(wo.MIXED_INPUT_ENV, "0")
    assert wo.upcast_usable(dev) is False


def test_auto_large_m_backend_on_an_sm80_device(monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "current_device", lambda: 0)
    monkeypatch.setattr(torch.cuda, "get_device_capability", lambda device=None: (8, 0))
    monkeypatch.setattr(gemm_ops, "_device_sm", {})
    assert resolve_large_m_backend("auto", None, 8, False) == "cutlass_upcast"
    assert resolve_large_m_backend("auto", 128, 4, False) == "dequant"
    assert resolve_large_m_backend("auto", None, 8, True) == "dequant"
    monkeypatch.setattr(torch.cuda, "get_device_capability", lambda device=None: (9, 0))
    assert resolve_large_m_backend("auto", None, 8, False) == "cutlass_mixed"


def test_layer_holds_the_upcast_copy_and_round_trips_its_state():
    torch.manual_seed(0)
    lin = torch.nn.Linear(192, 96).bfloat16()
    layer = cnn.WeightOnlyLinear.from_float(lin, bits=8, group_size=None, large_m_backend="cutlass_upcast")
    plain = cnn.WeightOnlyLinear.from_float(lin, bits=8, group_size=None, large_m_backend="dequant")
    wq = unpack(plain.packed)
    assert torch.equal(layer.qweight_upcast, wq.q.to(torch.int8))
    assert torch.equal(layer.scales_upcast, wq.scale.reshape(1, -1))
    assert layer.packed_upcast.layout == LAYOUT_UPCAST and "cutlass_upcast" in repr(layer)
    x = torch.randn(3, 192).bfloat16()
    assert torch.equal(layer(x), plain(x))  # the CPU reference either way
    fresh = cnn.WeightOnlyLinear(192, 96, bits=8, group_size=None, large_m_backend="cutlass_upcast")
    fresh.load_state_dict(layer.state_dict())
    assert torch.equal(fresh.qweight_upcast, layer.qweight_upcast) and torch.equal(fresh(x), layer(x))
    with pytest.raises(InvalidArgumentError, match="^large_m_backend"):
        cnn.WeightOnlyLinear(192, 96, bits=4, group_size=64, large_m_backend="cutlass_upcast")


def test_sm80_kernel_configs_and_committed_sources(tmp_path):
    cfgs = default_configs(80)
    assert [c.name for c in cfgs] == ["sm80_mixed_bf16_int8_sym_t128x128x64_c1x1x1_multistage_s4",
                                      "sm80_mixed_f16_int8_sym_t128x128x64_c1x1x1_multistage_s4"]
    assert all(MixedInputConfig.from_name(c.name) == c and c.generated_subdir == "sm80_mixed" for c in cfgs)
    assert sm80_config("f16") == cfgs[1] and len(default_configs()) == 56
    text = emit_mixed_source(cfgs[0])
    for part in ("cutlass::arch::OpMultiplyAddMixedInputUpcast", "cutlass::arch::Sm80", "int8_t, cutlass::layout::ColumnMajor",
                 "cg_mixed_launch", "cg_mixed_workspace_size", "Sm80EVT"):
        assert part in text, part
    generate_mixed(cfgs, tmp_path)
    committed, fresh = ROOT / "generated" / "sm80_mixed", tmp_path / "sm80_mixed"
    assert sorted(p.name for p in committed.iterdir()) == sorted(p.name for p in fresh.iterdir())
    stale = [p.name for p in fresh.iterdir() if (committed / p.name).read_bytes() != p.read_bytes()]
    assert not stale, f"stale generated sources {stale}: run tools/generate_kernels.py --mixed --sm 80"


def test_opcheck_on_the_upcast_layout():
    packed = prepack(_wq(seed=3), "cutlass_upcast_sm80")
    x = torch.randn(4, 160).bfloat16()
    torch.library.opcheck(torch.ops.cutlass_gemm.weight_only_mm.default,
                          (x, packed.qweight, packed.scales, None, torch.randn(96).bfloat16(), None),
                          dict(layout=LAYOUT_UPCAST, bits=8, group_size=0, n=96))


class _CudaLooking(torch.Tensor):
    """A CPU tensor whose `is_cuda` says True: the op's CUDA branches run here, off every GPU (so the fallbacks),
    with no torch-function override (which would add Python frames to the stack the warnings count)."""
    __torch_function__ = torch._C._disabled_torch_function_impl

    @property
    def is_cuda(self):
        return True


def test_the_fallback_warnings_name_the_callers_line_on_every_layout(monkeypatch):
    """The three dequantize fallbacks (the standard layout with no extension, the SM90 mixed-input layout off SM90,
    the SM80 upcast layout off SM80-SM89) name the line of the code that called the library (errors.warn_user), on
    the dispatcher path (torch's OpOverloadPacket.__call__ between) and on weight_only_mm's eager path alike, so that
    Python's once-per-location filter shows one warning per call site of the user's code."""
    monkeypatch.setattr(extension, "load", lambda: None)
    x = torch.randn(80, 256, generator=torch.Generator().manual_seed(4)).bfloat16().as_subclass(_CudaLooking)
    for fmt, bits, group, why in (("mma_sm80", 4, 128, "M = 80 > "), ("cutlass_mixed_sm90", 4, 128, "off an SM90 GPU"),
                                  ("cutlass_upcast_sm80", 8, None, "off an SM80-SM89 GPU")):
        packed = prepack(_wq(128, 256, bits, group), fmt)
        for eager in (False, True):  # the dispatcher, then weight_only_mm's eager branches
            monkeypatch.setattr(wo, "_eager_direct", lambda a, eager=eager: eager)
            with pytest.warns(wo.WeightOnlyFallbackWarning, match=why) as rec:
                line = inspect.currentframe().f_lineno + 1
                y = wo.weight_only_linear(x, packed)
            assert [(w.filename, w.lineno) for w in rec] == [(__file__, line)], (fmt, eager)
            assert str(rec[0].message).endswith(f"dequantizing the int{bits} weight to torch.bfloat16 and calling "
                                                "F.linear (slow, documented fallback; see weight_only_backend)")
            assert y.shape == (80, 128) and y.dtype == torch.bfloat16
