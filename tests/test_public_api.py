"""Every name a package exports resolves, so `from cutlass_gemm.<package> import *` works."""
from __future__ import annotations

import importlib

import pytest

PACKAGES = ["cutlass_gemm", "cutlass_gemm.quant", "cutlass_gemm.nn", "cutlass_gemm.ops", "cutlass_gemm.cublaslt"]


@pytest.mark.parametrize("name", PACKAGES)
def test_every_exported_name_resolves(name: str):
    module = importlib.import_module(name)
    exported = getattr(module, "__all__", None)
    if exported is None:
        pytest.skip(f"{name} has no __all__")
    assert len(exported) == len(set(exported)), f"{name}.__all__ lists a name twice"
    missing = [n for n in exported if not hasattr(module, n)]
    assert not missing, f"{name}.__all__ names what it does not define: {missing}"
