"""Session 42 probe: CTA tiles, pipeline stages and clusters of the SM90 int8 implicit-GEMM conv kernel on ResNet-50's
3x3 convs at batch 32, as an int8 chain runs them (int8 NHWC in, ReLU, int8 out: `conv2d_int8_igemm(...,
out_dtype=torch.int8, scale_out=...)`), against cuDNN fp16 with and without a bias. The op's selection
(kernels/conv2d.py select_config: stages 0 = as many as fit, one CTA per SM) was never measured against others. Each
config's output is compared bit for bit with the selected kernel's (int32 accumulation is exact, the epilogue
elementwise: any tiling gives the same bits). GPU time of a CUDA graph of 20 calls (bench_common.graph_time_us).
Names of the kernels to build: `python conv_tiles.py --names`. Writes conv_tiles.md / .json to the folder given."""
import json
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[5]
sys.path[:0] = [str(ROOT), str(ROOT / "tools")]

from cutlass_gemm.kernels.conv2d import Conv2dConfig, select_config  # noqa: E402

K64 = [((128, 64, 64), (1, 1, 1), 0), ((128, 64, 64), (1, 1, 1), 3), ((128, 64, 64), (1, 1, 1), 4),
       ((128, 64, 64), (1, 1, 1), 6), ((64, 64, 64), (1, 1, 1), 0), ((64, 64, 64), (1, 1, 1), 4),
       ((128, 64, 64), (2, 1, 1), 4)]
K128 = [((128, 128, 128), (1, 1, 1), 0), ((128, 128, 128), (1, 1, 1), 3), ((128, 64, 128), (1, 1, 1), 0),
        ((128, 64, 128), (1, 1, 1), 3), ((128, 64, 128), (1, 1, 1), 4), ((64, 128, 128), (1, 1, 1), 0),
        ((64, 128, 128), (1, 1, 1), 3), ((64, 64, 128), (1, 1, 1), 0), ((64, 64, 128), (1, 1, 1), 4)]

if os.environ.get("CONV_TILES_SET") == "clusters":  # call 4: clusters for the tile-K-128 classes
    K64 = [((128, 64, 64), (2, 1, 1), 4)]
    K128 = [((128, 128, 128), (1, 1, 1), 0), ((128, 128, 128), (2, 1, 1), 0), ((128, 128, 128), (1, 2, 1), 0),
            ((64, 128, 128), (2, 1, 1), 3), ((64, 128, 128), (1, 1, 1), 3)]


def configs(ci, co):
    return [Conv2dConfig(out_dtype="s8", activation="relu", tile=t, cluster=c, stages=s)
            for t, c, s in (K64 if ci % 128 else K128)]


