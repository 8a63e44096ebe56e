#!/usr/bin/env python3
"""The int8 conv kernel names a GPU run needs, from the same selection the op makes (kernels/conv2d.py
`select_config`), so a session builds exactly those:

    python3 tools/conv_kernels_needed.py tests|bench|quick|resnet|chain|all   # space-separated names
    python3 tools/generate_kernels.py --conv --compile --jobs 16 $(python3 tools/conv_kernels_needed.py all --args)

tests: tests/test_conv_int8_gpu.py (its CASES x bf16/fp16 x none/ReLU/ReLU6, the conv2d_int8 and layer tests,
ResNet-50 at batch 8 in bf16); bench: tools/bench_conv.py's rows (bf16, batch 1 and 32); resnet: the fp16
ResNet-50 at batch 32 of `benchmark.py conv --resnet` and tools/demo.py; chain: every ResNet-50 tile with bf16,
fp16 and int8 (chained) output, none / ReLU (tests/test_conv_chain_gpu.py, the int8-chain columns and model of the
benchmark: in a chain the 1x1 convs run the implicit GEMM too); quick: what `benchmark.py conv --quick` runs (the 3x3
convs at batch 32, bf16 out and the chain's int8 out with ReLU).
"""
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tools")]

from cutlass_gemm.kernels.conv2d import resnet_configs, select_config  # noqa: E402
from cutlass_gemm.ops.conv_igemm import out_size  # noqa: E402
from resnet50 import RESNET50_CONVS  # noqa: E402


def _name(od, act, n, h, w, ci, co, k, s, p, d):
    m = n * out_size(h, k[0], s[0], p[0], d[0]) * out_size(w, k[1], s[1], p[1], d[1])
    return select_config(od, act, m, co, ci).name


def _resnet(od, batch, act="none", only_3x3=False):
    return {_name(od, act, batch, hw, hw, ci, co, (k, k), (s, s), (k // 2,) * 2, (1, 1))
            for _, ci, co, k, s, hw in RESNET50_CONVS if (k, s) != (1, 1) and (k == 3 or not only_3x3)}


def _tests():
    src = (ROOT / "tests" / "test_conv_int8_gpu.py").read_text()
    block = src[src.index("CASES = [") + len("CASES = "):]
    cases = eval(block[:block.index("\n]\n") + 2])  # the literal list of (n, h, w, ci, co, k, s, p, d) rows
    names = {_name(od, act, *c) for c in cases for od in ("bf16", "f16") for act in ("none", "relu", "relu6")}
    names |= {_name("bf16", "relu", 3, 21, 19, 64, 96, (3, 3), (2, 2), (1, 1), (1, 1)),
              _name("bf16", "none", 3, 21, 19, 64, 96, (3, 3), (1, 1), (1, 1), (1, 1)),
              _name("bf16", "relu", 4, 28, 28, 64, 128, (3, 3), (2, 2), (1, 1), (1, 1)),
              _name("bf16", "none", 4, 14, 14, 128, 128, (3, 3), (2, 2), (1, 1), (1, 1))}
    return names | _resnet("bf16", 8)


def needed(which: str) -> set:
    sets = {"tests": _tests, "bench": lambda: _resnet("bf16", 1) | _resnet("bf16", 32),
            "resnet": lambda: _resnet("f16", 32),
            "chain": lambda: {c.name for c in resnet_configs("bf16") + resnet_configs("f16")},
            "quick": lambda: _resnet("bf16", 32, only_3x3=True) | _resnet("s8", 32, "relu", only_3x3=True)}
    if which == "all":
        return set().union(*(f() for f in sets.values()))
    return sets[which]()


if __name__ == "__main__":
    names = sorted(needed(sys.argv[1] if len(sys.argv) > 1 else "all"))
    print(" ".join(f"--name {n}" for n in names) if "--args" in sys.argv else " ".join(names))
