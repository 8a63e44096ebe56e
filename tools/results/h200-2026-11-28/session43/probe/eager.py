"""Session 43 probe: the eager wall clock of the chained int8 ResNet-50 (batch 32, fp16, BatchNorm folded,
w8a8-int8-static, chain_int8) with the conv op's C++ eager entry on and off (CUTLASS_GEMM_FAST_PATH, read per call),
in 5 alternating rounds in one process, beside the fp16 cuDNN model; plus CUDA-graph GPU time once.
`python eager.py OUT_DIR` writes eager.md / eager.json."""
import copy
import json
import os
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[5]
sys.path[:0] = [str(ROOT), str(ROOT / "tools")]


def main(out):
    import torch
    import cutlass_gemm.nn as cnn
    from bench_common import graph_time_us, stamp, wall_time_us
    from resnet50 import resnet50

    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    torch.backends.cudnn.benchmark = True
    cl = torch.channels_last
    base, source = resnet50()
    base = base.cuda().to(memory_format=cl)
    xh = torch.randn(32, 3, 224, 224, device="cuda").half().contiguous(memory_format=cl)
    with torch.no_grad():
        f16 = copy.deepcopy(base).half()
        q = cnn.fold_batchnorm(copy.deepcopy(base).half().eval())
        cnn.quantize_model(q, "w8a8-int8-static", calibration=cnn.calibrate(q, [xh]))
        chain, _ = cnn.chain_int8(q)
        y_ref = chain(xh)
        times = {"fp16 cuDNN": [], "int8 chain, C++ entry": [], "int8 chain, Python path": []}
        for _ in range(5):
            for name in times:
                os.environ["CUTLASS_GEMM_FAST_PATH"] = "0" if name.endswith("Python path") else "1"
                m = f16 if name.startswith("fp16") else chain
                times[name].append(wall_time_us(lambda: m(xh), calls=20, reps=3, warmup=3) / 1e3)
        os.environ["CUTLASS_GEMM_FAST_PATH"] = "1"
        assert torch.equal(chain(xh), y_ref)  # the two paths run the same kernels: same bits
        graph = {"fp16 cuDNN": graph_time_us(lambda: f16(xh), calls=2, replays=5, warmup=2) / 1e3,
                 "int8 chain": graph_time_us(lambda: chain(xh), calls=2, replays=5, warmup=2) / 1e3}
    med = {k: statistics.median(v) for k, v in times.items()}
    lines = [json.dumps(stamp()), "", f"ResNet-50 ({source}, random weights), batch 32, 224x224, fp16, channels_last: "
             "eager wall clock per forward (ms; wall_time_us: 20 calls x 3 reps, median; 5 alternating rounds)", "",
             "| model | median of rounds | rounds | fp16 cuDNN / this |", "|---|---|---|---|"]
    for k, v in times.items():
        lines.append(f"| {k} | {med[k]:.2f} | {' '.join(f'{t:.2f}' for t in v)} | {med['fp16 cuDNN'] / med[k]:.2f} |")
    lines += ["", f"CUDA-graph GPU time per forward (ms): fp16 cuDNN {graph['fp16 cuDNN']:.2f}, int8 chain "
              f"{graph['int8 chain']:.2f} ({graph['fp16 cuDNN'] / graph['int8 chain']:.2f}x)"]
    (out / "eager.json").write_text(json.dumps({"meta": stamp(), "eager_ms": times, "graph_ms": graph}, indent=1))
    (out / "eager.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main(sys.argv[1])
