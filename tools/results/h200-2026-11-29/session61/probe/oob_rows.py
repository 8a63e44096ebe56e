#!/usr/bin/env python3
"""Session 61 probe: what a partly empty last M tile costs the SM90 per-token GEMMs on a caller's unpadded operands
(`scaled_mm`), and where that time goes.

Session 49 (docs/performance.md, "Partial M tiles") found the same kernel 1.1-1.7x faster on operands padded with zero
rows to whole tiles than on the unpadded ones, and put it down to the tile's out-of-bounds rows (the TMA load's zero
fill, or the clipped store) without a profiler run. The layers pad since session 50; `scaled_mm` on a caller's operands
does not. Two questions:

- sweep: at M rows that leave the last tile partly empty, each SM90 tile the table has (64 x 128 c2x1, 128 x 128,
  256 x 128 c1x2) launched directly on the unpadded operands, against the chosen kernel on operands padded to
  heuristics.padded_rows (zero rows: "pad0"; random rows: "padr", a control for the data in the padded rows). Would
  another tile serve the unpadded call faster than the one choose_tile gives it?
- launch: one kernel at a given M on unpadded or padded operands, ten launches, for Nsight Compute (the 6th).

    python oob_rows.py names
    python oob_rows.py sweep OUT.json [ROWS SHAPES]    # e.g. 136,150 28672x4096,4096x4096 (N x K); default below
    python oob_rows.py launch TILE AB M ROWS N K FILL     # TILE t64|t128|t256, FILL zero|rand (ROWS > M: padded)

Call 3 (after heuristics.PARTIAL): the same sweep out of sample (rows and shapes not in call 2's), `chosen` then
being the rule's tile.

Operands from torch, int8 / e4m3, bf16 out, per-token x per-channel scales, no bias; 20 calls per CUDA graph
(bench_common.graph_time_us), two rounds, median. No extension needed (CUTLASS_GEMM_FAST_PATH=0).
"""
import json
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[5]
sys.path[:0] = [str(ROOT / "tools"), str(ROOT)]
from cutlass_gemm.kernels import heuristics as H  # noqa: E402

TILES = {"t64": H._T64, "t128": H._T128, "t256": H._T256}
SHAPES = [(8192, 8192), (28672, 4096), (4096, 4096), (7168, 2048)]  # (N, K)
ROWS = [132, 160, 200, 260, 300, 400, 450, 520, 600, 700, 900, 1030]
ABS = ("int8", "e4m3")


def config(choice, ab):
    return H.make_config(90, "scaled", "bf16", choice, a_dtype=ab)


def names():
    return sorted({config(c, ab).name for c in TILES.values() for ab in ABS})


def tile_key(choice):
    return next(t for t, c in TILES.items() if c == choice)


class Problem:
    """An N x K weight and its per-channel scale, per input type; activations made per M."""

    def __init__(self, n, k, seed):
        import torch
        self.n, self.k = n, k
        self.g = torch.Generator(device="cuda").manual_seed(seed)
        self.b = {ab: self.rand_q(n, k, ab) for ab in ABS}
        self.sb = torch.rand(n, 1, device="cuda", generator=self.g) * 1e-2 + 1e-3

    def rand_q(self, rows, k, ab):
        import torch
        if ab == "int8":
            return torch.randint(-127, 128, (rows, k), device="cuda", dtype=torch.int8, generator=self.g)
        return torch.randn(rows, k, device="cuda", generator=self.g).to(torch.float8_e4m3fn)

    def activation(self, m, rows, ab, fill):
        """(a, scale_a) with `rows` rows, the first m the same whatever the padding (zero or random rows past m)."""
        import torch
        a = self.rand_q(rows, self.k, ab)
        sa = torch.rand(rows, 1, device="cuda", generator=self.g) * 1e-2 + 1e-3
        if fill == "zero" and rows > m:
            a[m:] = 0
            sa[m:] = 1
        return a.contiguous(), sa.contiguous()


