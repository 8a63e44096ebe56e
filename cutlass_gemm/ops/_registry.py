"""The one `torch.library` namespace of the package's ops, `cutlass_gemm`, and the one way an op enters it.

Every op has a single implementation for both dispatch keys: it looks at its tensors' device itself (the CUDA
kernels on a GPU, the float reference on the CPU), so CPU tensors, opcheck and a model quantized before `.to("cuda")`
go through the same schema. Fake (meta) implementations stay beside each op, registered on the name this returns."""
from typing import Any, Callable

import torch

NAMESPACE = "cutlass_gemm"
# Held for the life of the process: a Library deregisters what it defined when it is collected.
_LIB = torch.library.Library(NAMESPACE, "DEF")


def define_op(schema: str, impl: Callable[..., Any]) -> str:
    """Defines `schema` ("name(args) -> returns") in the namespace with `impl` for CPU and CUDA; returns the
    qualified name ("cutlass_gemm::name") for `torch.library.register_fake`."""
    name = schema.split("(", 1)[0]
    _LIB.define(schema)
    for key in ("CPU", "CUDA"):
        _LIB.impl(name, impl, key)
    return f"{NAMESPACE}::{name}"
