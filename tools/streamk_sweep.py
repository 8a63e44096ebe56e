#!/usr/bin/env python3
"""The stream-K / split-K sweep of issue 11 item 4, as data, so the GPU commands stay short:

  python tools/streamk_sweep.py names tests        # --name flags of the kernels tests/test_streamk_gpu.py needs
  python tools/streamk_sweep.py names sweep        # --name flags of every candidate of both sweeps (scaled_bias, bf16)
  python tools/streamk_sweep.py choices decode     # --choices of `benchmark.py tiles` for the decode shapes
  python tools/streamk_sweep.py choices mid        # ... for the M = 512 shapes
  python tools/streamk_sweep.py shapes decode|mid  # --shapes of those sweeps

Typical use (H100): build with `python tools/generate_kernels.py $(python tools/streamk_sweep.py names sweep) --out
/tmp/cg_gen --compile --jobs 16`, then `python tools/benchmark.py tiles --dtypes int8,e4m3 --shapes $(... shapes
decode) --choices $(... choices decode)`; the winners go into `heuristics.SPLIT`.
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from cutlass_gemm.kernels import heuristics  # noqa: E402
from cutlass_gemm.kernels.config import KernelConfig  # noqa: E402

#: data-parallel baselines first (the table's tile, and the same cooperative tile without a split), then candidates
CHOICES = {
    "decode": ["64x64x128/c1x1x1/pingpong", "128x64x128/c1x1x1/cooperative", "128x64x128/c1x1x1/cooperative/streamk",
               "128x64x128/c1x1x1/cooperative/splitk2", "128x64x128/c1x1x1/cooperative/splitk4",
               "128x128x128/c1x1x1/cooperative/streamk"],
    "mid": ["128x128x128/c1x2x1/pingpong", "256x128x128/c1x2x1/cooperative", "128x128x128/c1x1x1/cooperative/streamk",
            "128x128x128/c1x2x1/cooperative/streamk", "256x128x128/c1x2x1/cooperative/streamk",
            "128x256x128/c1x1x1/cooperative/streamk", "128x128x128/c1x1x1/cooperative/splitk2"],
}
#: issue 11's shapes (M x N x K): decode M <= 16, and the fp8 M = 512 rows
SHAPES = {"decode": "16x8192x8192,1x4096x14336,16x14336x4096", "mid": "512x4096x4096,512x4096x14336"}


def parse_choice(text: str) -> heuristics.TileChoice:
    """TILE/CLUSTER/SCHEDULE[/persistent|/streamk|/splitkN] -> TileChoice (tools/benchmark.py's syntax)."""
    parts = text.split("/")
    scheduler, splits = "persistent", 1
    if len(parts) == 4:
        scheduler = parts[3] if parts[3] in ("persistent", "streamk") else "splitk"
        splits = int(parts[3][len("splitk"):]) if scheduler == "splitk" else 1
    return heuristics.TileChoice(tuple(int(v) for v in parts[0].split("x")),
                                 tuple(int(v) for v in parts[1].lstrip("c").split("x")), parts[2],
                                 scheduler=scheduler, splits=splits)


def _cfg(a_dtype, variant, tile, scheduler, splits=1, out="bf16") -> KernelConfig:
    return KernelConfig(sm=90, a_dtype=a_dtype, out_dtype=out, variant=variant, tile=tile, schedule="cooperative",
                        scheduler=scheduler, splits=splits)


def sweep_names() -> list:
    """Every candidate of both sweeps, scaled_bias, bf16 out, int8 and e4m3, outside the prebuilt set."""
    prebuilt = {c.name for c in heuristics.prebuilt_configs(90)}
    names = []
    for text in CHOICES["decode"] + CHOICES["mid"]:
        for dt in ("int8", "e4m3"):
            name = heuristics.make_config(90, "scaled_bias", "bf16", parse_choice(text), a_dtype=dt).name
            if name not in prebuilt and name not in names:
                names.append(name)
    return names


def test_names() -> list:
    """The kernels tests/test_streamk_gpu.py launches (its KERNELS: the candidate rows' stream-K kernels and four
    split-K ones), less those of the sweep."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
    from test_streamk_gpu import KERNELS
    sweep = set(sweep_names())
    return [c.name for c in KERNELS if c.name not in sweep]


def main(argv) -> int:
    if len(argv) != 2 or argv[0] not in ("names", "choices", "shapes"):
        print(__doc__, file=sys.stderr)
        return 2
    what, which = argv
    if what == "names":
        names = {"tests": test_names, "sweep": sweep_names}[which]()
        print(" ".join(f"--name {n}" for n in names))
    elif what == "choices":
        print(",".join(CHOICES[which]))
    else:
        print(SHAPES[which])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
