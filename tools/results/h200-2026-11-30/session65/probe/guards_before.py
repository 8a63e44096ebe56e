#!/usr/bin/env python3
"""Session 65, CPU: what the W8A8 layers' trace-time row rule did to a symbolic batch before the layer op. Until
session 64 a traced `w8a8_linear` on a CUDA tensor called `heuristics.padded_rows(90, m, ...)` with Dynamo's symbolic
m; this traces that call alone (no GPU needed) under torch.compile(dynamic=True, fullgraph=True) at 10 batch sizes and
prints the graphs Dynamo made (run 2026-11-30 on the CPU machine: 6 graphs for the 10 sizes; TORCH_LOGS=recompiles
names each guard: the GEMV bound, the waves rule, the partial-tile rule, the 1023-row bound).

    python guards_before.py
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[4]))
import torch  # noqa: E402

from cutlass_gemm.kernels import heuristics  # noqa: E402


def rows(x):
    m = x.shape[0]
    return x.new_zeros(heuristics.padded_rows(90, m, 8192, "int8", activation="none", k=8192))


if __name__ == "__main__":
    f = torch.compile(rows, dynamic=True, fullgraph=True, backend="aot_eager")
    for m in (20, 37, 130, 131, 300, 520, 700, 1000, 1500, 2000):
        assert f(torch.ones(m)).shape[0] == heuristics.padded_rows(90, m, 8192, "int8", activation="none", k=8192)
    print("graphs:", torch._dynamo.utils.counters["stats"]["unique_graphs"], "for 10 batch sizes")
