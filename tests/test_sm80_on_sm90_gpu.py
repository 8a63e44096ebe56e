"""The SM80 kernel family (CUTLASS 2 multistage kernels: what A100, A10, L4 and L40 users run) executed
on an SM90 GPU and checked against float64, every generated variant, output dtype, scale kind and tile.

The SM80 kernels are compiled with sm_90 machine code beside sm_80 (``CUTLASS_GEMM_SM80_ARCHS=80,90``;
`tools/gpu_session.sh` sets it and `SMS="90 80"` prebuilds the family), and the device is switched to the
SM80 family for the duration of this module, the C++ fast path's plans included. Without the
variable the kernels would only reach the H100 through a PTX JIT, which is not what an A100 runs.
Run with `pytest -m gpu` on an H100/H200."""
import pytest
import torch

from cutlass_gemm.errors import CutlassGemmError
from cutlass_gemm.kernels import heuristics
from cutlass_gemm.ops import gemm as ops
from cutlass_gemm.runtime import build, fastpath
from gpu_helpers import family_on_sm90
from test_ops_gpu import OUT_DTYPES, VARIANTS, check, make_problem, reference64, run_op

pytestmark = pytest.mark.gpu

# One M per side of each row of the SM80 tile table (<= 32, <= 256, larger) and the edges.
MS = (1, 7, 32, 33, 200, 256, 257, 300)


def _forget_plans():
    ops._selected.clear()
    ops._plans.clear()
    fast = fastpath.module()
    if fast is not None:
        fast.clear_plans()


def family_configs():
    """The kernels this module's fixture builds at once (tools/suite_plan.py builds them ahead for a run of this file)."""
    return heuristics.default_configs(80)


@pytest.fixture(scope="module")
def sm80_family():
    # Built at once, in parallel: on an empty cache ~2-3 min on 16 cores, instead of 48 one-minute builds on first use.
    archs = ",".join(str(t) for t in sorted(set(build.sm80_targets()) | {90}))
    with family_on_sm90(80, family_configs(), "sm80", {build.SM80_ARCHS_ENV: archs}, _forget_plans) as dev:
        yield dev


def _used_kernels():
    return {lib.config.name: lib.config for lib, _, _ in ops._selected.values()}


@pytest.mark.parametrize("out_dtype", OUT_DTYPES)
@pytest.mark.parametrize("variant", VARIANTS)
def test_every_sm80_kernel_matches_float64(sm80_family, variant, out_dtype):
    n, k = 136, 208  # partial tiles in N and K
    worst = 0.0
    for m in MS:
        # scalar_a: the tensor x channel kernels of the default set; scalar_b: broadcast to the vector kernel
        for scalar_a, scalar_b in ((False, False), (True, False), (False, True)):
            p = make_problem(variant, m, n, k, out_dtype, seed=m, scalar_a=scalar_a, scalar_b=scalar_b)
            out = torch.full((m, n), float("nan"), dtype=out_dtype, device="cuda")
            run_op(variant, p, out)
            worst = max(worst, check(out, reference64(p), f"SM80 {variant} {out_dtype} m={m} "
                                                          f"scalar_a={scalar_a} scalar_b={scalar_b}"))
    used = _used_kernels()
    assert used and all(cfg.sm == 80 for cfg in used.values()), sorted(used)
    want = {c.name for c in heuristics.default_configs(80, (variant,))
            if c.out_dtype == {torch.bfloat16: "bf16", torch.float16: "f16"}[out_dtype]}
    assert want <= set(used), f"SM80 kernels never called: {sorted(want - set(used))}"
    print(f"SM80 {variant} {out_dtype}: {len(want)} kernels, worst relative error {worst:.2e}")


@pytest.mark.parametrize("variant", VARIANTS)
def test_sm80_large_shapes(sm80_family, variant):
    for m, n, k in ((1000, 1024, 2048), (4096, 4096, 4096)):
        p = make_problem(variant, m, n, k, torch.bfloat16, seed=m)
        out = torch.full((m, n), float("nan"), dtype=torch.bfloat16, device="cuda")
        run_op(variant, p, out)
        check(out, reference64(p), f"SM80 {variant} {m}x{n}x{k}")
    assert all(cfg.sm == 80 for cfg in _used_kernels().values())


def test_sm80_family_refuses_fp8_with_a_typed_error(sm80_family):
    p = make_problem("scaled", 16, 128, 128, torch.bfloat16, fp8=True)
    with pytest.raises(CutlassGemmError, match="SM89"):
        run_op("scaled", p, None)


def test_sm80_kernels_refuse_scale_flags_and_the_plan_expands_instead(sm80_family):
    """The SM80 EVT has no dynamic broadcast: a per-tensor scale for its vector kernel is expanded by the plan
    (scale_flags 0), and the launcher refuses the flags with a typed error before any launch."""
    from cutlass_gemm.errors import KernelLaunchError
    from cutlass_gemm.kernels.epilogues import SCALE_B_SCALAR
    m, n, k = 200, 136, 208
    p = make_problem("scaled_bias", m, n, k, torch.bfloat16, seed=3, scalar_b=True)
    out = torch.full((m, n), float("nan"), dtype=torch.bfloat16, device="cuda")
    run_op("scaled_bias", p, out)
    check(out, reference64(p), "SM80 scalar scale_b")
    launch, lib, expand_a, expand_b, _, flags, _ = ops._plans[ops.plan_key(sm80_family, "scaled_bias", torch.int8,
                                                                    torch.bfloat16, "token", "tensor", m, n, k)]
    assert lib.config.sm == 80 and (expand_a, expand_b, flags) == (False, True, 0)
    with pytest.raises(KernelLaunchError, match="scale_flags"):
        lib.launch(*ops._launch_args("scaled_bias", p["a"], p["b"], p["scale_a"], p["scale_b"], p["bias"], None,
                                     None, out, m, n, k, sm80_family, scale_flags=SCALE_B_SCALAR))