def launcher(choice, ab, prob, a, sa, rows):
    """A call of `choice`'s kernel on `rows` rows of a / sa, output (rows, N) bf16, workspace its own."""
    import torch
    from cutlass_gemm.runtime import loader
    lib = loader.get_kernel(config(choice, ab))
    n, k = prob.n, prob.k
    ws_bytes = lib.workspace_size(rows, n, k)
    ws = torch.empty(max(ws_bytes, 1), dtype=torch.uint8, device="cuda")

    def fn():
        out = torch.empty(rows, n, dtype=torch.bfloat16, device="cuda")
        lib.launch(a.data_ptr(), prob.b[ab].data_ptr(), out.data_ptr(), rows, n, k, k, k, n, sa.data_ptr(),
                   prob.sb.data_ptr(), None, None, None, None, ws.data_ptr(), ws_bytes,
                   torch.cuda.current_stream().cuda_stream)
        return out
    return fn


def sweep(out_path, rows=None, shapes=None):
    import torch
    from bench_common import graph_time_us
    rows_out = []
    for n, k in shapes or SHAPES:
        prob = Problem(n, k, n + k)
        for m in rows or ROWS:
            for ab in ABS:
                chosen = H.choose_tile(90, m, n, ab, k)
                padded = H.padded_rows(90, m, n, ab, k=k)
                a, sa = prob.activation(m, m, ab, "none")
                ops = {t: launcher(c, ab, prob, a, sa, m) for t, c in TILES.items()}
                for fill in ("zero", "rand"):
                    ap, sap = prob.activation(m, padded, ab, fill)
                    ap[:m], sap[:m] = a, sa
                    pc = H.choose_tile(90, padded, n, ab, k)
                    ops["pad0" if fill == "zero" else "padr"] = launcher(pc, ab, prob, ap, sap, padded)
                ref = ops[tile_key(chosen)]()[:m].float()
                diff = {name: float((fn()[:m].float() - ref).abs().max()) for name, fn in ops.items()}
                times = {name: [] for name in ops}
                for _ in range(2):
                    for name, fn in ops.items():
                        times[name].append(graph_time_us(fn))
                med = {name: statistics.median(v) for name, v in times.items()}
                best = min(TILES, key=lambda t: med[t])
                row = dict(m=m, n=n, k=k, ab=ab, chosen=tile_key(chosen), padded_rows=padded,
                           padded_tile=tile_key(H.choose_tile(90, padded, n, ab, k)), us=med, runs=times,
                           max_abs_diff_vs_chosen=diff, best_unpadded=best)
                rows_out.append(row)
                print(f"{m}x{n}x{k} {ab}: " + " ".join(f"{t} {med[t]:.1f}" for t in ops)
                      + f" | chosen {row['chosen']} best {best} ({med[row['chosen']] / med[best]:.2f}x)"
                      + f" | pad {padded} rows on {row['padded_tile']}", flush=True)
                del ops
                torch.cuda.empty_cache()
    Path(out_path).write_text(json.dumps(rows_out, indent=1))


def launch(tile, ab, m, rows, n, k, fill):
    import torch
    prob = Problem(n, k, n + k)
    a, sa = prob.activation(m, rows, ab, fill)
    fn = launcher(TILES[tile], ab, prob, a, sa, rows)
    for _ in range(10):
        fn()
    torch.cuda.synchronize()
    print(f"{tile} {ab} m={m} rows={rows} {n}x{k} fill={fill}: 10 launches")


if __name__ == "__main__":
    if sys.argv[1] == "names":
        print("\n".join(names()))
    elif sys.argv[1] == "sweep":
        sweep(sys.argv[2], [int(r) for r in sys.argv[3].split(",")] if len(sys.argv) > 3 else None,
              [tuple(int(v) for v in s.split("x")) for s in sys.argv[4].split(",")] if len(sys.argv) > 4 else None)
    else:
        t, ab, m, rows, n, k, fill = sys.argv[2:9]
        launch(t, ab, int(m), int(rows), int(n), int(k), fill)
