"""Table of bad inputs: every one raises InvalidArgumentError naming the argument, before any launch.

CPU tensors reach the same validation as CUDA ones; sizes at or beyond 2^31 use meta tensors (no
memory). Rows: (id, callable, expected argument name); the expected type is always InvalidArgumentError.
"""
import math

import numpy as np
import pytest
import torch

import cutlass_gemm
from cutlass_gemm import cublaslt, quant
from cutlass_gemm.cublaslt import layouts
from cutlass_gemm.errors import InvalidArgumentError

M, N, K = 9, 24, 32
BIG = 1 << 31
I8, F32, BF16 = torch.int8, torch.float32, torch.bfloat16
FP8 = getattr(torch, "float8_e4m3fn", None)


def good(**changes):
    g = torch.Generator().manual_seed(0)
    p = dict(a=torch.randint(-8, 8, (M, K), dtype=I8, generator=g),
             b=torch.randint(-8, 8, (N, K), dtype=I8, generator=g).t(),
             scale_a=torch.rand(M, 1, generator=g) + 0.1, scale_b=torch.rand(1, N, generator=g) + 0.1,
             out_dtype=BF16, bias=torch.randn(N, generator=g).to(BF16), out=None)
    p.update(changes)
    return p


def mm(**changes):
    p = good(**changes)
    return lambda: cutlass_gemm.scaled_mm(p["a"], p["b"], p["scale_a"], p["scale_b"], p["out_dtype"], p["bias"],
                                          out=p["out"])


def azp_mm(azp_adj=None, azp=None, **changes):
    p = good(**changes)
    adj = p["b"].sum(0, dtype=torch.int32) if azp_adj is None else azp_adj
    z = torch.ones(M, dtype=torch.int32) if azp is None else azp
    z = None if isinstance(azp, str) and azp == "none" else z
    return lambda: cutlass_gemm.scaled_mm_azp(p["a"], p["b"], p["scale_a"], p["scale_b"], p["out_dtype"], adj, z,
                                              p["bias"], out=p["out"])


def meta(*shape, dtype=I8):
    return torch.empty(*shape, dtype=dtype, device="meta")


def meta_all(a, b, out=None, out_dtype=BF16):
    """Every argument on meta, so that sizes far beyond memory reach validation."""
    m, n = a.shape[0], b.shape[1]
    return lambda: cutlass_gemm.scaled_mm(a, b, meta(1, dtype=F32), meta(1, dtype=F32), out_dtype, out=out)


def _aliased():
    """Views of one byte buffer, to build outputs that overlap inputs."""
    return torch.zeros(1 << 16, dtype=torch.uint8)


def out_over(name):
    buf = _aliased()
    out = buf[: 2 * M * N].view(BF16).view(M, N)
    if name == "a":
        return mm(a=buf[64: 64 + M * K].view(I8).view(M, K), out=out)
    if name == "b":
        return mm(b=buf[: N * K].view(I8).view(N, K).t(), out=out)
    if name == "scale_a":
        return mm(scale_a=buf[16: 16 + 4 * M].view(F32).view(M, 1), out=out)
    if name == "scale_b":
        return mm(scale_b=buf[32: 32 + 4 * N].view(F32).view(1, N), out=out)
    if name == "bias":
        return mm(bias=buf[2 * M * N - 2 * N: 2 * M * N].view(BF16), out=out)
    if name == "azp_adj":
        return azp_mm(azp_adj=buf[64: 64 + 4 * N].view(torch.int32), out=out)
    return azp_mm(azp=buf[128: 128 + 4 * M].view(torch.int32), out=out)


def call(fn, *args, **kwargs):
    return lambda: fn(*args, **kwargs)


X = torch.randn(M, K)
W = torch.randn(N, K)
NAN_W = torch.full((N, K), float("nan"))
I8_CPU = torch.zeros(M, K, dtype=I8)

