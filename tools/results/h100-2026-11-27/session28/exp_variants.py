"""Session 28 call 2: what the int8 promotion costs. Three variants of the selected large-M int8 kernel
(128x128 c2x1 cooperative, scale_a "mn"), each a copy of its emitted source with the promotion line changed:
  V0  as emitted: accum += (t - kMagic) * (sa * sb[col])           (MOV reset, FADD, FMUL, FFMA, LDS of sb)
  V1  one weight scale per tile: accum += (t - kMagic) * sa         (what a 128 x 128 weight-block int8 kernel does)
  V2  timing only (wrong values): accum += t * sa, no kMagic reset  (the fp8 kernels' one FFMA)
compiled here and timed by ctypes in alternating batches with the per-token int8 GEMM (scaled_mm) in one process.
    python exp_variants.py OUT_DIR
"""
import ctypes
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parents[4]
sys.path.insert(0, str(ROOT / "tools"))
from bench_common import alternating_time_us  # noqa: E402

import cutlass_gemm  # noqa: E402
from cutlass_gemm.kernels.blockwise import select_config  # noqa: E402
from cutlass_gemm.kernels.emit_blockwise import emit_blockwise_source  # noqa: E402
from cutlass_gemm.runtime.nvcc import compile_source  # noqa: E402

LINE = "accum(i) += (__int_as_float(part(i)) - kMagic) * (sf(i) * sfb(i));"
VARIANTS = {
    "V0": [],
    "V1": [(LINE, "accum(i) += (__int_as_float(part(i)) - kMagic) * sf(i);")],
    "V2": [(LINE, "accum(i) += __int_as_float(part(i)) * sf(i);"),
           ("for (int i = 0; i < size(part); ++i) part(i) = kMagicBits;", "")],
}


def build(out: Path):
    cfg = select_config("bf16", 4096, sfa_major="mn", ab="s8")
    text = emit_blockwise_source(cfg)
    assert LINE in text
    jobs = {}
    for name, subs in VARIANTS.items():
        t = text
        for old, new in subs:
            assert old in t, old
            t = t.replace(old, new)
        src = out / f"{name}.cu"
        src.write_text(t)
        jobs[name] = (src, out / f"{name}.so")
    with ThreadPoolExecutor(len(jobs)) as pool:
        secs = dict(zip(jobs, pool.map(lambda j: compile_source(j[0], j[1], 90), jobs.values())))
    print("built", {k: round(v) for k, v in secs.items()}, flush=True)
    return {k: v[1] for k, v in jobs.items()}


def load(path):
    lib = ctypes.CDLL(str(path))
    P, I = ctypes.c_void_p, ctypes.c_int64
    lib.cg_blockwise_launch.argtypes = [P, P, P, P, P, P, I, I, I, I, I, I, P, ctypes.c_size_t, P]
    lib.cg_blockwise_launch.restype = ctypes.c_int
    lib.cg_blockwise_workspace_size.argtypes = [I, I, I]
    lib.cg_blockwise_workspace_size.restype = ctypes.c_size_t
    return lib


def main():
    out = Path(sys.argv[1])
    libs = {k: load(p) for k, p in build(out).items()}
    print("| M x N x K | per-token us | " + " | ".join(f"{k} us | per-token/{k}" for k in libs) + " |")
    for m, n, k in [(2048, 8192, 8192), (4096, 7168, 2048), (1024, 8192, 8192)]:
        g = torch.Generator("cuda").manual_seed(m + n)
        a = torch.randint(-127, 128, (m, k), device="cuda", dtype=torch.int8, generator=g)
        b = torch.randint(-127, 128, (n, k), device="cuda", dtype=torch.int8, generator=g)
        sa = (torch.rand(k // 128, m, device="cuda", generator=g) * 1e-2).t()  # column-major (1, M) strides
        sb = torch.rand(n, k // 128, device="cuda", generator=g) * 1e-3
        st = torch.rand(m, 1, device="cuda", generator=g) * 1e-2
        sch = torch.rand(1, n, device="cuda", generator=g) * 1e-3
        outs = {name: torch.empty(m, n, device="cuda", dtype=torch.bfloat16) for name in libs}
        ws = torch.empty(1 << 20, device="cuda", dtype=torch.uint8)

        def launcher(name):
            lib, d = libs[name], outs[name]

            def run():
                rc = lib.cg_blockwise_launch(a.data_ptr(), b.data_ptr(), d.data_ptr(), sa.data_ptr(), sb.data_ptr(),
                                             None, m, n, k, k, k, n, ws.data_ptr(), ws.numel(),
                                             torch.cuda.current_stream().cuda_stream)
                assert rc == 0, rc
            return run
        fns = [lambda: cutlass_gemm.scaled_mm(a, b.t(), st, sch, torch.bfloat16)] + [launcher(v) for v in libs]
        times = alternating_time_us(fns)
        y_op = cutlass_gemm.scaled_mm_blockwise_int8(a, b, sa, sb)
        same = torch.equal(outs["V0"], y_op)
        cells = " | ".join(f"{t:.1f} | {times[0] / t:.2f}" for t in times[1:])
        print(f"| {m} x {n} x {k} | {times[0]:.1f} | {cells} | V0 == op: {same}", flush=True)


if __name__ == "__main__":
    main()
