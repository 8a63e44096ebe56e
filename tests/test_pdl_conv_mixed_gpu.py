"""Programmatic dependent launches of the int8 implicit-GEMM convs and the mixed-input (weight-only) GEMMs on the GPU
(SM90; kernels/emit_conv.py since conv generator 5, kernels/emit_mixed.programmatic_launch since mixed-input generator 4
for the persistent kernels, 5 for the stream-K ones). Such a kernel may be scheduled while the kernel ahead of it still
runs; both rely on CUTLASS's producer waits, the conv's scalar scales being read after the mainloop (a dynamic batch
stride; the conv kernels with 128-row tiles are programmatic, the 64-row ones plain), the stream-K kernels on their
workspace being cleared by a fill kernel that waits for the kernel ahead (kernels/emit_streamk.py). What must hold:
every input written by the kernel right ahead is read as written (bit for bit against a plain launch); a chain of
dependent layers gives the same bits with the switch on and off, eager and replayed from a CUDA graph (a stream-K
chain reuses one workspace block call after call, cleared while the last call may still run); the switch reaches the
kernels the ops use.

Kernels: the conv cases take the 128x64x64 2-CTA-cluster tile and the 128x128x128 one (bf16 and int8 out); the
weight-only layers the mixed-input kernels of 4096 x 4096 int4 g128 at 1024 and 2048 rows (persistent), 128 and 300
(stream-K, 128x128 and 256x128 tiles)."""
import copy

import pytest
import torch

from cutlass_gemm.kernels.conv2d import select_config as conv_config
from cutlass_gemm.kernels.mixed_input import select_config as mixed_config
from cutlass_gemm.nn import WeightOnlyLinear
from cutlass_gemm.ops.conv_igemm import conv2d_int8_igemm, reference
from cutlass_gemm.runtime import loader
from gpu_helpers import assert_same_bits, layer_chain, same_bits_with_and_without_pdl
from test_pdl_gemm_gpu import switch  # noqa: F401  (the fixture: both switches set per test, restored after)

pytestmark = pytest.mark.gpu


@pytest.fixture(autouse=True)
def _sm90():
    if not torch.cuda.is_available() or torch.cuda.get_device_capability() != (9, 0):
        pytest.skip("the conv and mixed-input CUTLASS kernels are SM90 only")


# ---- int8 implicit-GEMM convs -------------------------------------------------------------------------------------

#: (n, h, w, ci, co): 3x3, stride 1, padding 1. 64 -> 64 takes the narrow 2-CTA-cluster tile; the second has more
#: CTAs than one wave (the last wave's CTAs let the next kernel in while the earlier ones are done).
CONV_SHAPES = [(4, 15, 13, 64, 64), (32, 28, 28, 128, 128)]
CONV_INPUTS = ["x", "w", "scale_x", "scale_guard", "w_scale", "bias", "scale_out"]


def _conv_inputs(g, shape, out_dtype):
    n, h, w, ci, co = shape
    t = {"x": torch.randint(-128, 128, (n, h, w, ci), dtype=torch.int8, device="cuda", generator=g),
         "w": torch.randint(-127, 128, (co, 3, 3, ci), dtype=torch.int8, device="cuda", generator=g),
         "scale_x": torch.rand(1, device="cuda", generator=g) * 0.01 + 0.005,
         "scale_guard": torch.rand(1, device="cuda", generator=g) + 0.5,
         "w_scale": torch.rand(co, device="cuda", generator=g) * 2e-3 + 1e-4,
         "bias": torch.randn(co, device="cuda", generator=g)}
    if out_dtype == torch.int8:
        t["scale_out"] = torch.rand(1, device="cuda", generator=g) * 0.5 + 0.5  # the reciprocal of the out scale
    else:
        t["bias"] = t["bias"].to(out_dtype)
    return t


def _conv(t, out_dtype, activation="relu"):
    return conv2d_int8_igemm(t["x"], t["w"], t["scale_x"], t["w_scale"], t["bias"], (1, 1), (1, 1), (1, 1),
                             activation, out_dtype, scale_out=t.get("scale_out"), scale_guard=t["scale_guard"])


@pytest.mark.parametrize("shape", CONV_SHAPES)
@pytest.mark.parametrize("out_dtype", [torch.bfloat16, torch.int8])
def test_conv_kernels_take_the_switch(switch, shape, out_dtype):
    n, h, w, ci, co = shape
    od = "s8" if out_dtype == torch.int8 else "bf16"
    lib = loader.get_kernel(conv_config(od, "relu", n * h * w, co, ci))
    narrow = loader.get_kernel(conv_config(od, "relu", 32 * 7 * 7, 512, 512))  # a 64-row tile: launched plainly
    assert lib.config.tile[0] == 128 and narrow.config.tile[0] == 64
    switch(True)
    assert lib.programmatic, lib.config.name
    assert not narrow.programmatic, narrow.config.name
    switch(False)
    assert not lib.programmatic, lib.config.name


