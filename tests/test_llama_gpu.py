"""GPU: the tiny Hugging Face Llama of test_llama.py in bf16 on CUDA under every W8A8, weight-only and per-block scheme: logits
against the bf16 model, and 16 greedy tokens decoded with one step captured in a CUDA graph and replayed,
which must equal the same loop run eagerly (and run faster: no Python or launch overhead per step).
Run with `pytest -m gpu -s` to see the per-scheme figures."""
import pytest
import torch

import cutlass_gemm.nn as cnn
from test_llama import quantized, relative_error, tiny_llama

pytestmark = pytest.mark.gpu

# Logits relative error vs the bf16 model, measured on an H100 (torch 2.11, transformers 5.17, 2026-11-23):
# int8 2.42e-2, int8-asym 2.32e-2, int8-static 3.48e-2, fp8 7.91e-2, fp8-static 8.32e-2; decoding
# 0.29 ms/step from the CUDA graph against 2.3-2.7 ms/step eager. Bounds: about 1.5x the errors.
BOUNDS = {"w8a8-int8": 0.05, "w8a8-int8-asym": 0.05, "w8a8-int8-static": 0.06,
          "w8a8-fp8": 0.12, "w8a8-fp8-static": 0.12,
          # fp8 per 128 x 128 weight block / per token per 128 K (7.24e-2 vs float32 on the CPU; passes on the H200)
          "fp8-block128": 0.12,
          # int8 per channel per 128-wide K block / per token per 128 K (Int8BlockLinear): per-block scales are at
          # least as fine as per-token int8's, so per-token int8's bound
          "w8a8-int8-block128": 0.05,
          # weight-only, measured on the H100 (2026-11-23, tools/results/h100-2026-11-23/wo/call3): w8a16
          # 1.90e-2, w4a16 2.90e-1 (int4 g128 symmetric on these random Gaussian weights: ~11% RMS weight
          # error per layer, compounded over 14 layers); bounds about 1.4x
          "w8a16": 0.03, "w4a16": 0.4}


@pytest.fixture(scope="module")
def llama_and_ids():
    model = tiny_llama(torch.bfloat16, "cuda")
    ids = torch.randint(0, 512, (2, 32), generator=torch.Generator().manual_seed(1)).cuda()
    return model, ids


@pytest.mark.parametrize("scheme", sorted(cnn.SCHEMES) + sorted(cnn.WEIGHT_ONLY_SCHEMES) + sorted(cnn.BLOCK_SCHEMES))
def test_tiny_llama_logits_and_cuda_graph_generation(llama_and_ids, scheme):
    model, ids = llama_and_ids
    q, report = quantized(model, scheme, ids)
    assert len(report.quantized) == 14 and all(b.is_cuda for b in q.buffers())
    with torch.no_grad():
        ref = model(ids, use_cache=False).logits
        out = q(ids, use_cache=False).logits
    assert out.dtype == torch.bfloat16
    rel = relative_error(out, ref)
    prompt = ids[:1, :8]
    graphed = cnn.greedy_generate_cuda_graph(q, prompt, 16)  # first: its warm-up also warms the eager run
    eager = cnn.greedy_generate_eager(q, prompt, 16)
    print(f"{scheme}: logits relative error vs bf16 {rel:.3e}; 16 greedy tokens {graphed.tokens.tolist()[0]}; "
          f"{graphed.ms_per_step:.3f} ms/step from the CUDA graph, {eager.ms_per_step:.3f} ms/step eager")
    assert rel < BOUNDS[scheme], rel
    assert graphed.tokens.shape == (1, 16) and torch.equal(graphed.tokens, eager.tokens)
    assert graphed.ms_per_step < eager.ms_per_step


def test_cuda_graph_generation_of_the_float_model(llama_and_ids):
    """The helper itself, on the unquantized bf16 model: graph replay equals eager decoding."""
    model, ids = llama_and_ids
    prompt = ids[1:, :8]
    assert torch.equal(cnn.greedy_generate_cuda_graph(model, prompt, 16).tokens,
                       cnn.greedy_generate_eager(model, prompt, 16).tokens)
