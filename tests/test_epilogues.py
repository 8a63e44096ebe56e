"""Each variant's traced EVT computes the seed's formula (seed 001):
out = scale_a * scale_b * (acc - azp * azp_adj) + bias, checked on random float64 data."""
import itertools

import numpy as np
import pytest

from cutlass_gemm.kernels.epilogues import epilogue_inputs, evaluate_dag, input_shapes
from cutlass_gemm.kernels.emit import trace_epilogue

M, N = 7, 24


def seed_formula(accum, scale_a, scale_b, bias=0.0, azp=0.0, azp_adj=0.0, azp_with_adj=None):
    zero_point_term = azp_with_adj if azp_with_adj is not None else np.multiply(azp, azp_adj)
    return np.asarray(scale_a) * np.asarray(scale_b) * (accum - zero_point_term) + bias


CASES = list(itertools.product(["scaled", "scaled_bias", "scaled_azp", "scaled_azp_per_token"],
                               ["tensor", "token"], ["tensor", "channel"], [90, 80]))


@pytest.mark.parametrize("variant, scale_a, scale_b, sm", CASES)
def test_traced_epilogue_matches_seed_formula(variant, scale_a, scale_b, sm):
    rng = np.random.default_rng(hash((variant, scale_a, scale_b, sm)) % 2**32)
    visitor = trace_epilogue(variant, scale_a, scale_b, "bf16", sm, m=M, n=N)
    inputs = {"accum": rng.integers(-2**20, 2**20, size=(M, N)).astype(np.float64)}
    for name, shape in input_shapes(variant, scale_a, scale_b, M, N).items():
        if name in ("azp", "azp_adj", "azp_with_adj"):
            inputs[name] = rng.integers(-3000, 3000, size=shape).astype(np.float64)
        else:
            inputs[name] = rng.uniform(0.001, 2.0, size=shape) if shape else float(rng.uniform(0.001, 2.0))
    got = evaluate_dag(visitor.dag_ir, inputs)
    expected = seed_formula(**inputs)
    assert got.shape == (M, N)
    np.testing.assert_allclose(got, expected, rtol=1e-12, atol=0)


@pytest.mark.parametrize("scale_a, scale_b", [("tensor", "channel"), ("token", "tensor"), ("token", "channel")])
def test_scale_granularity_picks_broadcast_nodes(scale_a, scale_b):
    """Per-tensor is a scalar broadcast, per-token a column broadcast, per-channel a row broadcast."""
    dag = trace_epilogue("scaled_bias", scale_a, scale_b, "f16", 90).dag_ir
    impl = {n: type(dag.get_node_meta(n).underlying_impl).__name__ for n in dag.nodes_topological_order()}
    assert impl["scale_a"] == ("Sm90ScalarBroadcastImpl" if scale_a == "tensor" else "Sm90ColumnBroadcastImpl")
    assert impl["scale_b"] == ("Sm90ScalarBroadcastImpl" if scale_b == "tensor" else "Sm90RowBroadcastImpl")
    assert impl["bias"] == "Sm90RowBroadcastImpl"
    assert impl["accum"] == "Sm90AccumulatorImpl"


def test_evaluate_dag_detects_a_wrong_formula():
    """The replay is a real check: a graph of another formula does not match the seed's."""
    rng = np.random.default_rng(0)
    dag = trace_epilogue("scaled", "token", "channel", "bf16", 90, m=M, n=N).dag_ir
    inputs = {"accum": rng.normal(size=(M, N)), "scale_a": rng.uniform(1, 2, (M, 1)), "scale_b": rng.uniform(1, 2, (1, N))}
    got = evaluate_dag(dag, inputs)
    assert not np.allclose(got, seed_formula(**inputs, bias=1.0))


def test_epilogue_inputs_follow_the_seed():
    assert epilogue_inputs("scaled") == ("scale_a", "scale_b")
    assert epilogue_inputs("scaled_bias") == ("scale_a", "scale_b", "bias")
    assert epilogue_inputs("scaled_azp") == ("scale_a", "scale_b", "azp_with_adj", "bias")
    assert epilogue_inputs("scaled_azp_per_token") == ("scale_a", "scale_b", "azp", "azp_adj", "bias")