@pytest.mark.parametrize("shape", CONV_SHAPES)
@pytest.mark.parametrize("out_dtype", [torch.bfloat16, torch.int8])
@pytest.mark.parametrize("last", CONV_INPUTS)
def test_conv_input_written_by_the_kernel_right_ahead_is_read_as_written(switch, shape, out_dtype, last):
    """Old values read once by a programmatic launch, then the new ones written, `last` by the kernel right ahead
    of the call: the call equals a plain launch on the new values bit for bit (and that one the float64 reference
    within one rounding step). The scalars are the case the wrapper exists for: CUTLASS's epilogue reads them when
    the kernel starts."""
    if last == "scale_out" and out_dtype != torch.int8:
        pytest.skip("scale_out: int8-output kernels only")
    g = torch.Generator(device="cuda").manual_seed(11)
    new = _conv_inputs(g, shape, out_dtype)
    switch(False)
    want = _conv(new, out_dtype)
    cpu = {k: v.cpu() for k, v in new.items()}
    ref = reference(cpu["x"], cpu["w"], cpu["scale_x"], cpu["w_scale"], cpu["bias"], (1, 1), (1, 1), (1, 1), "relu",
                    out_dtype, cpu.get("scale_out"), scale_guard=cpu["scale_guard"])
    if out_dtype == torch.int8:
        assert (want.cpu().int() - ref.int()).abs().max().item() <= 1, "plain launch vs float64"
    else:
        assert torch.allclose(want.cpu().double(), ref.double(), rtol=1e-2, atol=1e-2 * ref.abs().max().item())
    switch(True)
    for i in range(3):
        live = {k: v.clone() for k, v in _conv_inputs(g, shape, out_dtype).items()}
        _conv(live, out_dtype)  # the old values read once
        for name in live:
            if name != last:
                live[name].copy_(new[name])
        live[last].copy_(new[last])  # the kernel right ahead of the call
        assert_same_bits(_conv(live, out_dtype), want, f"round {i}, {last} written right ahead")


def test_conv_chain_same_bits_with_and_without_pdl(switch):
    """Four convs, each reading the last one's int8 output (the int8 chain), the last in bf16: the same bits with
    the switch off, on eagerly, and on from 20 back-to-back graph replays."""
    g = torch.Generator(device="cuda").manual_seed(5)
    n, h, w, c = 32, 28, 28, 128
    layers = []
    for i in range(4):
        t = _conv_inputs(g, (n, h, w, c, c), torch.int8 if i < 3 else torch.bfloat16)
        t["scale_out"] = t.get("scale_out", None)
        layers.append(t)

    def run(x):
        for i, t in enumerate(layers):
            t = dict(t, x=x)
            x = _conv(t, torch.int8 if i < 3 else torch.bfloat16)
        return x
    plain = same_bits_with_and_without_pdl(run, layers[0]["x"], switch)
    assert plain.abs().max() > 0


# ---- mixed-input (weight-only) GEMMs ------------------------------------------------------------------------------

MIXED_M = [128, 300, 1024, 2048]  # stream-K kernels at 4096 x 4096 up to 512 rows, persistent ones above
MIXED_INPUTS = ["x", "qweight_mixed", "scales_mixed", "bias"]


def _mixed_layer(g, k=4096, n=4096):
    lin = torch.nn.Linear(k, n, device="cuda", dtype=torch.bfloat16)
    with torch.no_grad():
        lin.weight.copy_(torch.randn(n, k, generator=g, device="cuda") / k ** 0.5)
        lin.bias.copy_(torch.randn(n, generator=g, device="cuda"))
    return WeightOnlyLinear.from_float(lin, bits=4, group_size=128, large_m_backend="cutlass_mixed")


@pytest.mark.parametrize("m", MIXED_M)
def test_mixed_kernels_take_the_switch(switch, m):
    lib = loader.get_kernel(mixed_config("bf16", 4, False, m, 4096, 4096, 128))
    assert lib.config.scheduler == ("streamk" if m <= 512 else "persistent")
    switch(True)
    assert lib.programmatic, lib.config.name
    switch(False)
    assert not lib.programmatic, lib.config.name


@pytest.mark.parametrize("m", MIXED_M)
@pytest.mark.parametrize("last", MIXED_INPUTS)
def test_mixed_input_written_by_the_kernel_right_ahead_is_read_as_written(switch, m, last):
    g = torch.Generator(device="cuda").manual_seed(3)
    new_layer = _mixed_layer(g)
    new_x = torch.randn(m, 4096, generator=g, device="cuda").bfloat16()
    switch(False)
    want = new_layer(new_x)
    w = new_layer.qweight_mixed  # the float64 check of the plain launch is tests/test_weight_only_mixed_gpu.py's
    assert want.isfinite().all() and w.dtype == torch.int32
    switch(True)
    new = dict(new_layer.state_dict(), x=new_x)
    for i in range(3):
        live_layer = copy.deepcopy(_mixed_layer(g))
        live = dict(live_layer.state_dict(), x=torch.randn(m, 4096, generator=g, device="cuda").bfloat16())
        live_layer(live["x"])  # the old values read once
        for name in MIXED_INPUTS:
            if name != last:
                live[name].copy_(new[name])
        live[last].copy_(new[last])  # the kernel right ahead of the call
        assert_same_bits(live_layer(live["x"]), want, f"round {i}, {last} written right ahead")


@pytest.mark.parametrize("m", MIXED_M)
def test_mixed_chain_same_bits_with_and_without_pdl(switch, m):
    run, _, g = layer_chain(lambda i, lin: WeightOnlyLinear.from_float(lin, bits=4, group_size=128,
                                                                       large_m_backend="cutlass_mixed"), 4096, 4)
    same_bits_with_and_without_pdl(run, torch.randn(m, 4096, generator=g, device="cuda").bfloat16(), switch)
