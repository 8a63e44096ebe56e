"""Activation epilogues: out = act(scale_a * scale_b * (acc - azp * azp_adj) + bias).

The activation is one more EVT node after the variant's last node, evaluated in float32 (the EVT's
compute type) before the conversion to the output dtype. `traced_source` rewrites a variant's
epilogue function into `D = act(<expression>)`; what each activation is made of:

  relu       `relu(x)`: cutlass::epilogue::thread::ReLu (NaN-propagating maximum with 0)
  relu6      `minimum(relu(x), 6.0)`: ReLu, then a minimum with the constant 6 (a scalar-broadcast
             node). cutlass_cppgen has no clamp node, and its `minimum` emits `cutlass::minimum`, whose
             float specialisation is fminf (a NaN in gives 6 out); `nan_propagating_min` swaps in
             `cutlass::minimum_with_nan_propagation`, so NaN stays NaN as in torch.
  gelu_tanh  `gelu_tanh(x)`: CUTLASS's GELU_taylor, 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
             with the hardware tanh.approx. cutlass_cppgen's frontend maps only `gelu` (GELU, the erf
             form); `install_frontend_names` adds the one name `gelu_tanh` -> ActivationOp.GeluTaylor,
             an op its library already has a C++ tag for.
  silu       `silu(x)`: cutlass::epilogue::thread::SiLu, x * sigmoid(x) (sigmoid through fast exp).

`NUMPY` holds the float64 rule of every node kind an activation adds (for `epilogues.evaluate_dag`),
`torch_activation` the float32 torch function the CPU reference applies.
"""
from __future__ import annotations

import ast
import inspect
import textwrap
from typing import Callable, Optional

from ..errors import InvalidArgumentError
from .config import ACTIVATIONS

#: The public spelling (None or one of these) -> the KernelConfig field value.
PUBLIC = tuple(a for a in ACTIVATIONS if a != "none")
#: activation name -> the extension kernels' code (cg_bi8::Act in runtime/csrc/bi8_gemm.cuh)
EXT_CODES = {"none": 0, "relu": 1, "relu6": 2, "gelu_tanh": 3, "silu": 4}
RELU6_CAP = 6.0
_GELU_K0 = 0.7978845608028654  # sqrt(2 / pi)
_GELU_K1 = 0.044715


def canonical(activation, argument: str = "activation") -> str:
    """None -> "none"; one of PUBLIC -> itself; anything else raises InvalidArgumentError(argument)."""
    if activation is None:
        return "none"
    if not isinstance(activation, str) or activation not in PUBLIC:
        raise InvalidArgumentError(argument, f"must be None or one of {PUBLIC}, got {activation!r}")
    return activation


def public(activation: str) -> Optional[str]:
    return None if activation == "none" else activation


# ---------------------------------------------------------------------------------------- tracing
def _wrap(expr: ast.expr, activation: str) -> ast.expr:
    def call(name, *args):
        return ast.Call(func=ast.Name(id=name, ctx=ast.Load()), args=list(args), keywords=[])
    if activation == "relu6":
        return call("minimum", call("relu", expr), ast.Constant(RELU6_CAP))
    return call(activation, expr)


def traced_source(fn: Callable, activation: str) -> str:
    """The source of epilogue function `fn` with its `D = <expr>` replaced by `D = act(<expr>)`."""
    tree = ast.parse(textwrap.dedent(inspect.getsource(fn)))
    assigns = [node for node in ast.walk(tree) if isinstance(node, ast.Assign)
               and [getattr(t, "id", None) for t in node.targets] == ["D"]]
    if len(assigns) != 1:
        raise ValueError(f"epilogue {fn.__name__} must assign D exactly once")
    assigns[0].value = _wrap(assigns[0].value, activation)
    return ast.unparse(ast.fix_missing_locations(tree)) + "\n"


def trace_source(source: str, examples: dict, cc: int):
    """Trace epilogue source text into an EVT, as cutlass_cppgen.epilogue.trace does for a callable
    (its own path for source text fails in 4.2: a missing `textwrap` import)."""
    from cutlass_cppgen.backend.evt.frontend.python_ast import PythonASTFrontend

    class SourceEpilogue(PythonASTFrontend):
        def parse(self, example_inputs):
            self.example_inputs = example_inputs
            self.source = source
            self.ast = ast.parse(source)
            self.visit(self.ast)

    functor = SourceEpilogue(cc)
    functor.trace(examples)
    return functor


def install_frontend_names() -> None:
    """Teach cutlass_cppgen's Python-AST frontend the name `gelu_tanh` (idempotent; see the docstring)."""
    from cutlass_cppgen.backend.evt.frontend.python_ast import PythonASTFrontend
    from cutlass_cppgen.backend.library import ActivationOp
    original = PythonASTFrontend.ast_op_to_bindings
    if getattr(original, "_cutlass_gemm", False):
        return

    def ast_op_to_bindings(op):
        return ActivationOp.GeluTaylor if op == "gelu_tanh" else original(op)
    ast_op_to_bindings._cutlass_gemm = True
    PythonASTFrontend.ast_op_to_bindings = staticmethod(ast_op_to_bindings)


_MIN_TAG = "cutlass::minimum,"
_NAN_MIN_TAG = "cutlass::minimum_with_nan_propagation,"


def nan_propagating_min(kernel_src: str, activation: str) -> str:
    """relu6's minimum node in NaN-propagating form (see the docstring); other kernels unchanged.
    The traced graph of relu6 holds exactly one minimum, so exactly one tag must be replaced."""
    if activation != "relu6":
        return kernel_src
    if kernel_src.count(_MIN_TAG) != 1:
        raise RuntimeError(f"relu6: expected one `{_MIN_TAG}` compute node, found {kernel_src.count(_MIN_TAG)}")
    return kernel_src.replace(_MIN_TAG, _NAN_MIN_TAG)


# ---------------------------------------------------------------------------------------- references
def _numpy_rules():
    import numpy as np
    from cutlass_cppgen.backend.library import ActivationOp, FunctionalOp

    def gelu_tanh(x):
        return 0.5 * x * (1.0 + np.tanh(_GELU_K0 * (x + _GELU_K1 * x * x * x)))

    def silu(x):
        with np.errstate(over="ignore"):
            return x / (1.0 + np.exp(-x))

    return {FunctionalOp.Plus: np.add, FunctionalOp.Minus: np.subtract,
            FunctionalOp.Multiplies: np.multiply, FunctionalOp.Divides: np.divide,
            FunctionalOp.Minimum: np.minimum, FunctionalOp.Maximum: np.maximum,  # both NaN-propagating
            ActivationOp.ReLU: lambda x: np.maximum(x, 0.0), ActivationOp.GeluTaylor: gelu_tanh,
            ActivationOp.SiLU: silu}


def numpy_rule(fn):
    """The float64 numpy function of an EVT compute node's op (None when there is none)."""
    return _numpy_rules().get(fn)


def torch_activation(activation: str):
    """The activation as a torch function (applied by the CPU reference to float32 values)."""
    import torch
    import torch.nn.functional as F
    return {"none": lambda x: x, "relu": torch.relu, "relu6": lambda x: torch.clamp(x, 0.0, RELU6_CAP),
            "gelu_tanh": lambda x: F.gelu(x, approximate="tanh"), "silu": F.silu}[activation]
