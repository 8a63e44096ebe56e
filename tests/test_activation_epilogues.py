"""Activation epilogues (relu, relu6, gelu_tanh, silu) and the bias-free zero-point variants, without a GPU:
kernel names and cache keys, the traced EVT graph of every variant x activation x scale kind against an
independent float64 formula, the emitted C++, argument errors, and the CPU reference path of the ops."""
import itertools
import math
import zlib

import numpy as np
import pytest
import torch

import cutlass_gemm
import cutlass_gemm.nn as cnn
from cutlass_gemm.errors import InvalidArgumentError
from cutlass_gemm.kernels import heuristics
from cutlass_gemm.kernels.config import ACTIVATIONS, VARIANTS, KernelConfig
from cutlass_gemm.kernels.emit import emit_source, trace_epilogue
from cutlass_gemm.kernels.epilogues import evaluate_dag, input_shapes
from cutlass_gemm.ops import gemm as ops
from cutlass_gemm.runtime import fastpath

ACTS = [a for a in ACTIVATIONS if a != "none"]
M, N = 7, 24


# ---------------------------------------------------------------------------------------- float64 formulas
def act64(name, x):
    """The activations written independently of cutlass_gemm.kernels.activations."""
    x = np.asarray(x, dtype=np.float64)
    if name == "none":
        return x
    if name == "relu":
        return np.where(x > 0, x, 0.0)
    if name == "relu6":
        return np.clip(x, 0.0, 6.0)
    if name == "gelu_tanh":
        return 0.5 * x * (1.0 + np.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * x ** 3)))
    if name == "silu":
        return x * 0.5 * (1.0 + np.tanh(0.5 * x))  # x * sigmoid(x)
    raise AssertionError(name)


def formula64(accum, scale_a, scale_b, bias=0.0, azp=0.0, azp_adj=0.0, azp_with_adj=None, *, activation):
    zp = azp_with_adj if azp_with_adj is not None else np.multiply(azp, azp_adj)
    return act64(activation, np.asarray(scale_a) * np.asarray(scale_b) * (accum - zp) + bias)


# ---------------------------------------------------------------------------------------- names, cache keys
def test_activation_names_round_trip_and_leave_plain_names_alone():
    for variant, act, (sa, sb), sm in itertools.product(VARIANTS, ACTIVATIONS, [("token", "channel"),
                                                        ("tensor", "tensor")], (90, 80)):
        extra = dict(tile=(64, 64, 128)) if sm == 90 else dict(tile=(32, 128, 128), schedule="multistage", stages=4)
        cfg = KernelConfig(sm=sm, variant=variant, activation=act, scale_a=sa, scale_b=sb, **extra)
        assert KernelConfig.from_name(cfg.name) == cfg
        assert KernelConfig.from_dict(cfg.to_dict()) == cfg
        plain = cfg.replace(activation="none")
        if act == "none":
            assert "activation" not in cfg.to_dict()
        else:
            assert cfg.name == plain.name.replace(f"_{variant}_", f"_{variant}_{act}_", 1)
            assert cfg.to_dict()["activation"] == act
    # the names committed before the field existed are unchanged
    assert KernelConfig(sm=90).name == "sm90_int8_bf16_scaled_bias_token_channel_t128x128x128_c1x1x1_pingpong_s0_a16x16x8"
    assert (KernelConfig(sm=90, variant="scaled_azp_per_token", activation="gelu_tanh").name
            == "sm90_int8_bf16_scaled_azp_per_token_gelu_tanh_token_channel_t128x128x128_c1x1x1_pingpong_s0_a16x16x8")


@pytest.mark.parametrize("bad", ["gelu", "RELU", "", "relu_6"])
def test_config_rejects_unknown_activation(bad):
    with pytest.raises(ValueError, match="KernelConfig.activation"):
        KernelConfig(sm=90, activation=bad)


