"""Bad inputs to cutlass_gemm.quant raise InvalidArgumentError naming the argument."""

import pytest
import torch

from cutlass_gemm.errors import InvalidArgumentError
from cutlass_gemm.quant import (
    EntropyCalibrator,
    MaxCalibrator,
    MSECalibrator,
    PercentileCalibrator,
    azp_adj,
    azp_with_adj,
    dequantize_per_block,
    make_calibrator,
    quantize_activation,
    quantize_per_block,
    quantize_static,
    quantize_weight,
    scale_azp_from_range,
    scale_from_amax,
)

FP8 = torch.float8_e4m3fn
X = torch.randn(4, 64, generator=torch.Generator().manual_seed(0))


def _with(value, idx=(1, 3)):
    x = X.clone()
    x[idx] = value
    return x


NAN, INF = float("nan"), float("inf")

CASES = {
    # quantizers: dtype, empty, NaN/Inf, rank
    "act-int-input": (lambda: quantize_activation(X.to(torch.int32)), "x"),
    "act-int8-input": (lambda: quantize_activation(X.to(torch.int8)), "x"),
    "act-bool-input": (lambda: quantize_activation(X > 0), "x"),
    "act-fp8-input": (lambda: quantize_activation(X.to(FP8)), "x"),
    "act-not-tensor": (lambda: quantize_activation(X.tolist()), "x"),
    "act-empty": (lambda: quantize_activation(torch.empty(0, 64)), "x"),
    "act-nan": (lambda: quantize_activation(_with(NAN), check_finite=True), "x"),
    "act-inf": (lambda: quantize_activation(_with(INF), check_finite=True), "x"),
    "act-neg-inf": (lambda: quantize_activation(_with(-INF), check_finite=True), "x"),
    "act-rank1": (lambda: quantize_activation(X[0]), "x"),
    "act-rank3": (lambda: quantize_activation(X[None]), "x"),
    "act-bad-dtype": (lambda: quantize_activation(X, dtype=torch.float16), "dtype"),
    "act-bad-granularity": (lambda: quantize_activation(X, granularity="per_channel"), "granularity"),
    "act-fp8-asym": (lambda: quantize_activation(X, dtype=FP8, symmetric=False), "symmetric"),
    "weight-int": (lambda: quantize_weight(X.to(torch.int8)), "w"),
    "weight-nan": (lambda: quantize_weight(_with(NAN)), "w"),
    "weight-empty": (lambda: quantize_weight(torch.empty(3, 0)), "w"),
    "weight-rank": (lambda: quantize_weight(X[None]), "w"),
    "weight-granularity": (lambda: quantize_weight(X, granularity="per_token"), "granularity"),
    "static-int": (lambda: quantize_static(X.to(torch.int64), 1.0), "x"),
    "static-scale-zero": (lambda: quantize_static(X, 0.0), "scale"),
    "static-scale-neg": (lambda: quantize_static(X, torch.tensor(-1.0)), "scale"),
    "static-scale-nan": (lambda: quantize_static(X, NAN), "scale"),
    "static-scale-underflow": (lambda: quantize_static(X, 1e-300), "scale"),
    "static-scale-shape": (lambda: quantize_static(X, torch.ones(1, 4)), "scale"),
    "static-scale-int": (lambda: quantize_static(X, torch.tensor(1)), "scale"),
    "static-azp-float": (lambda: quantize_static(X, 1.0, 0.5), "azp"),
    "static-azp-shape": (lambda: quantize_static(X, 1.0, torch.zeros(4, dtype=torch.int32)), "azp"),
    "static-azp-fp8": (lambda: quantize_static(X, 1.0, 3, dtype=FP8), "azp"),
    "block-not-dividing": (lambda: quantize_per_block(X, 48), "block_size"),
    "block-zero": (lambda: quantize_per_block(X, 0), "block_size"),
    "block-float": (lambda: quantize_per_block(X, 16.0), "block_size"),
    "block-nan": (lambda: quantize_per_block(_with(NAN), 16, check_finite=True), "x"),
    "block-int": (lambda: quantize_per_block(X.to(torch.int16), 16), "x"),
    "block-empty": (lambda: quantize_per_block(torch.empty(0, 64), 16), "x"),
    "block-rank": (lambda: quantize_per_block(X[0], 16), "x"),
    "block-fp8-asym": (lambda: quantize_per_block(X, 16, symmetric=False, dtype=FP8), "symmetric"),
    "deq-block-not-dividing": (lambda: dequantize_per_block(torch.zeros(4, 64, dtype=torch.int8), torch.ones(4, 1), None, 48), "block_size"),
    "scale-from-amax-neg": (lambda: scale_from_amax(-1.0), "amax"),
    "scale-from-amax-inf": (lambda: scale_from_amax(torch.tensor([1.0, INF])), "amax"),
    "scale-azp-order": (lambda: scale_azp_from_range(1.0, -1.0), "min_val"),
    "scale-azp-nan": (lambda: scale_azp_from_range(0.0, NAN), "max_val"),
    # calibrators
    "bins-1": (lambda: PercentileCalibrator(num_bins=1), "num_bins"),
    "bins-0": (lambda: MSECalibrator(num_bins=0), "num_bins"),
    "bins-float": (lambda: EntropyCalibrator(num_bins=2048.0), "num_bins"),
    "bins-below-quant-bins": (lambda: EntropyCalibrator(num_bins=100), "num_bins"),
    "quant-bins-1": (lambda: EntropyCalibrator(num_quant_bins=1), "num_quant_bins"),
    "percentile-0": (lambda: PercentileCalibrator(0.0), "percentile"),
    "percentile-neg": (lambda: PercentileCalibrator(-5), "percentile"),
    "percentile-above-100": (lambda: PercentileCalibrator(100.001), "percentile"),
    "percentile-nan": (lambda: PercentileCalibrator(NAN), "percentile"),
    "percentile-str": (lambda: PercentileCalibrator("99"), "percentile"),
    "mse-dtype": (lambda: MSECalibrator(dtype=torch.float16), "dtype"),
    "calibrator-method": (lambda: make_calibrator("kl"), "method"),
    "max-axis": (lambda: MaxCalibrator(axis="0"), "axis"),
    "observe-int": (lambda: PercentileCalibrator().observe(X.to(torch.int8)), "x"),
    "observe-empty": (lambda: EntropyCalibrator().observe(torch.empty(0)), "x"),
    "observe-nan": (lambda: MSECalibrator().observe(_with(NAN)), "x"),
    "observe-inf": (lambda: MaxCalibrator().observe(_with(INF)), "x"),
    "observe-bad-axis": (lambda: MaxCalibrator(axis=3).observe(X), "x"),
    # azp helpers
    "azp-adj-float": (lambda: azp_adj(X), "w_q"),
    "azp-adj-int32": (lambda: azp_adj(X.to(torch.int32)), "w_q"),
    "azp-adj-rank": (lambda: azp_adj(X[0].to(torch.int8)), "w_q"),
    "azp-adj-empty": (lambda: azp_adj(torch.empty(0, 3, dtype=torch.int8)), "w_q"),
    "azp-with-adj-per-token": (lambda: azp_with_adj(torch.zeros(4, 1, dtype=torch.int32), torch.zeros(1, 8, dtype=torch.int32)), "azp"),
    "azp-with-adj-float-azp": (lambda: azp_with_adj(1.0, torch.zeros(1, 8, dtype=torch.int32)), "azp"),
    "azp-with-adj-int64-adj": (lambda: azp_with_adj(1, torch.zeros(1, 8, dtype=torch.int64)), "azp_adj"),
    "azp-with-adj-shape": (lambda: azp_with_adj(1, torch.zeros(2, 8, dtype=torch.int32)), "azp_adj"),
    "azp-with-adj-overflow": (lambda: azp_with_adj(-128, torch.tensor([[2**25]], dtype=torch.int32)), "azp"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_bad_input_raises_typed_error(case):
    fn, name = CASES[case]
    with pytest.raises(InvalidArgumentError) as ei:
        fn()
    assert isinstance(ei.value, ValueError)
    assert ei.value.argument == name
    assert str(ei.value).startswith(f"{name}: ")


def test_per_channel_calibrator_rejects_changing_channel_count():
    cal = MaxCalibrator(axis=1)
    cal.observe(X)
    with pytest.raises(InvalidArgumentError) as ei:
        cal.observe(torch.randn(4, 32))
    assert ei.value.argument == "x"


def test_errors_leave_calibrator_state_untouched():
    cal = PercentileCalibrator()
    cal.observe(X)
    before = cal.histogram()
    with pytest.raises(InvalidArgumentError):
        cal.observe(_with(NAN))
    after = cal.histogram()
    assert torch.equal(before[0], after[0]) and cal.num_observed == X.numel()
