"""Programmatic dependent launches of the CUTLASS GEMMs on the GPU (kernels/emit.programmatic_launch: the SM90
persistent kernels, the per-tensor scale kinds since generator 5, their scalars read after the mainloop): such a
kernel may be scheduled while the kernel ahead of it still runs; CUTLASS's producer warps wait (griddepcontrol.wait) before their first load and the epilogue reads its vectors after the
mainloop. What must hold: every input written by the kernel right ahead (activation, weight, scales, bias, zero-point
terms) is read as written; a chain of layers, each reading the last one's output, gives the same bits with the switch
on and off, eager and replayed from a CUDA graph; the switch reaches the kernels the ops use."""
import pytest
import torch

import cutlass_gemm
from cutlass_gemm.nn import Fp8Linear, Int8Linear
from cutlass_gemm.ops import gemm
from cutlass_gemm.runtime import extension, loader
from gpu_helpers import assert_same_bits, layer_chain, same_bits_with_and_without_pdl

pytestmark = pytest.mark.gpu

#: (M, N, K): the 128x128 pingpong kernels (32 CTAs, each its whole K); the 256x128 cooperative 1x2-cluster ones
#: (more tiles than SMs: persistent CTAs, the last ones' early triggers)
SHAPES = [(512, 1024, 2048), (4096, 2048, 1024)]


@pytest.fixture
def switch():
    """Both switches (the kernel libraries' and the extension's) set per test, restored after."""
    before = loader.set_programmatic_launch(True)
    ext = extension.load()
    ext_before = ext.pdl_set(-1) if ext is not None and hasattr(ext, "pdl_set") else None

    def set_all(on: bool):
        loader.set_programmatic_launch(on)
        if ext_before is not None:
            ext.pdl_set(int(on))
    yield set_all
    loader.set_programmatic_launch(before)
    if ext_before is not None:
        ext.pdl_set(ext_before)


#: Scale kinds: per-token x per-channel; per-tensor activations (int8: x per-channel weights, the static W8A8
#: kernels; e4m3: x a per-tensor weight scale, the fp8 checkpoint kernels), whose kernels read a scalar
SCALES = ["vector", "tensor"]


def _tensor_kinds(dtype):
    return ("tensor", "channel") if dtype == "int8" else ("tensor", "tensor")


def _inputs(dtype, g, shape, azp=False, scales="vector"):
    M, N, K = shape
    sa, sb = _tensor_kinds(dtype) if scales == "tensor" else ("token", "channel")
    if dtype == "int8":
        a = torch.randint(-128, 128, (M, K), dtype=torch.int8, device="cuda", generator=g)
        b = torch.randint(-128, 128, (N, K), dtype=torch.int8, device="cuda", generator=g)
    else:
        a = (torch.randn(M, K, device="cuda", generator=g) * 2).to(torch.float8_e4m3fn)
        b = (torch.randn(N, K, device="cuda", generator=g) * 2).to(torch.float8_e4m3fn)
    t = {"a": a, "b": b,
         "scale_a": torch.rand(*((M, 1) if sa == "token" else (1,)), device="cuda", generator=g) + 0.5,
         "scale_b": torch.rand(*((1, N) if sb == "channel" else (1,)), device="cuda", generator=g) + 0.5,
         "bias": torch.randn(N, device="cuda", generator=g).bfloat16()}
    if azp:
        t["azp"] = torch.randint(-20, 20, (M,), dtype=torch.int32, device="cuda", generator=g)
        t["azp_adj"] = b.sum(dim=1, dtype=torch.int32)
    return t


def _call(t):
    if "azp" in t:
        return cutlass_gemm.scaled_mm_azp(t["a"], t["b"].t(), t["scale_a"], t["scale_b"], torch.bfloat16,
                                          t["azp_adj"], t["azp"], t["bias"])
    return cutlass_gemm.scaled_mm(t["a"], t["b"].t(), t["scale_a"], t["scale_b"], torch.bfloat16, t["bias"])