def test_cache_key_differs_per_activation():
    keys = {KernelConfig(sm=90, activation=a).cache_key(cutlass_version="4.2", nvcc_version="13.0", flags=("-O3",))
            for a in ACTIVATIONS}
    assert len(keys) == len(ACTIVATIONS)
    from cutlass_gemm.runtime import build
    paths = {build.cache_entry(KernelConfig(sm=90, activation=a), "13.0").path.name for a in ACTIVATIONS}
    assert len(paths) == len(ACTIVATIONS)


def test_activation_kernels_take_the_plain_tiles_and_stay_out_of_the_default_set():
    for sm in heuristics.DEFAULT_SMS:
        for m in (1, 64, 65, 200, 4096):
            choice = heuristics.choose_tile(sm, m)
            plain = heuristics.make_config(sm, "scaled_bias", "bf16", choice)
            for act in ACTS:
                cfg = heuristics.make_config(sm, "scaled_bias", "bf16", choice, activation=act)
                assert cfg == plain.replace(activation=act)
                assert not heuristics.in_default_set(cfg)
        assert all(c.activation == "none" for c in heuristics.default_configs(sm))
        if "int8" in heuristics.INPUT_DTYPES_BY_SM[sm]:  # the zero-point epilogues are int8's (SM89's family: fp8)
            assert {"scaled_azp_nobias", "scaled_azp_per_token_nobias"} <= {c.variant for c in heuristics.default_configs(sm)}


# ---------------------------------------------------------------------------------------- traced graph vs float64
def _inputs(variant, scale_a, scale_b, rng):
    # pre-activation values spread over about [-12, 12]: both sides of 0 and of relu6's cap
    inputs = {"accum": rng.integers(-2 ** 15, 2 ** 15, size=(M, N)).astype(np.float64)}
    for name, shape in input_shapes(variant, scale_a, scale_b, M, N).items():
        if name in ("azp", "azp_adj", "azp_with_adj"):
            inputs[name] = rng.integers(-300, 300, size=shape).astype(np.float64)
        elif name == "bias":
            inputs[name] = rng.normal(0, 3, size=shape)
        else:
            inputs[name] = rng.uniform(0.02, 0.05, size=shape) if shape else float(rng.uniform(0.02, 0.05))
    return inputs


@pytest.mark.parametrize("variant, activation, scale_a, scale_b",
                         list(itertools.product(VARIANTS, ACTIVATIONS, ["tensor", "token"], ["tensor", "channel"])))
def test_traced_graph_matches_float64_formula(variant, activation, scale_a, scale_b):
    rng = np.random.default_rng(zlib.crc32(f"{variant} {activation} {scale_a} {scale_b}".encode()))
    visitor = trace_epilogue(variant, scale_a, scale_b, "bf16", 90, m=M, n=N, activation=activation)
    inputs = _inputs(variant, scale_a, scale_b, rng)
    got = evaluate_dag(visitor.dag_ir, inputs)
    expected = formula64(**inputs, activation=activation)
    pre = formula64(**inputs, activation="none")
    assert (pre < -1).any() and (pre > 7).any() and ((pre > 0) & (pre < 6)).any()  # every branch exercised
    assert got.shape == (M, N)
    np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("activation", ACTS)
def test_traced_graph_sm80(activation):
    rng = np.random.default_rng(1)
    visitor = trace_epilogue("scaled_azp_per_token", "token", "channel", "f16", 80, m=M, n=N, activation=activation)
    inputs = _inputs("scaled_azp_per_token", "token", "channel", rng)
    np.testing.assert_allclose(evaluate_dag(visitor.dag_ir, inputs), formula64(**inputs, activation=activation),
                               rtol=1e-12, atol=1e-12)


def test_graph_replay_distinguishes_activations_and_keeps_nan():
    """relu6 of NaN is NaN (the kernel's minimum propagates NaN; fminf would give 6)."""
    inputs = {"accum": np.array([[np.nan, -3.0, 3.0, 9.0] * 2]), "scale_a": 1.0, "scale_b": 1.0}
    outs = {}
    for act in ACTIVATIONS:
        got = evaluate_dag(trace_epilogue("scaled", "tensor", "tensor", "bf16", 90, m=1, n=8, activation=act).dag_ir,
                           inputs)
        assert np.isnan(got[0, 0]), act
        outs[act] = tuple(got[0, 1:4])
    assert len(set(outs.values())) == len(ACTIVATIONS)
    assert outs["relu6"] == (0.0, 3.0, 6.0)


