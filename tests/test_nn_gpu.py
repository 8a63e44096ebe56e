"""GPU: the quantized layers — every layer scheme against the float64 reference of test_nn, a Linear-SiLU-Linear
MLP under torch.compile(fullgraph=True) and with no host sync in forward, CPU-quantized models moved to
the GPU. The tiny Llama is in test_llama_gpu.py. Run with `pytest -m gpu`."""
import copy

import pytest
import torch
from torch import nn

import cutlass_gemm.nn as cnn
from gpu_helpers import eager_without_sync
from test_nn import ALL_LINEAR_SCHEMES, LAYERS, _linear, _reference, strided_inputs

pytestmark = pytest.mark.gpu


@pytest.mark.parametrize("cls,act", LAYERS)
def test_layer_on_gpu_matches_reference_and_cpu_quantization(cls, act):
    lin = _linear()
    x = (torch.randn(3, 7, 64) * 2).bfloat16()  # 3-D, 21 rows
    static = act.startswith("static")
    cpu = cls.from_float(lin, act=act, calibration_data=[x] if static else None)
    gpu = cls.from_float(copy.deepcopy(lin).cuda(), act=act, calibration_data=[x.cuda()] if static else None)
    for k, v in cpu.state_dict().items():  # quantized where the weight is, identically
        assert gpu.state_dict()[k].is_cuda and torch.equal(gpu.state_dict()[k].cpu(), v), k
    y = gpu(x.cuda())
    assert y.shape == (3, 7, 40) and y.dtype == torch.bfloat16
    ref = _reference(cpu, x)
    assert ((y.cpu().double() - ref).abs() <= 1e-2 * ref.abs() + 1e-2 * ref.abs().max()).all()


def _mlp(scheme):
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(256, 512), nn.SiLU(), nn.Linear(512, 256)).to("cuda", torch.bfloat16)
    x = torch.randn(4, 9, 256, device="cuda").bfloat16()
    cals = cnn.calibrate(model, [x]) if scheme.endswith("static") else None
    cnn.quantize_model(model, scheme, calibration=cals)
    return model, x


@pytest.mark.parametrize("scheme", sorted(cnn.SCHEMES))
def test_compile_fullgraph_and_no_host_sync(scheme):
    model, x = _mlp(scheme)
    with torch.no_grad():
        eager = eager_without_sync(model, x)
        compiled = torch.compile(model, fullgraph=True)
        out = compiled(x)
    # SiLU is Inductor's between the opaque ops: the same kernels, last-bit differences at most
    assert ((out.float() - eager.float()).norm() / eager.float().norm()).item() < 1e-2


def test_cpu_quantized_model_moved_to_gpu_matches_gpu_quantized():
    torch.manual_seed(0)
    base = nn.Sequential(nn.Linear(128, 64), nn.ReLU(), nn.Linear(64, 32)).bfloat16()
    on_cpu = copy.deepcopy(base)
    cnn.quantize_model(on_cpu, "w8a8-int8-asym")
    on_cpu.to("cuda")
    on_gpu = copy.deepcopy(base).to("cuda")
    cnn.quantize_model(on_gpu, "w8a8-int8-asym")
    for a, b in zip(on_cpu.state_dict().values(), on_gpu.state_dict().values()):
        assert a.device.type == "cuda" and torch.equal(a, b)
    x = torch.randn(5, 128, device="cuda").bfloat16()
    assert torch.equal(on_cpu(x), on_gpu(x))


def _compile_first_mlp(scheme):
    """compile_first's MLP (256 -> 512 -> 256: its kernels) quantized under `scheme` on the CPU (calibrated on random
    rows for the static schemes)."""
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(256, 512), nn.ReLU(), nn.Linear(512, 256)).to(torch.bfloat16)
    cals = None
    if scheme.endswith("static"):
        cals = cnn.calibrate(model, [torch.randn(16, 256, dtype=torch.bfloat16)],
                             dtype=torch.float8_e4m3fn if "fp8" in scheme else torch.int8)
    cnn.quantize_model(model, scheme, calibration=cals)
    return model


@pytest.mark.parametrize("scheme", ALL_LINEAR_SCHEMES)
def test_every_linear_layer_takes_any_input_strides_gpu(scheme):
    """test_nn's strided inputs (transposed, sliced, unmergeable leading dimensions; 36 rows) through compile_first's
    MLP (256 -> 512 -> 256: its kernels) quantized on the CPU and moved: the outputs of the contiguous copy (within
    1e-3 of the norm: the same kernels on the same values)."""
    model = _compile_first_mlp(scheme).cuda()
    for name, x, xc in strided_inputs(lambda shape: torch.randn(shape, device="cuda", dtype=torch.bfloat16)):
        with torch.no_grad():
            y, want = model(x), model(xc)
        assert y.shape == want.shape == (4, 9, 256)
        err = float((y.double() - want.double()).norm() / want.double().norm())
        assert torch.isfinite(y).all() and err <= 1e-3, (scheme, name, err)


@pytest.mark.parametrize("scheme", ALL_LINEAR_SCHEMES)
def test_every_linear_layer_takes_empty_single_row_and_other_dtype_inputs_gpu(scheme):
    """The inputs nn.Linear takes beyond (rows, K) in the layer's dtype: no rows (2-D and 3-D), a 1-D vector, and
    float16 / float32 x for a bfloat16 layer (returned in x's dtype). Shapes and dtypes as F.linear's; the 1-D call
    equals its one-row twin; the float16 / float32 outputs match the same model's CPU float reference on the same x
    (within 1e-2 of the norm; the quantizers follow one rule on both)."""
    cpu = _compile_first_mlp(scheme)
    model = copy.deepcopy(cpu).cuda()
    with torch.no_grad():
        for shape in ((0, 256), (2, 0, 256)):
            y = model(torch.randn(shape, device="cuda", dtype=torch.bfloat16))
            assert y.shape == shape[:-1] + (256,) and y.dtype == torch.bfloat16
        v = torch.randn(256, device="cuda", dtype=torch.bfloat16)
        y, want = model(v), model(v[None])[0]
        assert y.shape == (256,) and torch.equal(y, want)
        for dtype in (torch.float16, torch.float32):
            x = torch.randn(3, 256).to(dtype)
            y, want = model(x.cuda()), cpu(x)
            assert y.shape == (3, 256) and y.dtype == want.dtype == dtype and torch.isfinite(y).all()
            err = float((y.cpu().double() - want.double()).norm() / want.double().norm())
            assert err <= 1e-2, (scheme, dtype, err)
