"""The six fused dequantization epilogues, one Python function each.

`cutlass_cppgen.epilogue.trace` parses these functions into an EVT (epilogue visitor tree); the same
functions evaluated on numpy arrays give the formula, and `evaluate_dag` replays the traced graph so a
test can compare the graph with an independent float64 reference. Whether a scale is per-tensor
(a scalar) or per-token/per-channel (a broadcast vector) is decided by the example inputs built from
the config, not by separate functions.

Math (seed 000/001): out = scale_a * scale_b * (acc - azp * azp_adj) + bias, where for the per-tensor
zero point the product azp * azp_adj is precomputed as the row vector `azp_with_adj`. The `_nobias`
zero-point variants leave the bias out (no bias load in the kernel). An activation (activations.py)
wraps the whole expression: out = act(...), in float32 before the conversion to the output dtype.
"""
from __future__ import annotations

from typing import Callable, Dict, Tuple


def scaled(accum, scale_a, scale_b):
    D = scale_a * (scale_b * accum)
    return D


def scaled_bias(accum, scale_a, scale_b, bias):
    D = scale_a * (scale_b * accum) + bias
    return D


def scaled_azp(accum, scale_a, scale_b, azp_with_adj, bias):
    D = scale_a * (scale_b * (accum - azp_with_adj)) + bias
    return D


def scaled_azp_per_token(accum, scale_a, scale_b, azp, azp_adj, bias):
    D = scale_a * (scale_b * (accum - azp * azp_adj)) + bias
    return D


def scaled_azp_nobias(accum, scale_a, scale_b, azp_with_adj):
    D = scale_a * (scale_b * (accum - azp_with_adj))
    return D


def scaled_azp_per_token_nobias(accum, scale_a, scale_b, azp, azp_adj):
    D = scale_a * (scale_b * (accum - azp * azp_adj))
    return D


EPILOGUES: Dict[str, Callable] = {
    "scaled": scaled,
    "scaled_bias": scaled_bias,
    "scaled_azp": scaled_azp,
    "scaled_azp_per_token": scaled_azp_per_token,
    "scaled_azp_nobias": scaled_azp_nobias,
    "scaled_azp_per_token_nobias": scaled_azp_per_token_nobias,
}

#: Every epilogue input the C launcher can receive, in its argument order.
LAUNCH_INPUTS: Tuple[str, ...] = ("scale_a", "scale_b", "azp", "azp_adj", "azp_with_adj", "bias")

#: cg_launch's `scale_flags` bits: scale_a (resp. scale_b) is one element, to be broadcast to every row (column)
#: by a kernel built for a per-token (per-channel) vector. SM90 kernels honour both (a dynamic broadcast stride in
#: the EVT); SM80 ones refuse them, and the caller expands the scalar instead.
SCALE_A_SCALAR = 1
SCALE_B_SCALAR = 2


def epilogue_inputs(variant: str) -> Tuple[str, ...]:
    """Names of the epilogue's inputs (without the accumulator), in the function's order."""
    fn = EPILOGUES[variant]
    return tuple(fn.__code__.co_varnames[1:fn.__code__.co_argcount])


def input_shapes(variant: str, scale_a: str, scale_b: str, m: int, n: int) -> Dict[str, Tuple[int, ...]]:
    """Shape of each epilogue input for a config; () means a scalar (per-tensor)."""
    shapes = {
        "scale_a": (m, 1) if scale_a == "token" else (),
        "scale_b": (1, n) if scale_b == "channel" else (),
        "bias": (1, n),
        "azp_with_adj": (1, n),
        "azp": (m, 1),
        "azp_adj": (1, n),
    }
    return {k: shapes[k] for k in epilogue_inputs(variant)}


def evaluate_dag(dag_ir, inputs: Dict[str, "object"]):
    """Replay a traced EVT graph on numpy arrays (float64), following its edges and operand order.

    `inputs` maps load-node names ('accum', 'scale_a', ...) to arrays; constants (the immediates an
    activation adds) come from the graph. Returns the value stored to D."""
    import numpy as np
    from .activations import numpy_rule

    values = {}
    for name in dag_ir.nodes_topological_order():
        meta = dag_ir.get_node_meta(name)
        args = [values[c] for c in dag_ir.get_all_inputs(name)]
        if meta.op == "compute":
            rule = numpy_rule(meta.fn)
            if rule is None:
                raise NotImplementedError(f"evaluate_dag: no numpy rule for {meta.fn}")
            values[name] = rule(*args)
        elif meta.op == "load" and meta.tensor.is_constant:
            values[name] = np.float64(meta.tensor.value)
        elif meta.op == "load":
            values[name] = np.asarray(inputs[name], dtype=np.float64)
        elif meta.op == "store":
            values[name] = args[0]
        else:
            raise NotImplementedError(f"evaluate_dag: node {name} of kind {meta.op}")
    return values["D"]
