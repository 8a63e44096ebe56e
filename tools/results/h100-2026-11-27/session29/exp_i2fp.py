"""Session 29: the int8 per-block promotion with I2FP (as emitted since generator 7: each k-tile's temporary starts at
zero through the first wgmma's ScaleOut::Zero, then accum += float(t) * (sa * sb[col])) against session 28's form
(temporary reset to the bits of 1.5 * 2^23, then accum += (t - 1.5 * 2^23) * (sa * sb[col])), for the two selected
int8 kernels (64x128 pingpong to 128 rows, 128x128 c2x1 cooperative above), each form compiled here from the emitted
source and launched by ctypes, timed in alternating batches with the per-token int8 GEMM (scaled_mm) in one process;
outputs of the two forms compared bitwise with each other and with the op's call.
    python exp_i2fp.py OUT_DIR [build]      ("build": compile the four libraries only; a later run reuses them)
"""
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parents[4]
sys.path.insert(0, str(ROOT / "tools"))
from bench_common import alternating_time_us  # noqa: E402
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "session28"))
from exp_variants import load  # noqa: E402  (ctypes binding of a blockwise library's cg_blockwise_launch)

import cutlass_gemm  # noqa: E402
from cutlass_gemm.kernels.blockwise import select_config  # noqa: E402
from cutlass_gemm.kernels.emit_blockwise import emit_blockwise_source  # noqa: E402
from cutlass_gemm.runtime.nvcc import compile_source  # noqa: E402

NEW_ISSUE = """      tiled_mma.accumulate_ = GMMA::ScaleOut::Zero;  // the k-tile's first wgmma overwrites the temporary
      warpgroup_fence_operand(part);
      warpgroup_arrive();
      CUTLASS_PRAGMA_UNROLL
      for (int k_block = 0; k_block < size<2>(tCrA); ++k_block) {
        cute::gemm(tiled_mma, tCrA(_, _, k_block, stage), tCrB(_, _, k_block, stage), part);
        tiled_mma.accumulate_ = GMMA::ScaleOut::One;
      }"""
OLD_ISSUE = """      CUTLASS_PRAGMA_UNROLL
      for (int i = 0; i < size(part); ++i) part(i) = 0x4B400000;
      tiled_mma.accumulate_ = GMMA::ScaleOut::One;
      warpgroup_fence_operand(part);
      warpgroup_arrive();
      CUTLASS_PRAGMA_UNROLL
      for (int k_block = 0; k_block < size<2>(tCrA); ++k_block) {
        cute::gemm(tiled_mma, tCrA(_, _, k_block, stage), tCrB(_, _, k_block, stage), part);
      }"""
NEW_LINE = "accum(i) += __int2float_rn(part(i)) * (sf(i) * sfb(i));"
OLD_LINE = "accum(i) += (__int_as_float(part(i)) - 12582912.0f) * (sf(i) * sfb(i));"
FORMS = {"i2fp": [], "magic": [(NEW_ISSUE, OLD_ISSUE), (NEW_LINE, OLD_LINE)]}
KERNELS = {"coop": select_config("bf16", 4096, sfa_major="mn", ab="s8"),
           "pingpong": select_config("bf16", 64, sfa_major="mn", ab="s8")}
SHAPES = {"pingpong": [(17, 8192, 8192), (64, 8192, 8192), (128, 8192, 8192)],
          "coop": [(1024, 8192, 8192), (2048, 8192, 8192), (4096, 8192, 8192), (8192, 8192, 8192),
                   (4096, 7168, 2048), (2048, 28672, 4096)]}


def build(out: Path):
    jobs = {}
    for kname, cfg in KERNELS.items():
        text = emit_blockwise_source(cfg)
        for form, subs in FORMS.items():
            t = text
            for old, new in subs:
                assert old in t, old
                t = t.replace(old, new)
            src = out / f"{kname}_{form}.cu"
            src.write_text(t)
            jobs[(kname, form)] = (src, out / f"{kname}_{form}.so")
    todo = {k: v for k, v in jobs.items() if not v[1].exists()}
    if todo:
        with ThreadPoolExecutor(len(todo)) as pool:
            secs = dict(zip(todo, pool.map(lambda j: compile_source(j[0], j[1], 90), todo.values())))
        print("built", {f"{k[0]}_{k[1]}": round(v) for k, v in secs.items()}, flush=True)
    return {k: v[1] for k, v in jobs.items()}


def main():
    out = Path(sys.argv[1])
    paths = build(out)
    if sys.argv[2:] == ["build"]:
        return
    libs = {k: load(p) for k, p in paths.items()}
    print("| kernel | M x N x K | per-token us | magic us | i2fp us | per-token/magic | per-token/i2fp | i2fp speed-up "
          "| magic == i2fp | i2fp == op |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for kname in KERNELS:
        for m, n, k in SHAPES[kname]:
            g = torch.Generator("cuda").manual_seed(m + n + k)
            a = torch.randint(-127, 128, (m, k), device="cuda", dtype=torch.int8, generator=g)
            b = torch.randint(-127, 128, (n, k), device="cuda", dtype=torch.int8, generator=g)
            sa = (torch.rand(k // 128, m, device="cuda", generator=g) * 1e-2).t()  # column-major (1, M) strides
            sb = torch.rand(n, k // 128, device="cuda", generator=g) * 1e-3
            st = torch.rand(m, 1, device="cuda", generator=g) * 1e-2
            sch = torch.rand(1, n, device="cuda", generator=g) * 1e-3
            outs = {f: torch.full((m, n), float("nan"), device="cuda", dtype=torch.bfloat16) for f in FORMS}
            ws = torch.empty(1 << 20, device="cuda", dtype=torch.uint8)

            def launcher(form):
                lib, d = libs[(kname, form)], outs[form]

                def run():
                    rc = lib.cg_blockwise_launch(a.data_ptr(), b.data_ptr(), d.data_ptr(), sa.data_ptr(),
                                                 sb.data_ptr(), None, m, n, k, k, k, n, ws.data_ptr(), ws.numel(),
                                                 torch.cuda.current_stream().cuda_stream)
                    assert rc == 0, rc
                return run
            fns = [lambda: cutlass_gemm.scaled_mm(a, b.t(), st, sch, torch.bfloat16), launcher("magic"),
                   launcher("i2fp")]
            t_pt, t_mg, t_i2 = alternating_time_us(fns)
            y_op = cutlass_gemm.scaled_mm_blockwise_int8(a, b, sa, sb)
            torch.cuda.synchronize()
            print(f"| {kname} | {m} x {n} x {k} | {t_pt:.1f} | {t_mg:.1f} | {t_i2:.1f} | {t_pt / t_mg:.3f} | "
                  f"{t_pt / t_i2:.3f} | {t_mg / t_i2:.3f} | {torch.equal(outs['magic'], outs['i2fp'])} | "
                  f"{torch.equal(outs['i2fp'], y_op)} |", flush=True)


if __name__ == "__main__":
    main()
