"""The scaled GEMM ops' CPU path: a float64 evaluation of the epilogue formula (see ops/gemm.py)."""
from __future__ import annotations

import torch

from ..kernels import activations


def reference(a, b, scale_a, scale_b, out_dtype, bias=None, azp_adj=None, azp=None,
              activation: str = "none") -> torch.Tensor:
    """float64 evaluation of the epilogue formula, rounded once to out_dtype (the CPU path). With an
    activation, as the kernels compute it: the value is rounded to float32, the activation applied in
    float32, and the result rounded to out_dtype."""
    M, N = a.shape[0], b.shape[1]
    acc = a.to(torch.float64) @ b.to(torch.float64)  # exact: |sums| < 2^53
    if azp_adj is not None:
        zp = azp.reshape(M, 1).to(torch.float64) if azp is not None else 1.0
        acc = acc - zp * azp_adj.reshape(1, N).to(torch.float64)
    res = scale_a.reshape(-1, 1).to(torch.float64) * scale_b.reshape(1, -1).to(torch.float64) * acc
    if bias is not None:
        res = res + bias.reshape(1, N).to(torch.float64)
    if activation != "none":
        res = activations.torch_activation(activation)(res.to(torch.float32))
    return res.to(out_dtype)