def main(out):
    import torch
    import torch.nn.functional as F
    from bench_common import graph_time_us, md_table, stamp
    from resnet50 import RESNET50_CONVS
    from cutlass_gemm.ops import conv_igemm

    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    torch.backends.cudnn.benchmark = True
    rows = []
    for name, ci, co, k, s, hw in RESNET50_CONVS:
        if k != 3:
            continue
        g = torch.Generator(device="cuda").manual_seed(ci + co + s)
        n, pad = 32, 1
        xh = torch.randn(n, ci, hw, hw, device="cuda", generator=g).half().contiguous(memory_format=torch.channels_last)
        wh = (torch.randn(co, ci, 3, 3, device="cuda", generator=g) * 0.05).half().contiguous(
            memory_format=torch.channels_last)
        bh = torch.randn(co, device="cuda", generator=g).half()
        xq = torch.randint(-128, 128, (n, hw, hw, ci), dtype=torch.int8, device="cuda", generator=g)
        wq = torch.randint(-127, 128, (co, 3, 3, ci), dtype=torch.int8, device="cuda", generator=g)
        sx = torch.tensor([0.02], device="cuda")
        sw = torch.rand(co, device="cuda", generator=g) * 1e-3
        bias = torch.randn(co, device="cuda", generator=g)
        inv_out = torch.tensor([4.0], device="cuda")
        call = lambda: conv_igemm.conv2d_int8_igemm(xq, wq, sx, sw, bias, (s, s), (pad, pad), (1, 1), "relu",  # noqa
                                                    torch.int8, inv_out)
        p = (hw + 2 * pad - 3) // s + 1
        chosen = select_config("s8", "relu", n * p * p, co, ci)
        row = {"conv": name, "ci": ci, "co": co, "s": s, "hw": hw, "m": n * p * p, "chosen": chosen.name}
        with torch.no_grad():
            row["cudnn_f16"] = graph_time_us(lambda: F.conv2d(xh, wh, bh, s, pad))
            row["cudnn_f16_nobias"] = graph_time_us(lambda: F.conv2d(xh, wh, None, s, pad))
        select = conv_igemm.select_config
        try:
            conv_igemm._plans.clear()
            ref = call().clone()
            for cfg in configs(ci, co):
                conv_igemm.select_config = lambda *a, _c=cfg: _c
                conv_igemm._plans.clear()
                try:
                    y = call()
                    assert torch.equal(y, ref), f"{cfg.name}: output differs from the selected kernel's"
                    row[cfg.name] = graph_time_us(call)
                except Exception as exc:  # a config that does not build or launch: recorded, the others still run
                    row[cfg.name] = f"{type(exc).__name__}: {str(exc)[:160]}"
        finally:
            conv_igemm.select_config = select
            conv_igemm._plans.clear()
        print({kk: (round(vv, 2) if isinstance(vv, float) else vv) for kk, vv in row.items()}, flush=True)
        rows.append(row)
    (out / "conv_tiles.json").write_text(json.dumps({"meta": stamp(), "rows": rows}, indent=1))
    write_md(out, stamp(), rows)


def write_md(out, meta, rows):
    from bench_common import md_table
    lines = [json.dumps(meta), "", "us per call (CUDA graph of 20), batch 32, int8 NHWC in, ReLU, int8 out "
             "(the int8 chain's layer); cuDNN fp16 channels_last with / without a bias; 'chosen' = select_config's", ""]
    for r in rows:
        times = {kk: vv for kk, vv in r.items() if kk.startswith("sm90_")}
        best = min((vv, kk) for kk, vv in times.items() if isinstance(vv, float))
        chosen = r.get(r["chosen"], "not in this set")
        lines.append(f"### {r['conv']} {r['ci']}->{r['co']} s{r['s']} {r['hw']}x{r['hw']} (M = {r['m']}): cuDNN "
                     f"{r['cudnn_f16']:.1f} / no bias {r['cudnn_f16_nobias']:.1f}; chosen {r['chosen']} "
                     f"{chosen if isinstance(chosen, str) else round(chosen, 2)}; "
                     f"best {best[1]} {best[0]:.2f} (no bias / best {r['cudnn_f16_nobias'] / best[0]:.2f}x)")
        lines += [""] + md_table(["kernel", "us", "cudnn no bias / this"],
                                 [[kk, f"{vv:.2f}" if isinstance(vv, float) else vv,
                                   f"{r['cudnn_f16_nobias'] / vv:.2f}" if isinstance(vv, float) else ""]
                                  for kk, vv in times.items()]) + [""]
    (out / "conv_tiles.md").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    if sys.argv[1] == "--md":  # the table again from a run's JSON: conv_tiles.py --md RUN.json OUT_DIR
        run = json.loads(Path(sys.argv[2]).read_text())
        write_md(Path(sys.argv[3]), run["meta"], run["rows"])
    elif sys.argv[1] == "--names":
        from resnet50 import RESNET50_CONVS
        names = sorted({c.name for _, ci, co, k, s, hw in RESNET50_CONVS if k == 3 for c in configs(ci, co)})
        print(" ".join(f"--name {nm}" for nm in names))
    else:
        main(sys.argv[1])
