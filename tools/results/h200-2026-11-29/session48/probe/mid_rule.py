#!/usr/bin/env python3
"""Session 48 probe: the per-block int8 rule for 129..511 rows, old against new, in one process (alternating batches).

Old (session 47): SELECTION_S8's 128 x 128 c2x1 tile to 383 rows, the scale_a layout column-major ("mn") only from 512
rows (SFA_MN_MIN_M). New: the 256 x 128 per-atom tile from 129 rows where it makes more than 66 tiles and "mn" from 129
rows (SFA_MN_MIN_M_S8): the op copies a row-major scale_a to "mn" itself at K >= 4096, the layer asks the quantizer
for "mn" directly. The old rule is put back for its calls by swapping the module's constants around each call.

Rows: `scaled_mm_blockwise_int8` with the row-major scale_a quantize_per_group returns (old / new: device time, the
new call's relayout copy included), and the eager `Int8BlockLinear` forward (quantization + GEMM, one C++ call) old /
new, with bf16 `F.linear` beside; every output checked against the float64 reference (op) and old vs new bitwise.

    python mid_rule.py names      # the kernels it runs
    python mid_rule.py OUT.json
"""
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[5]
sys.path.insert(0, str(ROOT / "tools"))
sys.path.insert(0, str(ROOT))
import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

from bench_common import alternating_time_us  # noqa: E402
import cutlass_gemm  # noqa: E402
from cutlass_gemm.kernels import blockwise as bk  # noqa: E402
from cutlass_gemm.nn import Int8BlockLinear  # noqa: E402
from cutlass_gemm.ops.blockwise_int8 import reference  # noqa: E402

SHAPES = [(132, 28672, 4096), (192, 28672, 4096), (256, 14336, 4096), (320, 8192, 8192), (384, 4096, 4096),
          (256, 7168, 2048), (448, 14336, 4096)]
OLD_SEL = (bk.SELECTION_S8[0], (383, bk.SELECTION_S8[1][1]), bk.SELECTION_S8[2])
NEW = (bk.SELECTION_S8, bk.SFA_MN_MIN_M_S8)
OLD = (OLD_SEL, bk.SFA_MN_MIN_M)


def under(rule, fn):
    def call():
        bk.SELECTION_S8, bk.SFA_MN_MIN_M_S8 = rule
        try:
            return fn()
        finally:
            bk.SELECTION_S8, bk.SFA_MN_MIN_M_S8 = NEW
    return call


def main(out_path):
    rows = []
    for m, n, k in SHAPES:
        g = torch.Generator(device="cuda").manual_seed(m + n + k)
        x = torch.randn(m, k, device="cuda", generator=g).bfloat16()
        lin = torch.nn.Linear(k, n, bias=True).cuda().bfloat16()
        layer = Int8BlockLinear.from_float(lin).cuda()
        q, s = cutlass_gemm.quantize_per_group(x, 128, torch.int8)
        op = lambda: cutlass_gemm.scaled_mm_blockwise_int8(q, layer.weight, s, layer.weight_scale, layer.bias)  # noqa
        y_old, y_new = under(OLD, op)(), under(NEW, op)()
        ref = reference(q, layer.weight, s, layer.weight_scale, layer.bias, torch.bfloat16, "none", 128).double()
        err = float((y_new.double() - ref).norm() / ref.norm())
        l_old, l_new = under(OLD, lambda: layer(x))(), under(NEW, lambda: layer(x))()
        t = alternating_time_us([under(OLD, op), under(NEW, op), under(OLD, lambda: layer(x)),
                                 under(NEW, lambda: layer(x)), lambda: F.linear(x, lin.weight, lin.bias)])
        sel = {name: bk.select_config("bf16", m, "none", major, "s8", n).name.split("_sfa")[1]
               for name, major in (("old", "k"), ("new", "mn" if bk.relayout_sfa(m, k, "s8", n) else "k"))}
        r = dict(m=m, n=n, k=k, op_old_us=t[0], op_new_us=t[1], layer_old_us=t[2], layer_new_us=t[3], bf16_us=t[4],
                 op_bits_equal=bool(torch.equal(y_old, y_new)), layer_bits_equal=bool(torch.equal(l_old, l_new)),
                 rel_err_new=err, new_kernel=sel["new"], layer_major_new=bk.layer_sfa_major(m, "s8"))
        rows.append(r)
        print(f"{m}x{n}x{k}: op {t[0]:.1f} -> {t[1]:.1f} us ({t[0] / t[1]:.3f}x), layer {t[2]:.1f} -> {t[3]:.1f} us "
              f"({t[2] / t[3]:.3f}x), bf16 F.linear {t[4]:.1f}; bits equal op {r['op_bits_equal']} layer "
              f"{r['layer_bits_equal']}, rel err {err:.1e}; new op kernel {sel['new']}", flush=True)
    Path(out_path).write_text(json.dumps(rows, indent=1))


def names():
    out = set()
    for m, n, k in SHAPES:
        for rule in (OLD, NEW):
            def pick():
                for major in ("k", bk.layer_sfa_major(m, "s8"), "mn" if bk.relayout_sfa(m, k, "s8", n) else "k"):
                    out.add(bk.select_config("bf16", m, "none", major, "s8", n).name)
            under(rule, pick)()
    print("\n".join(sorted(out)))


if __name__ == "__main__":
    names() if sys.argv[1] == "names" else main(sys.argv[1])
