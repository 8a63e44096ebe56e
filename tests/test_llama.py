"""A tiny Hugging Face Llama (random weights, no download) quantized with every W8A8 scheme, on the CPU
through the ops' float reference path: logits against the float model, and the fixed-buffer greedy
decoding step of `cutlass_gemm.nn.graph_generate` against plain greedy decoding.

Measured (torch 2.13 CPU, transformers 5.x, seed 0, 2 x 24 tokens), logits relative error vs the
float32 model: int8 1.96e-2, int8-asym 1.95e-2, int8-static 2.90e-2, fp8 7.28e-2, fp8-static 6.89e-2,
fp8-block128 7.24e-2.
The bounds below are ~1.5x those: a wrong scale, zero point or transposed weight gives O(1) errors.
"""
import copy

import pytest
import torch

import cutlass_gemm.nn as cnn

BOUNDS = {"w8a8-int8": 0.035, "w8a8-int8-asym": 0.035, "w8a8-int8-static": 0.05,
          "w8a8-fp8": 0.1, "w8a8-fp8-static": 0.1, "fp8-block128": 0.1}
LAYER_TYPES = {"fp8-block128": cnn.Fp8BlockLinear}


def tiny_llama(dtype=torch.float32, device="cpu"):
    """LlamaForCausalLM: vocab 512, hidden 256, MLP 512, 2 layers, 4 heads; 14 linear layers + lm_head."""
    transformers = pytest.importorskip("transformers")
    cfg = transformers.LlamaConfig(vocab_size=512, hidden_size=256, intermediate_size=512, num_hidden_layers=2,
                                   num_attention_heads=4, num_key_value_heads=4, max_position_embeddings=128)
    torch.manual_seed(0)
    return transformers.LlamaForCausalLM(cfg).to(device=device, dtype=dtype).eval()


def quantized(model, scheme, ids):
    """A deep copy of `model` quantized with `scheme` (lm_head kept float), calibrated on `ids` for the
    static schemes; returns (model, report)."""
    q = copy.deepcopy(model)
    cals = None
    if scheme.endswith("static"):
        cals = cnn.calibrate(q, [ids], forward=lambda m, b: m(b, use_cache=False), skip=["lm_head"],
                             dtype=torch.float8_e4m3fn if "fp8" in scheme else torch.int8)
    return q, cnn.quantize_model(q, scheme, skip=["lm_head"], calibration=cals)


def relative_error(out, ref):
    out, ref = out.double(), ref.double()
    return ((out - ref).norm() / ref.norm()).item()


@pytest.fixture(scope="module")
def llama_and_ids():
    model = tiny_llama(torch.float32)
    ids = torch.randint(0, 512, (2, 24), generator=torch.Generator().manual_seed(1))
    return model, ids


def test_bounds_cover_every_scheme():
    assert set(BOUNDS) == set(cnn.SCHEMES)


@pytest.mark.parametrize("scheme", sorted(cnn.SCHEMES))
def test_tiny_llama_logits_every_scheme(llama_and_ids, scheme):
    model, ids = llama_and_ids
    with torch.no_grad():
        ref = model(ids, use_cache=False).logits
        q, report = quantized(model, scheme, ids)
        assert len(report.quantized) == 14 and report.skipped == {"lm_head": "skipped by the user"}
        layer = q.model.layers[0].mlp.down_proj
        assert isinstance(layer, LAYER_TYPES.get(scheme, cnn.Fp8Linear if "fp8" in scheme else cnn.Int8Linear))
        out = q(ids, use_cache=False).logits
    assert out.dtype == torch.float32 and out.shape == ref.shape  # float32 model: answers in float32
    rel = relative_error(out, ref)
    print(f"{scheme}: logits relative error vs the float32 model {rel:.3e}")
    assert rel < BOUNDS[scheme], rel


def test_fixed_buffer_decoding_equals_plain_greedy(llama_and_ids):
    """The graph-capturable step (whole fixed-length buffer, device position) decodes what plain greedy
    decoding over the growing prefix does; here eagerly on the CPU, for a quantized model."""
    model, ids = llama_and_ids
    q, _ = quantized(model, "w8a8-int8", ids)
    prompt = ids[:1, :6]
    gen = cnn.greedy_generate_eager(q, prompt, 8)
    seq = prompt
    with torch.no_grad():
        for _ in range(8):
            nxt = q(seq, use_cache=False).logits[0, -1].argmax()
            seq = torch.cat([seq, nxt.view(1, 1)], dim=1)
    assert gen.tokens.shape == (1, 8) and gen.tokens.dtype == torch.long
    assert torch.equal(gen.tokens, seq[:, 6:]) and gen.ms_per_step > 0


def test_generation_argument_errors(llama_and_ids):
    from cutlass_gemm.errors import InvalidArgumentError
    model, ids = llama_and_ids
    for args, arg in [((model, ids, 4), "prompt_ids"), ((model, ids[:1].int(), 4), "prompt_ids"),
                      ((model, ids[:1], 0), "steps")]:
        with pytest.raises(InvalidArgumentError) as ei:
            cnn.greedy_generate_eager(*args)
        assert ei.value.argument == arg
    with pytest.raises(InvalidArgumentError) as ei:
        cnn.greedy_generate_cuda_graph(model, ids[:1], 4)  # a CPU prompt cannot be captured
    assert ei.value.argument == "prompt_ids"