# ---------------------------------------------------------------------------------------- emitted C++
_NODE = {"relu": "cutlass::epilogue::thread::ReLu,", "relu6": "cutlass::minimum_with_nan_propagation,",
         "gelu_tanh": "cutlass::epilogue::thread::GELU_taylor,", "silu": "cutlass::epilogue::thread::SiLu,"}


@pytest.mark.parametrize("activation", ACTS)
def test_emitted_source_holds_the_activation_node(activation):
    cfg = KernelConfig(sm=90, variant="scaled_bias", activation=activation, tile=(64, 64, 128))
    src = emit_source(cfg)
    plain = emit_source(cfg.replace(activation="none"))
    assert src.count(_NODE[activation]) == 1 and _NODE[activation] not in plain
    assert f'return "{cfg.name}"' in src and "//   activation = " + activation in src
    assert "cutlass::minimum," not in src  # no NaN-dropping minimum anywhere
    if activation == "relu6":
        assert "cutlass::epilogue::thread::ReLu," in src and ">(6.0)}, {}, {}}" in src  # the constant cap


def test_emitted_sm80_relu6_kernel():
    cfg = KernelConfig(sm=80, variant="scaled_azp_nobias", activation="relu6", scale_a="tensor",
                       tile=(32, 128, 128), schedule="multistage", stages=4)
    src = emit_source(cfg)
    assert "threadblock::VisitorCompute<\n    cutlass::minimum_with_nan_propagation," in src
    assert ">(6.0)}, {}, {}}" in src


@pytest.mark.parametrize("variant", ["scaled_azp_nobias", "scaled_azp_per_token_nobias"])
def test_bias_free_azp_kernels_have_no_bias_input(variant):
    src = emit_source(KernelConfig(sm=90, variant=variant, tile=(64, 64, 128)))
    with_bias = emit_source(KernelConfig(sm=90, variant=variant[:-len("_nobias")], tile=(64, 64, 128)))
    assert "using Bias =" in with_bias and "(bias)" in with_bias
    assert "using Bias =" not in src and "(bias)" not in src


# ---------------------------------------------------------------------------------------- argument errors
def _problem(seed=0, m=9, n=24, k=32, out_dtype=torch.bfloat16):
    g = torch.Generator().manual_seed(seed)
    w = torch.randint(-128, 128, (n, k), dtype=torch.int8, generator=g)
    return dict(a=torch.randint(-128, 128, (m, k), dtype=torch.int8, generator=g), b=w.t(),
                scale_a=(torch.rand(m, 1, generator=g) + 0.5) * 2e-2, scale_b=(torch.rand(1, n, generator=g) + 0.5) * 2e-2,
                out_dtype=out_dtype, bias=(torch.randn(n, generator=g) * 3).to(out_dtype),
                azp=torch.randint(-20, 20, (m,), dtype=torch.int32, generator=g), adj=w.sum(1, dtype=torch.int32))


BAD = ["gelu", "none", "ReLU", 1, ""]


@pytest.mark.parametrize("bad", BAD)
def test_unknown_activation_is_a_typed_error_everywhere(bad):
    p = _problem()
    a, b, sa, sb, od = p["a"], p["b"], p["scale_a"], p["scale_b"], p["out_dtype"]
    calls = [lambda: cutlass_gemm.scaled_mm(a, b, sa, sb, od, p["bias"], activation=bad),
             lambda: cutlass_gemm.scaled_mm_azp(a, b, sa, sb, od, p["adj"], p["azp"], activation=bad),
             lambda: cutlass_gemm.w8a8_linear(torch.randn(3, 32), p["b"].t().contiguous(), sb, activation=bad),
             lambda: cnn.Int8Linear(32, 24, activation=bad),
             lambda: cnn.Fp8Linear(32, 24, activation=bad),
             lambda: cnn.Int8Linear.from_float(torch.nn.Linear(32, 24), activation=bad)]
    if isinstance(bad, str):  # the schema takes str? only
        calls.append(lambda: torch.ops.cutlass_gemm.scaled_mm(a, b, sa, sb, od, p["bias"], activation=bad))
    for call in calls:
        with pytest.raises(InvalidArgumentError, match="^activation: must be None or one of") as info:
            call()
        assert info.value.argument == "activation"


