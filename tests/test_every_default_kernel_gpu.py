"""Every kernel of the scaled-GEMM default sets launched once, directly, against float64 (`pytest -m gpu`, SM90).

Session 58's whole-suite run recorded which kernels the GPU tests load: 65 of the SM90 and SM80 default sets' GEMMs
were compiled but run by no test (every bias-free zero-point kernel, fp16 outputs and per-tensor scales at some
tiles; tools/results/h200-2026-11-29/session58/README.md). The op tests reach a kernel only where the heuristics
send a call; here each kernel of `heuristics.default_configs` runs through its own launcher, on the scale kinds,
output dtype and epilogue it was built for, at two shapes with partial tiles in M, N and K, the output poisoned
with NaN first. The SM80 family runs from sm_90 machine code (the fixture of test_sm80_on_sm90_gpu.py).
"""
import pytest
import torch

from cutlass_gemm.kernels import heuristics
from cutlass_gemm.kernels.config import KernelConfig
from cutlass_gemm.ops import gemm as ops
from cutlass_gemm.runtime import loader

from test_ops_gpu import check, make_problem, reference64
from test_sm80_on_sm90_gpu import sm80_family  # noqa: F401  (the fixture)

pytestmark = pytest.mark.gpu

OUT = {"bf16": torch.bfloat16, "f16": torch.float16}
#: partial tiles in M, N and K for every tile of the tables (N % 8 == 0, K % 16 == 0: the families' limits)
SHAPES = ((77, 136, 208), (300, 264, 400))


def _problem(cfg: KernelConfig, m: int, n: int, k: int, seed: int) -> dict:
    """The inputs `cfg`'s kernel takes: its scale kinds, its output dtype, its epilogue's operands."""
    p = make_problem(cfg.variant.removesuffix("_nobias"), m, n, k, OUT[cfg.out_dtype], seed=seed,
                     scalar_a=cfg.scale_a == "tensor", scalar_b=cfg.scale_b == "tensor", fp8=cfg.a_dtype == "e4m3")
    if cfg.variant.endswith("_nobias"):
        p.pop("bias")
    return p


def _run_every_shape(cfg: KernelConfig) -> float:
    lib = loader.get_kernel(cfg)
    assert lib.config.name == cfg.name
    worst = 0.0
    for m, n, k in SHAPES:
        p = _problem(cfg, m, n, k, seed=m + n + k)
        out = torch.full((m, n), float("nan"), dtype=OUT[cfg.out_dtype], device="cuda")
        ws = ops.workspace_for(lib, m, n, k, out.device)
        lib.launch(*ops._launch_args(cfg.variant, p["a"], p["b"], p["scale_a"], p["scale_b"], p.get("bias"),
                                     p.get("azp_adj"), p.get("azp"), out, m, n, k, out.get_device(), ws))
        # fp8: CUTLASS's fast accumulation, as test_ops_gpu allows it
        worst = max(worst, check(out, reference64(p), f"{cfg.name} {m}x{n}x{k}",
                                 abs_frac=1e-2 if cfg.a_dtype == "e4m3" else 2e-3))
    return worst


@pytest.mark.parametrize("cfg", heuristics.default_configs(90), ids=lambda c: c.name)
def test_every_sm90_default_kernel_matches_float64(cfg):
    if not torch.cuda.is_available() or ops.kernel_sm(torch.cuda.current_device()) != 90:
        pytest.skip("the SM90 family")
    print(f"{cfg.name}: worst relative error {_run_every_shape(cfg):.2e}")


@pytest.mark.parametrize("cfg", heuristics.default_configs(80), ids=lambda c: c.name)
def test_every_sm80_default_kernel_matches_float64(sm80_family, cfg):  # noqa: F811
    print(f"{cfg.name}: worst relative error {_run_every_shape(cfg):.2e}")
