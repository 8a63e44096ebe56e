"""GPU correctness of the activation epilogues and the bias-free zero-point kernels (SM90): every
activation x case against float64, on random data, outputs poisoned with NaN, every element checked;
NaN propagation; the C++ fast path switching activations on one shape; opcheck; torch.compile of a layer.
Run with `pytest -m gpu tests/test_activation_gpu.py`.

Kernels it needs (M <= 64 everywhere, so one tile: t64x64x128_c1x1x1_pingpong_s0_a16x16x8; bf16 out;
per-token x per-channel kernels only: a per-tensor scale runs on them with the scalar broadcast, as
activation kernels are outside the default set). `KERNELS` below lists the 30 names: 24 new activation
kernels and 6 plain ones (int8 scaled_bias, e4m3 scaled_bias and the new scaled_azp_per_token_nobias are
prebuilt; scaled_azp and scaled_azp_per_token are in the default set, tests/test_ops_gpu.py builds them;
scaled_azp_nobias is new, in the default set):

    sm90_int8_bf16_{V}[_{ACT}]_token_channel_t64x64x128_c1x1x1_pingpong_s0_a16x16x8
        V in scaled_bias, scaled_azp, scaled_azp_nobias, scaled_azp_per_token, scaled_azp_per_token_nobias
    sm90_e4m3_bf16_scaled_bias[_{ACT}]_token_channel_t64x64x128_c1x1x1_pingpong_s0_a16x16x8
        ACT in relu, relu6, gelu_tanh, silu (and none: the plain kernel)

Prebuild them (about a minute each per core) with
    python tools/generate_kernels.py --out /tmp/act_gen --compile \
        $(python -c "import sys; sys.path.insert(0, 'tests'); import test_activation_gpu as t; print(' '.join('--name ' + n for n in t.KERNELS))")
"""
import math

import pytest
import torch

import cutlass_gemm
import cutlass_gemm.nn as cnn
from test_ops_gpu import reference64 as plain_reference64

pytestmark = pytest.mark.gpu

ACTS = [None, "relu", "relu6", "gelu_tanh", "silu"]
#: case -> (input dtype, variant the dispatcher picks, per-tensor scales?)
CASES = {
    "int8_bias": ("int8", "scaled_bias", False),
    "int8_azp_tensor_bias": ("int8", "scaled_azp", False),
    "int8_azp_tensor_nobias": ("int8", "scaled_azp_nobias", False),
    "int8_azp_token_bias": ("int8", "scaled_azp_per_token", False),
    "int8_azp_token_nobias": ("int8", "scaled_azp_per_token_nobias", False),
    "fp8_token": ("e4m3", "scaled_bias", False),
    "fp8_tensor": ("e4m3", "scaled_bias", True),
}
#: (M, N, K): odd M; N a multiple of 8 (the kernels' 16-byte rows) but not of the 64-wide tile; K not of 128.
SHAPES = [(37, 200, 96), (61, 136, 272), (1, 40, 48)]
_TILE = "t64x64x128_c1x1x1_pingpong_s0_a16x16x8"
KERNELS = sorted({f"sm90_{dt}_bf16_{v}{'' if a is None else '_' + a}_token_channel_{_TILE}"
                  for dt, v, _ in CASES.values() for a in ACTS})


def _act64(name, x):
    if name is None:
        return x
    if name == "relu":
        return x.clamp_min(0)
    if name == "relu6":
        return x.clamp(0, 6)
    if name == "gelu_tanh":
        return 0.5 * x * (1 + torch.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3)))
    return x * torch.sigmoid(x)


def make_case(case, m, n, k, seed=0):
    dt, variant, per_tensor = CASES[case]
    g = torch.Generator(device="cuda").manual_seed(seed)
    if dt == "e4m3":
        a = (torch.randn((m, k), device="cuda", generator=g) * 4).to(torch.float8_e4m3fn)
        w = (torch.randn((n, k), device="cuda", generator=g) * 4).to(torch.float8_e4m3fn)
        unit = 1.0 / (16 * math.sqrt(k))  # scale_a * scale_b * acc ~ N(0, 1) .. spread below
    else:
        a = torch.randint(-128, 128, (m, k), dtype=torch.int8, device="cuda", generator=g)
        w = torch.randint(-128, 128, (n, k), dtype=torch.int8, device="cuda", generator=g)
        unit = 1.0 / (5461 * math.sqrt(k))
    # scale_a * scale_b ~ 4 * unit: pre-activation values mostly in [-12, 12], both sides of 0 and of 6
    sa = (torch.rand((1,) if per_tensor else (m, 1), device="cuda", generator=g) + 0.5) * 2 * math.sqrt(unit)
    sb = (torch.rand((1,) if per_tensor else (1, n), device="cuda", generator=g) + 0.5) * 2 * math.sqrt(unit)
    p = dict(a=a, b=w.t(), scale_a=sa, scale_b=sb, variant=variant)
    if not variant.endswith("nobias") and variant != "scaled":
        p["bias"] = (torch.randn(n, device="cuda", generator=g) * 2).bfloat16()
    if variant.startswith("scaled_azp_per_token"):
        p["azp"] = torch.randint(-20, 20, (m,), dtype=torch.int32, device="cuda", generator=g)
        p["azp_adj"] = w.sum(dim=1, dtype=torch.int32)
    elif variant.startswith("scaled_azp"):
        p["azp_adj"] = (7 * w.sum(dim=1, dtype=torch.int64)).to(torch.int32)  # azp = 7, precomputed
    return p


