"""GPU: the quantized layers end to end — a tiny Hugging Face Llama under every scheme (logits close to
bf16, greedy decoding replayed from a CUDA graph equals eager decoding), torch.compile(fullgraph=True),
no host sync in forward, CPU-quantized models moved to the GPU. Run with `pytest -m gpu`."""
import copy

import pytest
import torch
from torch import nn

import cutlass_gemm.nn as cnn
from test_nn import calibrated, tiny_llama

pytestmark = pytest.mark.gpu


@pytest.mark.parametrize("scheme", sorted(cnn.SCHEMES))
def test_tiny_llama_logits_and_cuda_graph_generation(scheme):
    model = tiny_llama(torch.bfloat16, "cuda")
    ids = torch.randint(0, 512, (2, 32), device="cuda", generator=torch.Generator(device="cuda").manual_seed(1))
    q = copy.deepcopy(model)
    report = calibrated(q, scheme, ids)
    assert len(report.quantized) == 14
    with torch.no_grad():
        ref = model(ids, use_cache=False).logits.double()
        out = q(ids, use_cache=False).logits.double()
    rel = ((out - ref).norm() / ref.norm()).item()
    print(f"{scheme}: logits relative error vs bf16 {rel:.3e}")
    assert rel < (0.05 if "int8" in scheme else 0.15), rel
    prompt = ids[:1, :8]
    eager = cnn.greedy_generate(q, prompt, 16, cuda_graph=False)
    graphed = cnn.greedy_generate(q, prompt, 16, cuda_graph=True)
    print(f"{scheme}: 16 greedy tokens under a CUDA graph: {graphed.tolist()[0]}")
    assert graphed.shape == (1, 16) and torch.equal(graphed, eager)


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
        eager = model(x)
        torch.cuda.synchronize()
        torch.cuda.set_sync_debug_mode("error")  # a synchronising call in forward raises
        try:
            again = model(x)
        finally:
            torch.cuda.set_sync_debug_mode("default")
        assert torch.equal(eager, again)
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
