"""Op registration, validation and the CPU reference path; none of this needs a GPU."""
import pytest
import torch

import cutlass_gemm
from cutlass_gemm.runtime import loader
from cutlass_gemm.ops import gemm as ops
from cutlass_gemm.kernels.config import KernelConfig
from cutlass_gemm.errors import InvalidArgumentError, KernelNotBuiltError, UnsupportedDeviceError

M, N, K = 9, 24, 32


def problem(seed=0, out_dtype=torch.bfloat16):
    g = torch.Generator().manual_seed(seed)
    w = torch.randint(-128, 128, (N, K), dtype=torch.int8, generator=g)
    return dict(a=torch.randint(-128, 128, (M, K), dtype=torch.int8, generator=g), b=w.t(),
                scale_a=torch.rand(M, 1, generator=g) + 0.1, scale_b=torch.rand(1, N, generator=g) + 0.1,
                out_dtype=out_dtype, bias=torch.randn(N, generator=g).to(out_dtype))


def call(**p):
    return cutlass_gemm.scaled_mm(p["a"], p["b"], p["scale_a"], p["scale_b"], p["out_dtype"], p.get("bias"),
                                  out=p.get("out"))


def test_cpu_path_matches_float64_formula():
    p = problem()
    ref = (p["scale_a"].double() * p["scale_b"].double() * (p["a"].double() @ p["b"].double())
           + p["bias"].double())
    torch.testing.assert_close(call(**p), ref.to(torch.bfloat16), rtol=0, atol=0)


def test_azp_cpu_path_matches_float64_formula():
    p = problem(out_dtype=torch.float16)
    azp = torch.randint(-5, 5, (M,), dtype=torch.int32)
    adj = p["b"].sum(0, dtype=torch.int32)
    got = cutlass_gemm.scaled_mm_azp(p["a"], p["b"], p["scale_a"], p["scale_b"], torch.float16, adj, azp, p["bias"])
    acc = p["a"].double() @ p["b"].double() - azp.double()[:, None] * adj.double()[None, :]
    ref = p["scale_a"].double() * p["scale_b"].double() * acc + p["bias"].double()
    torch.testing.assert_close(got, ref.half(), rtol=0, atol=0)
    # per-tensor zero point: azp_adj already holds azp * column sums
    got_t = cutlass_gemm.scaled_mm_azp(p["a"], p["b"], p["scale_a"], p["scale_b"], torch.float16, 3 * adj)
    ref_t = p["scale_a"].double() * p["scale_b"].double() * (p["a"].double() @ p["b"].double() - 3 * adj.double())
    torch.testing.assert_close(got_t, ref_t.half(), rtol=0, atol=0)


def test_out_overload_writes_into_out():
    p = problem()
    out = torch.full((M, N), float("nan"), dtype=torch.bfloat16)
    res = call(**p, out=out)
    assert res is out or res.data_ptr() == out.data_ptr()
    assert not torch.isnan(out).any()


def _bad(**changes):
    p = problem()
    p.update(changes)
    return p


@pytest.mark.parametrize("changes, argument, message", [
    (dict(a=torch.zeros(M, K, dtype=torch.float32)), "a", "dtype must be one of"),
    (dict(a=torch.zeros(M, K, 1, dtype=torch.int8)), "a", "must be 2-D"),
    (dict(b=torch.zeros(K, N, dtype=torch.int16)), "b", "dtype must match"),
    (dict(b=torch.zeros(N, K, dtype=torch.int8).t().contiguous()), "b", "must be column-major"),
    (dict(b=torch.zeros(N, K + 16, dtype=torch.int8).t()), "b", "must be \\(K, N\\)"),
    (dict(a=torch.zeros(K, M, dtype=torch.int8).t()), "a", "must be row-major"),
    (dict(a=torch.zeros(M, 24, dtype=torch.int8), b=torch.zeros(N, 24, dtype=torch.int8).t()), "a", "multiple of 16"),
    (dict(b=torch.zeros(20, K, dtype=torch.int8).t(), scale_b=torch.ones(1)), "b", "multiple of 8"),
    (dict(a=torch.zeros(M, 40, dtype=torch.int8)[:, :K]), "a", "leading dimension 40 must be a multiple of 16"),
    (dict(scale_a=torch.ones(M, 1, dtype=torch.float64)), "scale_a", "must be torch.float32"),
    (dict(scale_a=torch.ones(M + 1, 1)), "scale_a", "must have one element or shape"),
    (dict(scale_a=torch.ones(1, M)), "scale_a", "must have one element or shape"),
    (dict(scale_b=torch.ones(N, 1)), "scale_b", "must have one element or shape"),
    (dict(scale_b=torch.ones(1, 2 * N)[:, ::2]), "scale_b", "contiguous"),
    (dict(bias=torch.ones(N, dtype=torch.float32)), "bias", "dtype must be the output dtype"),
    (dict(bias=torch.ones(N + 8, dtype=torch.bfloat16)), "bias", "must have shape"),
    (dict(out_dtype=torch.float32), "out_dtype", "must be torch.bfloat16 or torch.float16"),
    (dict(out=torch.empty(M, N + 8, dtype=torch.bfloat16)), "out", "must be a"),
    (dict(out=torch.empty(N, M, dtype=torch.bfloat16).t()), "out", "must be row-major"),
])
def test_invalid_inputs_raise_named_errors(changes, argument, message):
    with pytest.raises(InvalidArgumentError, match=rf"^{argument}: .*(?:{message})") as info:
        call(**_bad(**changes))
    assert info.value.argument == argument