def run(p, act, out):
    if "azp_adj" in p:
        return cutlass_gemm.scaled_mm_azp(p["a"], p["b"], p["scale_a"], p["scale_b"], torch.bfloat16, p["azp_adj"],
                                          p.get("azp"), p.get("bias"), out=out, activation=act)
    return cutlass_gemm.scaled_mm(p["a"], p["b"], p["scale_a"], p["scale_b"], torch.bfloat16, p.get("bias"), out=out,
                                  activation=act)


def reference64(p, act):
    """(act(pre), pre) in float64; pre is test_ops_gpu's float64 formula (same problem keys)."""
    pre = plain_reference64(p)
    return _act64(act, pre), pre


def check(out, ref, pre, what):
    """Every element written and within 1e-2 relative plus 2e-3 of the largest |pre-activation| (bf16
    rounding, the float32 epilogue, and the hardware tanh/exp approximations of gelu_tanh and silu,
    whose absolute error grows with |x| where 0.5 x (1 + tanh(.)) cancels)."""
    assert not torch.isnan(out).any(), f"{what}: {int(torch.isnan(out).sum())} output elements NaN (unwritten?)"
    diff = (out.double() - ref).abs()
    bad = diff > 1e-2 * ref.abs() + 2e-3 * pre.abs().max()
    assert not bad.any(), (f"{what}: {int(bad.sum())} elements off, worst {diff.max().item():.3e}; "
                           f"first at {tuple(bad.nonzero()[0].tolist())}")


@pytest.mark.parametrize("act", ACTS)
@pytest.mark.parametrize("case", list(CASES))
def test_activation_matches_float64(case, act):
    if torch.cuda.get_device_capability() != (9, 0):
        pytest.skip("activation kernels are checked on SM90")
    for i, (m, n, k) in enumerate(SHAPES):
        p = make_case(case, m, n, k, seed=i)
        ref, pre = reference64(p, act)
        if m > 8:
            assert (pre < -1).any() and (pre > 6.5).any(), "the data must reach both sides of 0 and 6"
        out = torch.full((m, n), float("nan"), dtype=torch.bfloat16, device="cuda")
        for rep in range(2):  # the second call goes through the C++ fast path's plan
            out.fill_(float("nan"))
            assert run(p, act, out) is out
            check(out, ref, pre, f"{case} {act} {m}x{n}x{k} call {rep}")
        fresh = run(p, act, None)  # allocating form
        check(fresh, ref, pre, f"{case} {act} {m}x{n}x{k} allocated")


def test_fast_path_keeps_activations_apart():
    """One shape, every activation in turn, twice: each call must run its own activation's kernel."""
    p = make_case("int8_bias", 37, 200, 96, seed=11)
    for _ in range(2):
        for act in ACTS:
            out = torch.full((37, 200), float("nan"), dtype=torch.bfloat16, device="cuda")
            run(p, act, out)
            ref, pre = reference64(p, act)
            check(out, ref, pre, f"interleaved {act}")


@pytest.mark.parametrize("act", ACTS[1:])
def test_nan_rows_stay_nan(act):
    """A NaN scale (the quantizers' mark of a non-finite row) gives a NaN row for every activation;
    relu6's minimum with 6 must not turn it into 6."""
    p = make_case("int8_bias", 37, 200, 96, seed=3)
    p["scale_a"][5] = float("nan")
    out = torch.full((37, 200), 123.0, dtype=torch.bfloat16, device="cuda")
    run(p, act, out)
    assert torch.isnan(out[5]).all(), f"{act}: {int((~torch.isnan(out[5])).sum())} elements of the NaN row not NaN"
    keep = torch.ones(37, dtype=torch.bool, device="cuda")
    keep[5] = False
    ref, pre = reference64(p, act)
    check(out[keep], ref[keep], pre[keep], f"{act} other rows")


@pytest.mark.parametrize("op", ["scaled_mm", "scaled_mm_azp"])
def test_opcheck_with_activation(op):
    p = make_case("int8_bias" if op == "scaled_mm" else "int8_azp_token_nobias", 37, 200, 96)
    if op == "scaled_mm":
        args = (p["a"], p["b"], p["scale_a"], p["scale_b"], torch.bfloat16, p["bias"])
    else:
        args = (p["a"], p["b"], p["scale_a"], p["scale_b"], torch.bfloat16, p["azp_adj"], p["azp"], None)
    fn = getattr(torch.ops.cutlass_gemm, op)
    torch.library.opcheck(fn.default, args, {"activation": "silu"})
    out = torch.empty((37, 200), dtype=torch.bfloat16, device="cuda")
    torch.library.opcheck(getattr(torch.ops.cutlass_gemm, op + "_out").default, (out,) + args, {"activation": "silu"})


@pytest.mark.parametrize("cls, act, activation, bias", [(cnn.Int8Linear, "dynamic", "gelu_tanh", True),
                                                        (cnn.Int8Linear, "dynamic_asym", "relu", False),
                                                        (cnn.Fp8Linear, "dynamic", "silu", True)])
def test_layer_with_activation_under_torch_compile(cls, act, activation, bias):
    torch.manual_seed(0)
    lin = torch.nn.Linear(256, 200, bias=bias).cuda().bfloat16()
    layer = cls.from_float(lin, act=act, activation=activation)
    plain = cls.from_float(lin, act=act)
    x = torch.randn(3, 13, 256, device="cuda", dtype=torch.bfloat16)  # M = 39
    with torch.no_grad():
        eager = layer(x)
        again = layer(x)  # the C++ fast path once the plan exists
        compiled = torch.compile(layer, fullgraph=True)(x)
        expect = _act64(activation, plain(x).double())
    assert torch.equal(eager, again)
    # the same quantization and GEMM kernels through the registered ops (last-bit differences at most)
    torch.testing.assert_close(compiled, eager, rtol=1e-2, atol=1e-2)
    rel = ((eager.double() - expect).norm() / expect.norm()).item()
    assert rel < 2e-2, rel