ROWS = [
    # ---------------------------------------------------------------- scaled_mm: types, dtypes, ranks
    # (a non-tensor `a` goes through the torch dispatcher, which raises its own RuntimeError first)
    ("a-float32", mm(a=torch.zeros(M, K)), "a"),
    ("a-int32", mm(a=torch.zeros(M, K, dtype=torch.int32)), "a"),
    ("a-uint8", mm(a=torch.zeros(M, K, dtype=torch.uint8)), "a"),
    ("a-bf16", mm(a=torch.zeros(M, K, dtype=BF16)), "a"),
    ("a-1d", mm(a=torch.zeros(K, dtype=I8)), "a"),
    ("a-3d", mm(a=torch.zeros(1, M, K, dtype=I8)), "a"),
    ("a-0d", mm(a=torch.tensor(1, dtype=I8)), "a"),
    ("b-list", mm(b=[[1]]), "b"),
    ("b-1d", mm(b=torch.zeros(K, dtype=I8)), "b"),
    ("b-int16", mm(b=torch.zeros(N, K, dtype=torch.int16).t()), "b"),
    ("b-float", mm(b=torch.zeros(N, K).t()), "b"),
    ("b-wrong-K", mm(b=torch.zeros(N, K + 16, dtype=I8).t()), "b"),
    ("b-row-major", mm(b=torch.zeros(K, N, dtype=I8)), "b"),
    ("b-strided-rows", mm(b=torch.zeros(N, 2 * K, dtype=I8)[:, ::2].t()), "b"),
    ("a-col-major", mm(a=torch.zeros(K, M, dtype=I8).t()), "a"),
    ("a-strided-cols", mm(a=torch.zeros(M, 2 * K, dtype=I8)[:, ::2]), "a"),
    ("K-not-16", mm(a=torch.zeros(M, 24, dtype=I8), b=torch.zeros(N, 24, dtype=I8).t()), "a"),
    ("K-8", mm(a=torch.zeros(M, 8, dtype=I8), b=torch.zeros(N, 8, dtype=I8).t()), "a"),
    ("N-not-8", mm(b=torch.zeros(20, K, dtype=I8).t(), scale_b=torch.ones(1), bias=None), "b"),
    ("lda-40", mm(a=torch.zeros(M, 40, dtype=I8)[:, :K]), "a"),
    ("ldb-40", mm(b=torch.zeros(N, 40, dtype=I8)[:, :K].t()), "b"),
    ("out_dtype-f32", mm(out_dtype=F32, bias=None), "out_dtype"),
    ("out_dtype-int8", mm(out_dtype=I8, bias=None), "out_dtype"),
    ("out_dtype-str", mm(out_dtype="bf16", bias=None), "out_dtype"),
    ("out_dtype-none", mm(out_dtype=None, bias=None), "out_dtype"),
    # ---------------------------------------------------------------- scales
    ("scale_a-float", mm(scale_a=1.0), "scale_a"),
    ("scale_a-f64", mm(scale_a=torch.ones(M, 1, dtype=torch.float64)), "scale_a"),
    ("scale_a-f16", mm(scale_a=torch.ones(M, 1, dtype=torch.float16)), "scale_a"),
    ("scale_a-int", mm(scale_a=torch.ones(M, 1, dtype=torch.int32)), "scale_a"),
    ("scale_a-M+1", mm(scale_a=torch.ones(M + 1, 1)), "scale_a"),
    ("scale_a-row", mm(scale_a=torch.ones(1, M)), "scale_a"),
    ("scale_a-Mx2", mm(scale_a=torch.ones(M, 2)), "scale_a"),
    ("scale_a-3d", mm(scale_a=torch.ones(M, 1, 1)), "scale_a"),
    ("scale_a-1x1x1", mm(scale_a=torch.ones(1, 1, 1)), "scale_a"),
    ("scale_a-empty", mm(scale_a=torch.ones(0)), "scale_a"),
    ("scale_a-strided", mm(scale_a=torch.ones(2 * M, 1)[::2]), "scale_a"),
    ("scale_b-list", mm(scale_b=[1.0]), "scale_b"),
    ("scale_b-bf16", mm(scale_b=torch.ones(1, N, dtype=BF16)), "scale_b"),
    ("scale_b-col", mm(scale_b=torch.ones(N, 1)), "scale_b"),
    ("scale_b-N+8", mm(scale_b=torch.ones(N + 8)), "scale_b"),
    ("scale_b-strided", mm(scale_b=torch.ones(1, 2 * N)[:, ::2]), "scale_b"),
    # ---------------------------------------------------------------- bias
    ("bias-f32", mm(bias=torch.ones(N)), "bias"),
    ("bias-f16", mm(bias=torch.ones(N, dtype=torch.float16)), "bias"),
    ("bias-N+8", mm(bias=torch.ones(N + 8, dtype=BF16)), "bias"),
    ("bias-MxN", mm(bias=torch.ones(M, N, dtype=BF16)), "bias"),
    ("bias-strided", mm(bias=torch.ones(2 * N, dtype=BF16)[::2]), "bias"),
    ("bias-list", mm(bias=[0.0] * N), "bias"),
    ("bias-float", mm(bias=1.0), "bias"),
    # ---------------------------------------------------------------- out
    ("out-shape", mm(out=torch.empty(M, N + 8, dtype=BF16)), "out"),
    ("out-transposed-shape", mm(out=torch.empty(N, M, dtype=BF16)), "out"),
    ("out-dtype", mm(out=torch.empty(M, N, dtype=torch.float16)), "out"),
    ("out-f32", mm(out=torch.empty(M, N)), "out"),
    ("out-col-major", mm(out=torch.empty(N, M, dtype=BF16).t()), "out"),
    ("out-ld-not-8", mm(out=torch.empty(M, N + 4, dtype=BF16)[:, :N]), "out"),
    ("out-list", mm(out=[[0.0]]), "out"),
    ("out-1d", mm(out=torch.empty(M * N, dtype=BF16)), "out"),
    # ---------------------------------------------------------------- devices (meta vs CPU: get_device() is -1 for both)
    ("b-meta", mm(b=meta(N, K).t()), "b"),
    ("a-meta", mm(a=meta(M, K)), "b"),  # b (CPU) differs from a (meta): named as the one unlike `a`
    ("scale_a-meta", mm(scale_a=meta(M, 1, dtype=F32)), "scale_a"),
    ("scale_b-meta", mm(scale_b=meta(1, N, dtype=F32)), "scale_b"),
    ("scale_a-scalar-meta", mm(scale_a=meta(1, dtype=F32)), "scale_a"),
    ("bias-meta", mm(bias=meta(N, dtype=BF16)), "bias"),
    ("out-meta", mm(out=meta(M, N, dtype=BF16)), "out"),
    ("azp_adj-meta", azp_mm(azp_adj=meta(N, dtype=torch.int32)), "azp_adj"),
    ("azp-meta", azp_mm(azp=meta(M, dtype=torch.int32)), "azp"),
    # ---------------------------------------------------------------- 64-bit sizes and leading dimensions
    ("M-2^31", meta_all(meta(BIG, K), meta(N, K).t()), "a"),
    ("M-2^32", meta_all(meta(1 << 32, K), meta(N, K).t()), "a"),
    ("K-2^32+16", meta_all(meta(M, (1 << 32) + 16), meta(N, (1 << 32) + 16).t()), "a"),
    ("K-2^31", meta_all(meta(M, BIG), meta(N, BIG).t()), "a"),
    ("N-2^31", meta_all(meta(M, K), meta(BIG, K).t()), "b"),
    ("lda-2^31", meta_all(torch.empty_strided((2, K), (BIG, 1), dtype=I8, device="meta"), meta(N, K).t()), "a"),
    ("ldb-2^31", meta_all(meta(M, K), torch.empty_strided((K, 2 * 8), (1, BIG), dtype=I8, device="meta")), "b"),
    ("ldd-2^31", meta_all(meta(M, K), meta(N, K).t(),
                          out=torch.empty_strided((M, N), (BIG, 1), dtype=BF16, device="meta")), "out"),
    # ---------------------------------------------------------------- out overlapping an input
    ("out-overlaps-a", out_over("a"), "out"),
    ("out-overlaps-b", out_over("b"), "out"),
    ("out-overlaps-scale_a", out_over("scale_a"), "out"),
    ("out-overlaps-scale_b", out_over("scale_b"), "out"),
    ("out-overlaps-bias", out_over("bias"), "out"),
    ("out-overlaps-azp_adj", out_over("azp_adj"), "out"),
    ("out-overlaps-azp", out_over("azp"), "out"),
    # ---------------------------------------------------------------- scaled_mm_azp
    ("azp_adj-int64", azp_mm(azp_adj=torch.ones(N, dtype=torch.int64)), "azp_adj"),
    ("azp_adj-float", azp_mm(azp_adj=torch.ones(N)), "azp_adj"),
    ("azp_adj-N+8", azp_mm(azp_adj=torch.ones(N + 8, dtype=torch.int32)), "azp_adj"),
    ("azp_adj-Nx1", azp_mm(azp_adj=torch.ones(N, 1, dtype=torch.int32)), "azp_adj"),
    ("azp_adj-strided", azp_mm(azp_adj=torch.ones(2 * N, dtype=torch.int32)[::2]), "azp_adj"),
    ("azp_adj-list", azp_mm(azp_adj=[1] * N), "azp_adj"),
    ("azp-M+1", azp_mm(azp=torch.ones(M + 1, dtype=torch.int32)), "azp"),
    ("azp-float", azp_mm(azp=torch.ones(M)), "azp"),
    ("azp-int64", azp_mm(azp=torch.ones(M, dtype=torch.int64)), "azp"),
    ("azp-1xM", azp_mm(azp=torch.ones(1, M, dtype=torch.int32)), "azp"),
    ("azp-strided", azp_mm(azp=torch.ones(2 * M, dtype=torch.int32)[::2]), "azp"),
    ("azp-bias-f32", azp_mm(bias=torch.ones(N)), "bias"),
    ("azp-a-float", azp_mm(a=torch.zeros(M, K)), "a"),
    # ---------------------------------------------------------------- quant (wrong dtype / rank / options)
    ("qa-int-input", call(quant.quantize_activation, I8_CPU), "x"),
    ("qa-1d", call(quant.quantize_activation, torch.randn(K)), "x"),
    ("qa-list", call(quant.quantize_activation, [[1.0]]), "x"),
    ("qa-dtype", call(quant.quantize_activation, X, dtype=torch.int16), "dtype"),
    ("qa-granularity", call(quant.quantize_activation, X, granularity="per_channel"), "granularity"),
    ("qw-int-input", call(quant.quantize_weight, I8_CPU), "w"),
    ("qw-3d", call(quant.quantize_weight, torch.randn(2, N, K)), "w"),
    ("qw-dtype", call(quant.quantize_weight, W, dtype=torch.float16), "dtype"),
    ("qw-granularity", call(quant.quantize_weight, W, granularity="per_token"), "granularity"),
    ("qw-nan", call(quant.quantize_weight, NAN_W), "w"),
    ("qs-scale-zero", call(quant.quantize_static, X, 0.0), "scale"),
    ("qs-scale-negative", call(quant.quantize_static, X, -1.0), "scale"),
    ("qs-scale-shape", call(quant.quantize_static, X, torch.ones(M + 1, 1)), "scale"),
    ("qs-azp-float", call(quant.quantize_static, X, 1.0, 1.5), "azp"),
    ("qs-azp-fp8", call(quant.quantize_static, X, 1.0, 3, dtype=FP8 or torch.int16), "azp" if FP8 else "dtype"),
    ("qs-azp-int32-overflow", call(quant.quantize_static, X, 1.0, torch.tensor(2**40)), "azp"),
    ("azp_adj-fn-float", call(quant.azp_adj, W), "w_q"),
    ("azp_adj-fn-1d", call(quant.azp_adj, torch.zeros(K, dtype=I8)), "w_q"),
    ("azp_with_adj-float-azp", call(quant.azp_with_adj, 1.5, torch.ones(1, N, dtype=torch.int32)), "azp"),
    ("azp_with_adj-adj-int64", call(quant.azp_with_adj, 3, torch.ones(1, N, dtype=torch.int64)), "azp_adj"),
    # ---------------------------------------------------------------- cuBLASLt (validated before the library)
    ("lt-qw-nan", call(cublaslt.quantize_weight, NAN_W), "w"),
    ("lt-qw-inf", call(cublaslt.quantize_weight, torch.full((N, K), math.inf)), "w"),
    ("lt-qw-int", call(cublaslt.quantize_weight, I8_CPU), "w"),
    ("lt-qw-1d", call(cublaslt.quantize_weight, torch.randn(K)), "w"),
    ("lt-qw-empty", call(cublaslt.quantize_weight, torch.randn(0, K)), "w"),
    ("lt-ft-x-int", call(cublaslt.ft_int8_linear, I8_CPU, W), "x"),
    ("lt-ft-x-cpu", call(cublaslt.ft_int8_linear, X, W), "x"),
    ("lt-mm-a-list", call(cublaslt.int8_matmul, [[1]], I8_CPU), "a"),
    ("lt-mm-a-cpu", call(cublaslt.int8_matmul, I8_CPU, I8_CPU), "a"),
    ("lt-imma-m-float", call(cublaslt.imma_matmul, I8_CPU, I8_CPU, 1.5, 2, 2, b_order="COL32_2R_4R4"), "m"),
    ("lt-imma-k-zero", call(cublaslt.imma_matmul, I8_CPU, I8_CPU, 2, 2, 0, b_order="COL32_2R_4R4"), "k"),
    ("lt-imma-n-2^31", call(cublaslt.imma_matmul, I8_CPU, I8_CPU, 2, BIG, 2, b_order="COL32_2R_4R4"), "n"),
    ("lt-imma-b_order", call(cublaslt.imma_matmul, I8_CPU, I8_CPU, 2, 2, 2, b_order="COL32"), "b_order"),
    ("lt-transform-order-none", call(cublaslt.transform, I8_CPU, None), "order"),
    ("lt-transform-order-row", call(cublaslt.transform, I8_CPU, "ROW"), "order"),
    ("lt-transform-backend", call(cublaslt.transform, I8_CPU, "COL32", backend="fast"), "backend"),
    ("lt-transform-cpu", call(cublaslt.transform, I8_CPU, "COL32"), "x"),
    ("lt-untransform-rows", call(cublaslt.untransform, I8_CPU.flatten(), "COL32", 0, 2), "rows"),
    ("lt-untransform-cols-float", call(cublaslt.untransform, I8_CPU.flatten(), "COL32", 2, 2.0), "cols"),
    ("lt-transform_backend-direction", call(cublaslt.transform_backend, "COL32", direction="sideways"), "direction"),
    ("lt-transform_backend-device", call(cublaslt.transform_backend, "COL32", device="nonsense"), "device"),
    ("lt-matmul_backend-device", call(cublaslt.matmul_backend, device="nonsense"), "device"),
    ("lt-matmul_backend-alpha", call(cublaslt.matmul_backend, alpha="tensor"), "alpha"),
    ("lt-matmul_backend-out_dtype", call(cublaslt.matmul_backend, out_dtype="int32"), "out_dtype"),
    ("lt-matmul_backend-pipeline", call(cublaslt.matmul_backend, pipeline="sideways"), "pipeline"),
    ("lt-select_order-out_dtype", call(cublaslt.select_order, None, "float32"), "out_dtype"),
    ("lt-order-parse-float", call(cublaslt.Order.parse, 2.0), "order"),
    ("lt-order-parse-bool", call(cublaslt.Order.parse, True), "order"),
    ("lt-order-parse-huge", call(cublaslt.Order.parse, 2**70), "order"),
    ("lt-order-parse-name", call(cublaslt.Order.parse, "COL64"), "order"),
    ("lt-layouts-offset-r-str", call(layouts.offset, "a", 0, 4, "COL32"), "r"),
    ("lt-layouts-offset-c-none", call(layouts.offset, 0, None, 4, "COL32"), "c"),
    ("lt-layouts-offset-r-float", call(layouts.offset, 1.5, 0, 4, "COL32"), "r"),
    ("lt-layouts-offset-outside", call(layouts.offset, 5, 0, 4, "COL32"), "r"),
    ("lt-layouts-buffer-rows-0", call(layouts.buffer_size, 0, 4, "COL32"), "rows"),
    ("lt-layouts-buffer-cols-str", call(layouts.buffer_size, 4, "4", "COL32"), "cols"),
    ("lt-layouts-to_order-fill", call(layouts.to_order, np.zeros((2, 2), np.int8), "COL32", fill="x"), "fill"),
    ("lt-layouts-to_order-1d", call(layouts.to_order, np.zeros(4, np.int8), "COL32"), "x"),
    ("lt-layouts-from_order-2d", call(layouts.from_order, np.zeros((2, 64), np.int8), "COL32", 2, 2), "buf"),
    ("lt-layouts-from_order-short", call(layouts.from_order, np.zeros(8, np.int8), "COL32", 2, 2), "buf"),
    ("lt-error_bound-str", call(cublaslt.pipeline.error_bound, "x", W), "x"),
]

