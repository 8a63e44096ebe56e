"""Session 38 call 7 probe: the decode benchmark's first timed row ("ours int8" at its first shape) came out 10-25x too
slow in three recorded runs (session 37 call 5 / call 6, session 38 call 6: 39, 183 and 88 us for a ~7 us call) while
every later row of the same process was normal. This repeats the benchmark's first steps in a fresh process
(tools/bench_decode.py: copy-rate measurement, Problem(16, 4096, 4096), the GEMV switched on, gpu_time_us of the int8
call) and prints, for the first three timings, every batch's device time per call beside its host enqueue time per call
and the path each call took.

    python first_row.py   (from tools/, PYTHONPATH with the repository root)
"""
import sys
import time

import torch

sys.path.insert(0, ".")
import cutlass_gemm  # noqa: E402
from bench_common import copy_bandwidth_gbps  # noqa: E402
from bench_decode import use_gemv  # noqa: E402
from benchmark import Problem  # noqa: E402
from cutlass_gemm.ops import gemm as ops  # noqa: E402


def batches(fn, batch=20, n=7, warmup=3):
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    out = []
    for _ in range(n):
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        torch.cuda._sleep(3_000_000)
        s.record()
        t0 = time.perf_counter()
        for _ in range(batch):
            fn()
        host = (time.perf_counter() - t0) * 1e6 / batch
        e.record()
        e.synchronize()
        out.append((s.elapsed_time(e) * 1e3 / batch, host))
    return out


def main():
    t_start = time.perf_counter()
    bw = copy_bandwidth_gbps()
    p = Problem(16, 4096, 4096)
    p.bf16()
    p.fp8()
    use_gemv(True)
    fast_calls = {"python": 0}
    real_run_cuda = ops._run_cuda

    def counting(*a, **k):  # calls that left the C++ fast path for the Python one
        fast_calls["python"] += 1
        return real_run_cuda(*a, **k)
    ops._run_cuda = counting

    def int8():
        cutlass_gemm.scaled_mm(p.a, p.next_w().t(), p.sa, p.sb, torch.bfloat16, p.bias)
    print(f"copy {bw:.0f} GB/s; setup {time.perf_counter() - t_start:.1f} s")
    for r in range(3):
        before = fast_calls["python"]
        rows = batches(int8)
        dev = sorted(d for d, _ in rows)[len(rows) // 2]
        print(f"timing {r}: median {dev:.2f} us/call; python-path calls {fast_calls['python'] - before}; per batch "
              + " ".join(f"{d:.1f}/{h:.1f}" for d, h in rows) + "  (device/host us per call)", flush=True)


if __name__ == "__main__":
    main()