@pytest.mark.parametrize("azp_adj, azp, argument", [
    (torch.ones(N, dtype=torch.int64), None, "azp_adj"),
    (torch.ones(N + 8, dtype=torch.int32), None, "azp_adj"),
    (torch.ones(N, dtype=torch.int32), torch.ones(M + 1, dtype=torch.int32), "azp"),
    (torch.ones(N, dtype=torch.int32), torch.ones(M, dtype=torch.float32), "azp"),
])
def test_invalid_zero_point_terms_raise_named_errors(azp_adj, azp, argument):
    p = problem()
    with pytest.raises(InvalidArgumentError, match=rf"^{argument}: "):
        cutlass_gemm.scaled_mm_azp(p["a"], p["b"], p["scale_a"], p["scale_b"], torch.bfloat16, azp_adj, azp)


def test_zero_point_gemm_rejects_fp8():
    if not hasattr(torch, "float8_e4m3fn"):
        pytest.skip("no fp8 dtype in this torch")
    p = problem()
    a8 = p["a"].to(torch.float8_e4m3fn)
    b8 = p["b"].to(torch.float8_e4m3fn)
    with pytest.raises(InvalidArgumentError, match="^a: zero-point GEMMs take int8"):
        cutlass_gemm.scaled_mm_azp(a8, b8, p["scale_a"], p["scale_b"], torch.bfloat16, torch.ones(N, dtype=torch.int32))


def test_unsupported_sm_raises_typed_error(monkeypatch):
    monkeypatch.setattr(torch.cuda, "get_device_capability", lambda device=None: (7, 5))
    monkeypatch.setattr(ops, "_device_sm", {})
    with pytest.raises(UnsupportedDeviceError, match="no kernels for SM75"):
        ops.kernel_sm(0)


def test_missing_kernel_names_the_build_command(monkeypatch, tmp_path):
    monkeypatch.setenv("CUTLASS_GEMM_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv("CUTLASS_GEMM_JIT", "0")
    cfg = KernelConfig(sm=90, tile=(64, 64, 128))
    with pytest.raises(KernelNotBuiltError, match=r"tools/generate_kernels.py --sm 90 --variant scaled_bias --compile"):
        loader.get_kernel(cfg)


@pytest.mark.parametrize("fn, args", [
    ("scaled_mm", lambda p: (p["a"], p["b"], p["scale_a"], p["scale_b"], torch.bfloat16, p["bias"])),
    ("scaled_mm_azp", lambda p: (p["a"], p["b"], p["scale_a"], p["scale_b"], torch.bfloat16,
                                 p["b"].sum(0, dtype=torch.int32), torch.ones(M, dtype=torch.int32), p["bias"])),
])
def test_opcheck_on_cpu(fn, args):
    op = getattr(torch.ops.cutlass_gemm, fn)
    a = args(problem())
    torch.library.opcheck(op.default, a)
    out_op = getattr(torch.ops.cutlass_gemm, fn + "_out")
    torch.library.opcheck(out_op.default, (torch.empty(M, N, dtype=torch.bfloat16),) + a)


def test_traces_under_torch_compile():
    p = problem()

    def layer(a, b, sa, sb, bias):
        return cutlass_gemm.scaled_mm(a, b, sa, sb, torch.bfloat16, bias) + 1

    compiled = torch.compile(layer, backend="aot_eager", fullgraph=True)
    args = (p["a"], p["b"], p["scale_a"], p["scale_b"], p["bias"])
    torch.testing.assert_close(compiled(*args), layer(*args), rtol=0, atol=0)


def test_fake_tensor_shapes():
    from torch._subclasses.fake_tensor import FakeTensorMode
    p = problem()
    with FakeTensorMode() as mode:
        fp = {k: mode.from_tensor(v) if isinstance(v, torch.Tensor) else v for k, v in p.items()}
        out = torch.ops.cutlass_gemm.scaled_mm(fp["a"], fp["b"], fp["scale_a"], fp["scale_b"], torch.float16, None)
    assert out.shape == (M, N) and out.dtype == torch.float16


def test_fp8_on_the_sm80_kernel_family_is_a_typed_device_error():
    with pytest.raises(UnsupportedDeviceError, match="SM89"):
        ops.select_kernel(80, "scaled", "e4m3", "bf16", "token", "channel", 16)