def test_unknown_activation_is_named_under_fake_tensors():
    from torch._subclasses.fake_tensor import FakeTensorMode
    p = _problem()
    with FakeTensorMode() as mode:
        fa, fb, fsa, fsb = (mode.from_tensor(p[k]) for k in ("a", "b", "scale_a", "scale_b"))
        with pytest.raises(InvalidArgumentError, match="^activation"):
            torch.ops.cutlass_gemm.scaled_mm(fa, fb, fsa, fsb, torch.bfloat16, None, activation="tanh")


# ---------------------------------------------------------------------------------------- CPU reference path
def _reference(p, activation, *, bias=True, azp="token"):
    acc = p["a"].double() @ p["b"].double()
    if azp == "token":
        acc = acc - p["azp"].double()[:, None] * p["adj"].double()[None, :]
    elif azp == "tensor":
        acc = acc - 5 * p["adj"].double()[None, :]
    pre = p["scale_a"].double() * p["scale_b"].double() * acc + (p["bias"].double() if bias else 0.0)
    # the kernels: float32 epilogue, the activation in float32, one rounding to the output dtype
    x = pre.float()
    y = {"none": x, "relu": x.clamp_min(0), "relu6": x.clamp(0, 6),
         "gelu_tanh": torch.nn.functional.gelu(x, approximate="tanh"),
         "silu": x * torch.sigmoid(x)}[activation]
    return y.to(p["out_dtype"]), pre


@pytest.mark.parametrize("activation", ACTIVATIONS)
@pytest.mark.parametrize("case", ["scaled", "scaled_bias", "azp_tensor", "azp_tensor_nobias", "azp_token",
                                  "azp_token_nobias"])
def test_cpu_reference_applies_the_activation(case, activation):
    p = _problem(seed=3, out_dtype=torch.float16 if "token" in case else torch.bfloat16)
    act = None if activation == "none" else activation
    bias = p["bias"] if case in ("scaled_bias", "azp_tensor", "azp_token") else None
    a, b, sa, sb, od = p["a"], p["b"], p["scale_a"], p["scale_b"], p["out_dtype"]
    if case.startswith("azp_tensor"):
        got = cutlass_gemm.scaled_mm_azp(a, b, sa, sb, od, 5 * p["adj"], None, bias, activation=act)
        want, pre = _reference(p, activation, bias=bias is not None, azp="tensor")
    elif case.startswith("azp_token"):
        got = cutlass_gemm.scaled_mm_azp(a, b, sa, sb, od, p["adj"], p["azp"], bias, activation=act)
        want, pre = _reference(p, activation, bias=bias is not None, azp="token")
    else:
        got = cutlass_gemm.scaled_mm(a, b, sa, sb, od, bias, activation=act)
        want, pre = _reference(p, activation, bias=bias is not None, azp=None)
    assert (pre < -1).any() and (pre > 7).any()
    assert torch.equal(got, want)
    # the registered op and the out= form agree with the direct call
    out = torch.full_like(got, float("nan"))
    if case.startswith("azp"):
        adj = 5 * p["adj"] if case.startswith("azp_tensor") else p["adj"]
        z = None if case.startswith("azp_tensor") else p["azp"]
        torch.ops.cutlass_gemm.scaled_mm_azp_out(out, a, b, sa, sb, od, adj, z, bias, activation=act)
        assert torch.equal(torch.ops.cutlass_gemm.scaled_mm_azp(a, b, sa, sb, od, adj, z, bias, activation=act), got)
    else:
        torch.ops.cutlass_gemm.scaled_mm_out(out, a, b, sa, sb, od, bias, activation=act)
        assert torch.equal(torch.ops.cutlass_gemm.scaled_mm(a, b, sa, sb, od, bias, activation=act), got)
    assert torch.equal(out, got)


