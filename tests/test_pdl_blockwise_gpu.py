"""Programmatic dependent launches of the blockwise-scaled GEMMs on the GPU (SM90; blockwise generator 8). Such a kernel
may be scheduled while the kernel ahead of it still runs. It relies on CUTLASS's producer waits, and on the wrapper
that makes the cooperative kernel's auxiliary load warp (the blockwise scales' copies) wait too
(kernels/emit_blockwise._WAITING_AUX). The stream-K kernel also relies on its programmatic workspace fill.

What must hold:
- every input written by the kernel right ahead is read as written, bit for bit against a plain launch (the float64
  checks of the kernels are tests/test_blockwise_gpu.py's);
- a chain of Fp8BlockLinear / Int8BlockLinear layers gives the same bits with the switch on and off, eager and
  replayed from a CUDA graph. Each layer's activation quantizer (the extension's per-group kernel) triggers its
  dependents first, so there the GEMM's scale copies really do start before their scales are written;
- the switch reaches the kernels the ops use.

Kernels (`pytest -m gpu`; build them first with `python tools/generate_kernels.py --blockwise --compile --name ...`):
KERNELS below, and the layers' selections at CHAIN_M rows (select_config).
"""
from unittest import mock

import pytest
import torch

import cutlass_gemm
from cutlass_gemm.kernels.blockwise import BlockwiseConfig
from cutlass_gemm.kernels.blockwise_heuristics import layer_sfa_major, padded_rows, select_config
from cutlass_gemm.kernels.emit_blockwise import programmatic_launch
from cutlass_gemm.nn import Fp8BlockLinear, Int8BlockLinear
from cutlass_gemm.ops import blockwise as bops
from cutlass_gemm.quant.blockwise import quantize_act_block, quantize_weight_block2d
from cutlass_gemm.runtime import loader
from gpu_helpers import assert_same_bits, layer_chain, same_bits_with_and_without_pdl
from test_pdl_gemm_gpu import switch  # noqa: F401  (the fixture: both switches set per test, restored after)

pytestmark = pytest.mark.gpu

#: one kernel per mainloop and schedule of the fp8 family, and its stream-K one (the int8 ones run in the chains); the
#: first launches plainly (programmatic_launch), so its right-ahead test checks the plain launch
KERNELS = [
    "sm90_blockwise_e4m3_bf16_sfak_t128x128x128_c1x1x1_cooperative_persistent_s0_ovl",
    "sm90_blockwise_e4m3_bf16_sfak_t128x128x128_c1x1x1_cooperative_streamk_s0",
    "sm90_blockwise_e4m3_bf16_sfak_t64x128x128_c1x1x1_pingpong_persistent_s0",
    "sm90_blockwise_e4m3_bf16_sfak_t256x128x128_c1x2x1_cooperative_persistent_s0_atm",
]
INPUTS = ["a", "b", "scale_a", "scale_b", "bias"]
M, N, K = 300, 1032, 2048
#: rows of the layer chains (width CHAIN_WIDTH): the 64x128 pingpong, 128x128 cooperative and 256x128 tiles of each
#: family (1100 rows: 5 x 16 tiles of 256 x 128, more than WIDE_MIN_TILES)
CHAIN_M = [96, 300, 1100]
CHAIN_WIDTH = 2048


@pytest.fixture(autouse=True)
def _sm90():
    if not torch.cuda.is_available() or torch.cuda.get_device_capability() != (9, 0):
        pytest.skip("the blockwise kernels are SM90 only")


def chain_kernels():
    """The kernels the chains below select (for the build command)."""
    names = set(KERNELS)
    for m in CHAIN_M:
        rows = padded_rows(m, "e4m3", CHAIN_WIDTH)  # the fp8 layers run whole M tiles
        names.add(select_config("bf16", rows, sfa_major=layer_sfa_major(rows), n=CHAIN_WIDTH).name)
        names.add(select_config("bf16", m, sfa_major=layer_sfa_major(m, "s8"), ab="s8", n=CHAIN_WIDTH).name)
    return sorted(names)


def _inputs(seed):
    g = torch.Generator().manual_seed(seed)
    aq = quantize_act_block(torch.randn(M, K, generator=g))
    wq = quantize_weight_block2d(torch.randn(N, K, generator=g) * 0.05)
    return dict(a=aq.q.cuda(), b=wq.q.cuda().t(), scale_a=aq.scale.cuda(), scale_b=wq.scale.cuda(),
                bias=torch.randn(N, generator=g).bfloat16().cuda())


def _call(cfg, c):
    with mock.patch.object(bops, "select_config", lambda *a, **kw: cfg):
        return cutlass_gemm.scaled_mm_blockwise(**c)


@pytest.mark.parametrize("name", KERNELS)
def test_blockwise_kernels_take_the_switch(switch, name):
    """The switch reaches the programmatic ones; the 128x128 fp8 tile without a cluster and with a K-major scale_a
    launches plainly (emit_blockwise.programmatic_launch: measured slower early) whatever the switch says."""
    cfg = BlockwiseConfig.from_name(name)
    lib = loader.get_kernel(cfg)
    switch(True)
    assert lib.programmatic is programmatic_launch(cfg), name
    switch(False)
    assert not lib.programmatic, name


@pytest.mark.parametrize("name", KERNELS)
@pytest.mark.parametrize("last", INPUTS)
def test_input_written_by_the_kernel_right_ahead_is_read_as_written(switch, name, last):
    cfg = BlockwiseConfig.from_name(name)
    new = _inputs(1)
    bops._plans.clear()
    switch(False)
    want = _call(cfg, new)
    assert want.isfinite().all()
    switch(True)
    try:
        for i in range(3):
            live = _inputs(10 + i)  # b: the (k, n) view of a row-major weight, as the op takes it
            _call(cfg, live)  # the old values read once
            for key in INPUTS:
                if key != last:
                    live[key].copy_(new[key])
            live[last].copy_(new[last])  # the kernel right ahead of the call
            assert_same_bits(_call(cfg, live), want, f"{name} round {i}, {last} written right ahead")
    finally:
        bops._plans.clear()


@pytest.mark.parametrize("m", CHAIN_M)
def test_fp8_block_chain_same_bits_with_and_without_pdl(switch, m):
    run, _, g = layer_chain(lambda i, lin: Fp8BlockLinear.from_float(lin), CHAIN_WIDTH, 4)
    same_bits_with_and_without_pdl(run, torch.randn(m, CHAIN_WIDTH, generator=g, device="cuda").bfloat16(), switch)


@pytest.mark.parametrize("m", CHAIN_M)
def test_int8_block_chain_same_bits_with_and_without_pdl(switch, m):
    run, _, g = layer_chain(lambda i, lin: Int8BlockLinear.from_float(lin), CHAIN_WIDTH, 4)
    same_bits_with_and_without_pdl(run, torch.randn(m, CHAIN_WIDTH, generator=g, device="cuda").bfloat16(), switch)


if __name__ == "__main__":
    print("\n".join(chain_kernels()))