try:
    from cutlass_gemm import nn as cg_nn
except Exception:  # written in parallel; its rows join once it exists
    cg_nn = None
if cg_nn is not None:
    ROWS += [
        ("nn-in_features-0", call(cg_nn.Int8Linear, 0, N), "in_features"),
        ("nn-out_features-str", call(cg_nn.Int8Linear, K, "24"), "out_features"),
        ("nn-act", call(cg_nn.Int8Linear, K, N, act="sometimes"), "act"),
        ("nn-dtype", call(cg_nn.Int8Linear, K, N, dtype=torch.float32), "dtype"),
        ("nn-from_float-not-linear", call(cg_nn.Int8Linear.from_float, torch.nn.ReLU()), "linear"),
        ("nn-quantize_model-scheme", call(cg_nn.quantize_model, torch.nn.Linear(K, N), "w3a3"), "scheme"),
        ("nn-quantize_model-model", call(cg_nn.quantize_model, "model", sorted(cg_nn.SCHEMES)[0]), "model"),
    ]


def test_table_is_large_and_ids_unique():
    assert len(ROWS) >= 100
    assert len({r[0] for r in ROWS}) == len(ROWS)


@pytest.mark.parametrize("fn, argument", [pytest.param(f, a, id=i) for i, f, a in ROWS])
def test_bad_input_raises_invalid_argument_error(fn, argument):
    with pytest.raises(InvalidArgumentError) as info:
        fn()
    assert info.value.argument == argument, str(info.value)
    assert str(info.value).startswith(f"{argument}: ")


