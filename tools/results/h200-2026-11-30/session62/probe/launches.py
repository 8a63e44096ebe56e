#!/usr/bin/env python3
"""Session 62 probe: what one padded scaled_mm_azp call launches, call by call (call 1's test_one_pad_launch saw a
pad, the GEMM and a second pad in the first call): the C++ fast path asked directly before and after the plan exists,
then the op under the profiler on each path. Prints one line per step."""
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[5]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

import torch  # noqa: E402

from cutlass_gemm.ops import gemm as ops  # noqa: E402
from cutlass_gemm.runtime import extension, fastpath  # noqa: E402
from gpu_helpers import forget_gemm_plans  # noqa: E402
from test_ops_gpu import _cuda_kernels_of, make_problem, run_op  # noqa: E402


def ask(ext, p, code):
    r = ext.run(code, p["a"], p["b"], p["scale_a"], p["scale_b"], torch.bfloat16, p["bias"], p["azp_adj"], p["azp"], None)
    torch.cuda.synchronize()
    return type(r).__name__ + ("" if not isinstance(r, int) else f" {r}")


def main():
    ext = extension.load()
    code = fastpath.CODES["scaled_azp_per_token", "none"]
    p = make_problem("scaled_azp_per_token", 140, 1032, 528, torch.bfloat16, seed=3)
    forget_gemm_plans()
    print("fast path before any plan:", ask(ext, p, code))
    print("first op call:", _cuda_kernels_of(lambda: run_op("scaled_azp_per_token", p, None)))
    print("plan:", {k: v[-1] for k, v in ops._plans.items()})
    print("fast path with the plan:", ask(ext, p, code))
    for i in range(3):
        print(f"op call {i + 2}:", _cuda_kernels_of(lambda: run_op("scaled_azp_per_token", p, None)))
    saved, ops._fast_ready = ops._fast_ready, False
    print("python path:", _cuda_kernels_of(lambda: run_op("scaled_azp_per_token", p, None)))
    ops._fast_ready = saved
    forget_gemm_plans()
    print("after forget, first call again:", _cuda_kernels_of(lambda: run_op("scaled_azp_per_token", p, None)))


if __name__ == "__main__":
    main()