def _check(out, ref, what):
    """Each element within 1e-2 relative plus 2e-3 of the largest |ref| (cancellation near zero; fp8 wgmma's
    accumulation), as tests/test_ops_gpu.py checks."""
    bad = (out.double() - ref).abs() > 1e-2 * ref.abs() + 2e-3 * ref.abs().max()
    assert not bad.any(), f"{what}: {int(bad.sum())} elements off the float64 reference"


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("scales", SCALES)
def test_the_ops_kernels_take_the_switch(switch, shape, scales):
    M, N, _ = shape
    for a_dtype, variant in (("int8", "scaled_bias"), ("e4m3", "scaled_bias"), ("int8", "scaled_azp_per_token")):
        sa, sb = _tensor_kinds(a_dtype) if scales == "tensor" else ("token", "channel")
        lib, got_a, got_b = gemm.select_kernel(90, variant, a_dtype, "bf16", sa, sb, M, n=N)
        assert (got_a, got_b) == (sa, sb) == (lib.config.scale_a, lib.config.scale_b), lib.config.name
        switch(True)
        assert lib.programmatic, lib.config.name
        switch(False)
        assert not lib.programmatic, lib.config.name


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("scales", SCALES)
@pytest.mark.parametrize("dtype, azp", [("int8", False), ("e4m3", False), ("int8", True)])
@pytest.mark.parametrize("last", ["a", "b", "scale_a", "scale_b", "bias", "azp", "azp_adj"])
def test_an_input_written_by_the_kernel_right_ahead_is_read_as_written(switch, dtype, azp, last, shape, scales):
    """Old values first (a call reads them: their lines sit in L2 and the kernel's data may be cached), then the
    new ones, `last` copied by the kernel right ahead of the call; the call must equal a plain launch on the new
    values, bit for bit, and the float64 reference within bf16 rounding."""
    if last.startswith("azp") and not azp:
        pytest.skip("no zero point in this variant")
    g = torch.Generator(device="cuda").manual_seed(7)
    new = _inputs(dtype, g, shape, azp, scales)
    switch(False)
    want = _call(new)
    a = new["a"].double() - (new["azp"].double().reshape(-1, 1) if azp else 0)
    ref = (a @ new["b"].double().t()) * new["scale_a"].double() * new["scale_b"].double() + new["bias"].double()
    _check(want, ref, "plain launch")
    switch(True)
    for i in range(3):
        old = _inputs(dtype, g, shape, azp, scales)
        live = {name: tensor.clone() for name, tensor in old.items()}
        _call(live)  # the old values read once, by a programmatic launch
        for name in live:
            if name != last:
                live[name].copy_(new[name])
        live[last].copy_(new[last])  # the kernel right ahead of the call
        assert_same_bits(_call(live), want, f"round {i}, {last} written right ahead")


@pytest.mark.parametrize("cls, act", [(Int8Linear, "dynamic"), (Fp8Linear, "dynamic"),
                                      (Int8Linear, "dynamic_per_tensor"), (Int8Linear, "static")])
@pytest.mark.parametrize("m", [256, 1024, 4096])
def test_chain_of_dependent_layers_same_bits_with_and_without_pdl(switch, cls, act, m):
    # 6 layers of width 2048 (the extension's quant kernel, then the CUTLASS GEMM), each reading the last one's output;
    # per-tensor: the int8 per-tensor x per-channel kernels, the dynamic quantizer writing the scale right ahead
    cal = None
    if act == "static":
        cal = [torch.randn(64, 2048, device="cuda", generator=torch.Generator(device="cuda").manual_seed(3)).bfloat16()]
    run, _, g = layer_chain(lambda i, lin: cls.from_float(lin, act=act, calibration_data=cal), 2048, 6)
    if act != "dynamic":  # the layers' GEMM: the per-tensor kernel, launched as a programmatic dependent
        lib, sa, _ = gemm.select_kernel(90, "scaled_bias", "int8", "bf16", "tensor", "channel", m, n=2048)
        assert sa == "tensor" and lib.programmatic, lib.config.name
    same_bits_with_and_without_pdl(run, torch.randn(m, 2048, generator=g, device="cuda").bfloat16(), switch)