@pytest.mark.parametrize("fn", [
    lambda: cutlass_gemm.scaled_mm(torch.empty(M, 0, dtype=I8), torch.empty(N, 0, dtype=I8).t(),
                                   torch.ones(M, 1), torch.ones(1, N), BF16, torch.arange(N).to(BF16)),
    lambda: cutlass_gemm.scaled_mm(torch.empty(M, 0, dtype=I8), torch.empty(N, 0, dtype=I8).t(),
                                   torch.ones(1), torch.ones(1), BF16),
])
def test_k_zero_is_served_like_torch(fn):
    """K = 0 (torch.empty(M, 0)): the product is zero, the result is the epilogue alone."""
    got = fn()
    assert got.shape == (M, N) and got.dtype == BF16
    want = torch.zeros(M, N) if got[0, 1] == 0 else torch.arange(N).to(BF16).expand(M, N)
    torch.testing.assert_close(got.float(), want.float())


def test_sizes_just_below_the_limit_pass_validation():
    from cutlass_gemm.ops.gemm import validate
    a = meta(BIG - 16, K)
    assert validate(a, meta(N, K).t(), meta(1, dtype=F32), meta(1, dtype=F32), BF16)[:3] == (BIG - 16, N, K)


def test_disjoint_views_of_one_buffer_are_accepted():
    buf = _aliased()
    out = buf[: 2 * M * N].view(BF16).view(M, N)
    a = buf[4096: 4096 + M * K].view(I8).view(M, K)
    res = mm(a=a, out=out)()
    assert res.data_ptr() == out.data_ptr()