def test_zero_point_calls_without_bias_pick_the_bias_free_variants():
    assert ops._variant(None, object(), object(), True) == "scaled_azp_per_token_nobias"
    assert ops._variant(None, object(), None, True) == "scaled_azp_nobias"
    assert ops._variant(torch.zeros(1), object(), object(), True) == "scaled_azp_per_token"
    assert ops._variant(torch.zeros(1), object(), None, True) == "scaled_azp"
    codes = set(fastpath.CODES.values())
    assert len(codes) == len(VARIANTS) * len(ACTIVATIONS)  # one plan key per (variant, activation)
    assert set(fastpath.VARIANT_CODES) == set(VARIANTS) and set(fastpath.ACTIVATION_CODES) == set(ACTIVATIONS)
    assert max(fastpath.VARIANT_CODES.values()) < 1 << fastpath.ACTIVATION_SHIFT


def test_kernel_selection_carries_the_activation(monkeypatch):
    """The per-tensor fallback (a per-token x per-channel kernel with the scalar broadcast) keeps the activation."""
    asked = []
    monkeypatch.setattr(ops.loader, "cached_kernel", lambda cfg: None)
    monkeypatch.setattr(ops.loader, "get_kernel", lambda cfg: asked.append(cfg) or cfg)
    monkeypatch.setattr(ops, "_selected", {})
    lib, sa, sb = ops.select_kernel(90, "scaled_bias", "e4m3", "bf16", "tensor", "tensor", 37, activation="silu")
    assert (sa, sb) == ("token", "channel") and lib.activation == "silu" and lib.tile == (64, 64, 128)
    assert lib.name == "sm90_e4m3_bf16_scaled_bias_silu_token_channel_t64x64x128_c1x1x1_pingpong_s0_a16x16x8"
    plain, _, _ = ops.select_kernel(90, "scaled_bias", "e4m3", "bf16", "tensor", "tensor", 37)
    assert plain.activation == "none"


@pytest.mark.parametrize("layer_cls, act", [(cnn.Int8Linear, "dynamic"), (cnn.Int8Linear, "dynamic_asym"),
                                            (cnn.Fp8Linear, "dynamic")])
def test_layers_take_the_activation(layer_cls, act):
    torch.manual_seed(0)
    lin = torch.nn.Linear(64, 32, bias=act != "dynamic_asym").to(torch.bfloat16)
    x = torch.randn(5, 64, dtype=torch.bfloat16)
    plain = layer_cls.from_float(lin, act=act)
    for activation in ACTS:
        layer = layer_cls.from_float(lin, act=act, activation=activation)
        assert layer.activation == activation and f"activation={activation!r}" in repr(layer)
        fresh = layer_cls(64, 32, bias=lin.bias is not None, act=act, activation=activation)
        fresh.load_state_dict(layer.state_dict())
        y = layer(x)
        assert torch.equal(fresh(x), y)
        # the plain layer's GEMM, then the activation (the plain output is rounded to bf16 first: hence the tolerance)
        pre = plain(x)
        assert y.dtype == torch.bfloat16 and y.shape == (5, 32)
        ref = _reference_act(activation, pre.float())
        torch.testing.assert_close(y.float(), ref, rtol=2e-2, atol=2e-2 * ref.abs().max().item())
    assert plain.activation is None and "activation" not in repr(plain)


def _reference_act(name, x):
    return torch.from_numpy(act64(name, x.double().numpy())).float()


def test_gpu_test_kernel_list_is_valid_and_modest():
    import importlib.util
    from pathlib import Path
    spec = importlib.util.spec_from_file_location("_act_gpu", Path(__file__).with_name("test_activation_gpu.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    cfgs = [KernelConfig.from_name(n) for n in mod.KERNELS]
    assert len(cfgs) == 30 and sum(c.activation != "none" for c in cfgs) == 24
    assert {c.tile for c in cfgs} == {heuristics.choose_tile(90, m).tile for m, _, _ in mod.SHAPES}
