#!/usr/bin/env python3
"""Run one fused int8 GEMM (per-token x per-channel scales + bias, bf16 out) and check it against a
float64 reference; then a tiny Hugging Face Llama (random weights, no download) quantized with every
W8A8 scheme: logits error against bf16 and 16 greedy tokens decoded from a CUDA graph.
Without a GPU it says so and exits 0 (kernels can still be generated and built)."""
import sys
import time

import torch

import cutlass_gemm


def main() -> int:
    if not torch.cuda.is_available():
        print("no CUDA GPU here: kernels were generated/compiled, nothing to run")
        return 0
    m, n, k = 1000, 4096, 4096
    g = torch.Generator(device="cuda").manual_seed(0)
    a = torch.randint(-128, 128, (m, k), dtype=torch.int8, device="cuda", generator=g)
    w = torch.randint(-128, 128, (n, k), dtype=torch.int8, device="cuda", generator=g)
    sa = torch.rand(m, 1, device="cuda", generator=g) * 1e-2
    sb = torch.rand(1, n, device="cuda", generator=g) * 1e-2
    bias = torch.randn(n, device="cuda", generator=g).bfloat16()
    t0 = time.perf_counter()
    out = cutlass_gemm.scaled_mm(a, w.t(), sa, sb, torch.bfloat16, bias)
    torch.cuda.synchronize()
    ref = sa.double() * sb.double() * (a.double() @ w.double().t()) + bias.double()
    rel = ((out.double() - ref).norm() / ref.norm()).item()
    print(f"{torch.cuda.get_device_name()}: scaled_mm {m}x{n}x{k} bf16, first call {1e3 * (time.perf_counter() - t0):.1f} ms, "
          f"relative error vs float64 {rel:.2e}")
    if rel >= 2e-2:
        return 1
    return llama_demo()


def llama_demo() -> int:
    import copy
    try:
        import transformers
    except ImportError:
        print("transformers is not installed: skipping the tiny-Llama demo (pip install transformers)")
        return 0
    import cutlass_gemm.nn as cnn
    cfg = transformers.LlamaConfig(vocab_size=512, hidden_size=256, intermediate_size=512, num_hidden_layers=2,
                                   num_attention_heads=4, num_key_value_heads=4, max_position_embeddings=128)
    torch.manual_seed(0)
    model = transformers.LlamaForCausalLM(cfg).to("cuda", torch.bfloat16).eval()
    ids = torch.randint(0, 512, (2, 32), device="cuda")
    with torch.no_grad():
        ref = model(ids, use_cache=False).logits.double()
    print(f"tiny Llama (2 layers, hidden 256), bf16 greedy: {cnn.greedy_generate(model, ids[:1, :8], 16).tolist()[0]}")
    worst = 0.0
    for scheme in sorted(cnn.SCHEMES):
        q = copy.deepcopy(model)
        cals = None
        if scheme.endswith("static"):
            cals = cnn.calibrate(q, [ids], forward=lambda m, b: m(b, use_cache=False), skip=["lm_head"])
        report = cnn.quantize_model(q, scheme, skip=["lm_head"], calibration=cals)
        with torch.no_grad():
            rel = ((q(ids, use_cache=False).logits.double() - ref).norm() / ref.norm()).item()
        tokens = cnn.greedy_generate(q, ids[:1, :8], 16)
        worst = max(worst, rel)
        print(f"  {scheme:18s} {len(report.quantized)} layers quantized, logits rel. error vs bf16 {rel:.2e}, "
              f"CUDA-graph greedy: {tokens.tolist()[0]}")
    return 0 if worst < 0.15 else 1


if __name__ == "__main__":
    sys.exit(main())
