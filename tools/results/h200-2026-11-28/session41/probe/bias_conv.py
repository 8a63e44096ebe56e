"""Session 41 probe, call 6: what the bias costs cuDNN on the batch-1 ResNet-50 1x1 convs. fp16, channels_last, one
process, GPU time of a CUDA graph over 20-64 weight copies (bench_common.graph_time_us): F.conv2d with a bias (as a
BatchNorm-folded conv runs; `benchmark.py conv --weight-only`'s baseline), without one (the conv alone, as torchvision's
ResNet-50 convs are), and this library's WeightOnlyConv2d int4 g128 from either conv. A torch.profiler listing of one
call of each cuDNN form names the kernels. Writes bias.md to the folder given."""
import sys
from pathlib import Path

import torch
from torch import nn

ROOT = Path(__file__).resolve().parents[5]
sys.path[:0] = [str(ROOT), str(ROOT / "tools")]
from bench_common import graph_time_us, md_table, stamp  # noqa: E402

import cutlass_gemm.nn as cnn  # noqa: E402

CL = torch.channels_last
CONVS = [("l1.a", 64, 64, 56), ("l1.c", 64, 256, 56), ("l1.a'", 256, 64, 56), ("l2.a", 256, 128, 56),
         ("l2.c", 128, 512, 28), ("l2.a'", 512, 128, 28), ("l3.a", 512, 256, 28), ("l3.c", 256, 1024, 14),
         ("l3.a'", 1024, 256, 14), ("l4.a", 1024, 512, 14), ("l4.c", 512, 2048, 7), ("l4.a'", 2048, 512, 7)]


def main(out):
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    torch.backends.cudnn.benchmark = True
    rows, kernels = [], []
    for name, ci, co, hw in CONVS:
        g = torch.Generator(device="cuda").manual_seed(ci + co)
        n = max(20, min(64, -(-(120 << 20) // (ci * co * 2))))
        block = 128 if ci % 128 == 0 else 64
        x = torch.randn(1, ci, hw, hw, device="cuda", generator=g).half().contiguous(memory_format=CL)
        with_b = [nn.Conv2d(ci, co, 1, device="cuda", dtype=torch.float16) for _ in range(n)]
        no_b = [nn.Conv2d(ci, co, 1, bias=False, device="cuda", dtype=torch.float16) for _ in range(n)]
        with torch.no_grad():
            for a, b in zip(with_b, no_b):
                a.weight.copy_(torch.randn(co, ci, 1, 1, device="cuda", generator=g) * ci ** -0.5)
                b.weight.copy_(a.weight)
        w4_b = [cnn.WeightOnlyConv2d.from_float(c, bits=4, block_size=block) for c in with_b]
        w4_nb = [cnn.WeightOnlyConv2d.from_float(c, bits=4, block_size=block) for c in no_b]
        it = iter(range(10 ** 9))
        row = [name, f"{ci}->{co}", hw]
        with torch.no_grad():
            for ls in (with_b, no_b, w4_b, w4_nb):
                row.append(graph_time_us(lambda: ls[next(it) % n](x), calls=n))
            if name in ("l1.c", "l4.a'"):
                for tag, c in (("bias", with_b[0]), ("no bias", no_b[0])):
                    try:  # a listing only: a profiler failure must not lose the timings
                        c(x)
                        torch.cuda.synchronize()
                        with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as prof:
                            c(x)
                            torch.cuda.synchronize()
                        names = [e.name for e in prof.events() if e.device_type == torch.profiler.DeviceType.CUDA]
                        kernels.append(f"{name} F.conv2d {tag}: {len(names)} kernels: " + " | ".join(k[:90] for k in names))
                    except Exception as exc:  # noqa: BLE001
                        kernels.append(f"{name} F.conv2d {tag}: profiler failed: {exc!r}"[:200])
        row += [round(row[3] / row[5], 3), round(row[4] / row[6], 3), round(row[4] / row[5], 3)]
        print(row, flush=True)
        rows.append(row)
    lines = [str(stamp()), "", "us per call (CUDA graph over weight copies past L2), fp16, channels_last, batch 1", ""]
    lines += md_table(["conv", "Ci->Co", "HW", "cudnn + bias", "cudnn no bias", "int4 + bias", "int4 no bias",
                       "ratio with bias", "ratio no bias", "cudnn no bias / int4 + bias"],
                      [[r[0], r[1], r[2]] + [f"{v:.2f}" for v in r[3:7]] + r[7:] for r in rows])
    lines += ["", "Kernels of one eager call (torch.profiler):", ""] + [f"- {k}" for k in kernels]
    (out / "bias.md").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main(sys.argv[1])
