"""The SM89 kernel family (CUTLASS 2 multistage fp8 e4m3 kernels: what L4, L40S and RTX 40xx users run) executed on
an SM90 GPU and checked against float64: every kernel of its default set, the layers on it, compile and CUDA graphs.

The SM89 kernels are compiled with sm_90 machine code beside sm_89 (``CUTLASS_GEMM_SM89_ARCHS=89,90``; Ada's
mma.sync e4m3 runs on Hopper too), and the device is switched to the SM89 family for this module, the C++ fast
path's plans included, as tests/test_sm80_on_sm90_gpu.py does for SM80. What this cannot show is their speed on an
Ada GPU. Run with `pytest -m gpu` on an H100/H200."""
import pytest
import torch
import torch.nn.functional as F

from cutlass_gemm.kernels import heuristics
from cutlass_gemm.ops import gemm as ops
from cutlass_gemm.ops import linear as linear_ops
from cutlass_gemm.runtime import build, fastpath
from gpu_helpers import family_on_sm90, replays_match_eager
from test_ops_gpu import OUT_DTYPES, check, make_problem, reference64, run_op

pytestmark = pytest.mark.gpu

# Each side of each row of the SM89 table (<= 32, <= 256, larger) and the edges.
MS = (1, 7, 32, 33, 200, 256, 257, 300)
_NAMES = {torch.bfloat16: "bf16", torch.float16: "f16"}


def _forget_plans():
    ops._selected.clear()
    ops._plans.clear()
    linear_ops._rows_cache.clear()
    fast = fastpath.module()
    if fast is not None:
        fast.clear_plans()


def family_configs():
    """The kernels this module's fixture builds at once (tools/suite_plan.py builds them ahead for a run of this file)."""
    return heuristics.default_configs(89)


@pytest.fixture(scope="module")
def sm89_family():
    env = {build.SM89_ARCHS_ENV: "89,90", build.SM80_ARCHS_ENV: "80,90"}
    with family_on_sm90(89, family_configs(), "sm89", env, _forget_plans) as dev:
        yield dev


def _used_kernels():
    return {lib.config.name: lib.config for lib, _, _ in ops._selected.values()}


@pytest.mark.parametrize("out_dtype", OUT_DTYPES)
@pytest.mark.parametrize("variant", ["scaled", "scaled_bias"])
def test_every_sm89_kernel_matches_float64(sm89_family, variant, out_dtype):
    n, k = 136, 208  # partial tiles in N and K
    worst = 0.0
    ops._selected.clear()
    for m in MS:
        # (True, True): the tensor x tensor kernels; (True, False): a scalar scale_a expanded for the vector kernel
        for scalar_a, scalar_b in ((False, False), (True, True), (True, False)):
            p = make_problem(variant, m, n, k, out_dtype, seed=m, fp8=True, scalar_a=scalar_a, scalar_b=scalar_b)
            out = torch.full((m, n), float("nan"), dtype=out_dtype, device="cuda")
            run_op(variant, p, out)
            worst = max(worst, check(out, reference64(p), f"SM89 {variant} {out_dtype} m={m} "
                                                          f"scalar_a={scalar_a} scalar_b={scalar_b}"))
    used = _used_kernels()
    assert used and all(cfg.sm == 89 and cfg.a_dtype == "e4m3" for cfg in used.values()), sorted(used)
    want = {c.name for c in heuristics.default_configs(89, (variant,)) if c.out_dtype == _NAMES[out_dtype]}
    assert want <= set(used), f"SM89 kernels never called: {sorted(want - set(used))}"
    print(f"SM89 {variant} {out_dtype}: {len(want)} kernels, worst relative error {worst:.2e}")


@pytest.mark.parametrize("shape", [(1000, 1024, 2048), (4096, 4096, 4096), (77, 14336, 4096)])
def test_sm89_large_shapes(sm89_family, shape):
    m, n, k = shape
    p = make_problem("scaled_bias", m, n, k, torch.bfloat16, seed=k, fp8=True)
    out = torch.full((m, n), float("nan"), dtype=torch.bfloat16, device="cuda")
    run_op("scaled_bias", p, out)
    rel = check(out, reference64(p), f"SM89 {shape}")
    print(f"SM89 scaled_bias {shape}: relative error {rel:.2e}")


def test_int8_on_an_sm89_device_runs_the_sm80_family(sm89_family):
    """SM89's own family is fp8 only: int8 calls take the SM80 kernels (heuristics.family_sm)."""
    m, n, k = 16, 136, 208
    p = make_problem("scaled_bias", m, n, k, torch.bfloat16, seed=5)
    out = torch.full((m, n), float("nan"), dtype=torch.bfloat16, device="cuda")
    run_op("scaled_bias", p, out)
    check(out, reference64(p), "int8 on SM89")
    lib = ops._plans[ops.plan_key(sm89_family, "scaled_bias", torch.int8, torch.bfloat16, "token", "channel", m, n, k)][1]
    assert lib.config.sm == 80 and lib.config.a_dtype == "int8"


def _fp8_layer(act, n=520, k=384, seed=0):
    import cutlass_gemm.nn as cnn
    torch.manual_seed(seed)
    lin = torch.nn.Linear(k, n, bias=True).to(device="cuda", dtype=torch.bfloat16)
    x = torch.randn(300, k, device="cuda", dtype=torch.bfloat16)
    layer = cnn.Fp8Linear.from_float(lin, act=act, calibration_data=[x] if act == "static" else None)
    return lin, layer, x


@pytest.mark.parametrize("act", ["dynamic", "static"])
def test_fp8_linear_on_the_sm89_family(sm89_family, act):
    """The layer a model calls, on the SM89 kernels: against float64 on its operands as the reference quantizer makes
    them (bit for bit what the kernels make), close to bf16 F.linear, the same under torch.compile and in a CUDA
    graph as eager."""
    from cutlass_gemm.quant import quantize_activation, quantize_static
    lin, layer, x = _fp8_layer(act)
    _forget_plans()
    for m in (1, 16, 33, 300):
        xm = x[:m]
        out = torch.full((m, layer.out_features), float("nan"), dtype=torch.bfloat16, device="cuda")
        out.copy_(layer(xm))
        xq = (quantize_activation(xm, dtype=torch.float8_e4m3fn) if act == "dynamic"
              else quantize_static(xm, layer.input_scale, dtype=torch.float8_e4m3fn))
        ref = (xq.scale_a.double().reshape(-1, 1) * layer.weight_scale.double().reshape(1, -1)
               * (xq.a.double() @ layer.weight.double().t()) + layer.bias.double())
        check(out, ref, f"Fp8Linear {act} m={m} on SM89")
        base = F.linear(xm, lin.weight, lin.bias).double()
        err = ((out.double() - base).norm() / base.norm()).item()
        assert err < 5e-2, f"Fp8Linear {act} m={m}: {err:.3e} from bf16"
    assert all(cfg.sm == 89 for cfg in _used_kernels().values())
    compiled = torch.compile(layer, fullgraph=True)
    xs = x[:33].clone()
    assert torch.equal(compiled(xs), layer(xs))
    replays_match_eager(layer, xs.clone(), [x[100:133]])

