"""Session 43 probe: what the chain's NaN guard costs in the int8 implicit-GEMM conv epilogue (scale_x + 0 * guard,
CUTLASS's two-scalar broadcast; a null guard pointer reads the constant 0 instead of loading), and a few more tiles
for the narrow 64->64 conv at 56x56. ResNet-50's 3x3 convs at batch 32 as an int8 chain runs them (int8 NHWC in,
ReLU, int8 out) and with bf16 out; each form timed in 3 alternating rounds (CUDA graph of 20 calls,
bench_common.graph_time_us); outputs with and without a finite guard compared bit for bit first.
`python guard.py --names`: the extra kernels to build. `python guard.py OUT_DIR`: writes guard.md / guard.json."""
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[5]
sys.path[:0] = [str(ROOT), str(ROOT / "tools")]

from cutlass_gemm.kernels.conv2d import Conv2dConfig  # noqa: E402

NARROW = [Conv2dConfig(out_dtype="s8", activation="relu", tile=(128, 64, 64), cluster=c, stages=s)
          for c, s in (((2, 1, 1), 3), ((2, 1, 1), 5), ((2, 1, 1), 6), ((4, 1, 1), 4), ((1, 1, 1), 4))]


def main(out):
    import statistics
    import torch
    import torch.nn.functional as F
    from bench_common import graph_time_us, md_table, stamp
    from resnet50 import RESNET50_CONVS
    from cutlass_gemm.ops import conv_igemm

    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    torch.backends.cudnn.benchmark = True
    rows, lines = [], [json.dumps(stamp()), "", "us per call (CUDA graph of 20), batch 32; median of 3 alternating "
                       "rounds; s8 = int8 in, ReLU, int8 out (a chain's middle layer); bf16 = int8 in, bf16 out", ""]
    for name, ci, co, k, s, hw in RESNET50_CONVS:
        if k != 3:
            continue
        g = torch.Generator(device="cuda").manual_seed(ci + co + s)
        n, pad = 32, 1
        xh = torch.randn(n, ci, hw, hw, device="cuda", generator=g).half().contiguous(memory_format=torch.channels_last)
        wh = (torch.randn(co, ci, 3, 3, device="cuda", generator=g) * 0.05).half().contiguous(
            memory_format=torch.channels_last)
        xq = torch.randint(-128, 128, (n, hw, hw, ci), dtype=torch.int8, device="cuda", generator=g)
        wq = torch.randint(-127, 128, (co, 3, 3, ci), dtype=torch.int8, device="cuda", generator=g)
        sx = torch.tensor([0.02], device="cuda")
        sw = torch.rand(co, device="cuda", generator=g) * 1e-3
        b32 = torch.randn(co, device="cuda", generator=g)
        b16 = b32.bfloat16()
        inv = torch.tensor([4.0], device="cuda")
        guard = torch.tensor([0.013], device="cuda")
        forms = {
            "s8": lambda gd=None: conv_igemm.conv2d_int8_igemm(xq, wq, sx, sw, b32, (s, s), (pad, pad), (1, 1), "relu",
                                                               torch.int8, inv, gd),
            "s8 guard": lambda: forms["s8"](guard),
            "bf16": lambda gd=None: conv_igemm.conv2d_int8_igemm(xq, wq, sx, sw, b16, (s, s), (pad, pad), (1, 1),
                                                                 None, torch.bfloat16, None, gd),
            "bf16 guard": lambda: forms["bf16"](guard),
        }
        assert torch.equal(forms["s8"](), forms["s8 guard"]()) and torch.equal(forms["bf16"](), forms["bf16 guard"]())
        row = {"conv": name, "ci": ci, "co": co, "s": s, "hw": hw}
        with torch.no_grad():
            row["cudnn_f16_nobias"] = graph_time_us(lambda: F.conv2d(xh, wh, None, s, pad))
        times = {f: [] for f in forms}
        extra = NARROW if (ci, co, s, hw) == (64, 64, 1, 56) else []
        select = conv_igemm.select_config
        ref = forms["s8"]().clone()
        for cfg in extra:
            times[cfg.name] = []
        try:
            for _ in range(3):
                for f in forms:
                    times[f].append(graph_time_us(forms[f]))
                for cfg in extra:
                    conv_igemm.select_config = lambda *a, _c=cfg: _c
                    conv_igemm._plans.clear()
                    try:
                        assert torch.equal(forms["s8 guard"](), ref), cfg.name
                        times[cfg.name].append(graph_time_us(forms["s8 guard"]))
                    except Exception as exc:  # a config that does not build or launch: recorded
                        times[cfg.name].append(float("nan"))
                        row[cfg.name + " error"] = f"{type(exc).__name__}: {str(exc)[:160]}"
                    finally:
                        conv_igemm.select_config = select
                        conv_igemm._plans.clear()
        finally:
            conv_igemm.select_config = select
            conv_igemm._plans.clear()
        for f, v in times.items():
            row[f] = statistics.median(v)
            row[f + " rounds"] = v
        print({kk: vv for kk, vv in row.items() if "rounds" not in kk}, flush=True)
        rows.append(row)
        keys = list(times)
        lines += [f"### {name} {ci}->{co} s{s} {hw}x{hw}: cuDNN fp16 no bias {row['cudnn_f16_nobias']:.2f}", ""]
        lines += md_table(["form", "us (median)", "rounds", "no bias / this"],
                          [[kk, f"{row[kk]:.2f}", " ".join(f"{t:.2f}" for t in row[kk + ' rounds']),
                            f"{row['cudnn_f16_nobias'] / row[kk]:.3f}"] for kk in keys]) + [""]
    (out / "guard.json").write_text(json.dumps({"meta": stamp(), "rows": rows}, indent=1))
    (out / "guard.md").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    if sys.argv[1] == "--names":
        print(" ".join(f"--name {c.name}" for c in NARROW))
    else:
        main(sys.argv[1])
