#!/usr/bin/env python3
"""Run one fused int8 GEMM (per-token x per-channel scales + bias, bf16 out) and check it against a
float64 reference; then a tiny Hugging Face Llama (random weights, no download) quantized with every
W8A8 and weight-only scheme: logits error against bf16 and 16 greedy tokens decoded from a CUDA graph; then a
ResNet-50 (random weights; torchvision's if installed, else tools/resnet50.py) under w4a16 and w8a16 (every conv but
the stem: 1x1 ones on the weight-only GEMM, the others on its implicit-GEMM form) at batch 1 and 32, and under
w8a8-int8 (its k x k and strided convs on the int8 implicit GEMM, SM90 or SM80), w8a8-int8-static and the int8 chain
(BatchNorm folded, int8 activations between convs) at batch 32: relative error vs fp32 and time vs the fp16 cuDNN
model.
Before it runs anything it builds, side by side, the torch extension and every kernel tools/demo_kernels.txt names
that the cache lacks (one pool of nvcc jobs: a few minutes on an empty cache, instead of each kernel compiling in turn
inside the call that first needs it), and at the end it names any kernel it still had to build on first use.
`--record FILE` adds the names of the kernels the run loaded to FILE: that is how demo_kernels.txt is made
(runtime/kernel_list.py; the environment variable CUTLASS_GEMM_RECORD_KERNELS does the same for any program).
Without a GPU it says so and exits 0 (kernels can still be generated and built)."""
import argparse
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import torch

import cutlass_gemm

DEMO_KERNELS = Path(__file__).resolve().parent / "demo_kernels.txt"


def parse_args(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--kernels", type=Path, default=DEMO_KERNELS, metavar="FILE",
                   help="kernel list to build before the run (default: %(default)s)")
    p.add_argument("--no-prebuild", action="store_true", help="build nothing ahead: every kernel on first use")
    p.add_argument("--jobs", type=int, default=None, help="parallel nvcc processes (default: the usable CPUs)")
    p.add_argument("--record", type=Path, metavar="FILE", help="add the names of the kernels this run loads to FILE")
    return p.parse_args(argv)


def prebuild(kernels: Path, jobs) -> bool:
    """The extension (ninja, in a thread) beside every kernel of the list that this GPU's kernel family runs (the
    recorded list holds SM90 kernels: on an SM8x GPU the demo selects SM80 ones, built on first use); False if any
    failed."""
    from cutlass_gemm.kernels.families import config_from_name
    from cutlass_gemm.ops.gemm import kernel_sm
    from cutlass_gemm.runtime import extension, kernel_list
    try:
        sm = kernel_sm(torch.cuda.current_device())
    except Exception as exc:  # a GPU no kernel family runs on: the demo's first call says so itself
        print(f"prebuild skipped: {exc}")
        return True
    names = [n for n in kernel_list.read_list(kernels) if config_from_name(n).sm == sm]
    t0 = time.perf_counter()
    with ThreadPoolExecutor(max_workers=1) as one:
        ext = one.submit(extension.load)
        report = kernel_list.prebuild(names, jobs)
        ready = ext.result() is not None
    print(f"prebuild ({kernels.name}, {len(names)} SM{sm} kernels): {report}; torch extension "
          f"{'ready' if ready else 'UNAVAILABLE'}; {time.perf_counter() - t0:.0f} s in all", flush=True)
    return report.ok and ready


def main(argv=None) -> int:
    args = parse_args(argv)
    if not torch.cuda.is_available():
        print("no CUDA GPU here: kernels were generated/compiled, nothing to run")
        return 0
    t_start = time.perf_counter()
    built_ok = True if args.no_prebuild else prebuild(args.kernels, args.jobs)
    status = run()
    from cutlass_gemm.runtime import kernel_list, loader
    names = kernel_list.loaded_names()
    late = [name for name, _ in loader.jit_builds]
    print(f"demo: {len(names)} compiled kernels loaded, {len(late)} built on first use"
          + (f" (not in {args.kernels.name}: {', '.join(late)})" if late and not args.no_prebuild else "")
          + f"; {time.perf_counter() - t_start:.0f} s in all, exit status {status or int(not built_ok)}")
    if args.record:
        kernel_list.write_list(args.record, names, header="kernels tools/demo.py loads (python tools/demo.py "
                               "--record FILE on an SM90 GPU); the demo builds them before it runs")
        print(f"recorded into {args.record}")
    return status or int(not built_ok)


def run() -> int:
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
    status = llama_demo()
    return resnet_demo() or status


def resnet_demo() -> int:
    """ResNet-50 (channels_last) under the weight-only schemes at batch 1 and 32 (w4a16 / w8a16: every conv but the
    stem, bench_conv_wo.resnet_wo_rows), then at batch 32 under each int8 scheme that quantizes its k x k convs
    (w8a8-int8, w8a8-int8-static, and the int8 chain of nn.chain_int8; SM80+, bench_conv.resnet_rows), against the
    fp16 cuDNN model, eager wall clock and CUDA-graph GPU time. Exit status 1 if a model's relative error vs fp32
    exceeds its bound: 0.15 for int8, 0.05 for w8a16, 0.6 for w4a16 (int4 g128 through 52 random-weight layers: ~0.47
    on the H200, session 54, where the kernels themselves add ~5e-4 to the dequantized-weight model)."""
    from pathlib import Path
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from bench_conv import resnet_rows
    from bench_conv_wo import resnet_wo_rows
    torch.backends.cudnn.benchmark = True
    t0 = time.perf_counter()
    lines, rows = resnet_wo_rows()
    print("\n".join(lines) + f"\n  (quantize, capture and time: {time.perf_counter() - t0:.1f} s)")
    bound = {"w4a16": 0.6, "w8a16": 0.05}
    ok = all(r["rel_err"] < bound.get(r["model"], 0.15) for r in rows)
    from cutlass_gemm.errors import UnsupportedDeviceError
    from cutlass_gemm.ops.conv_igemm import kernel_config
    try:  # SM90 kernels on 9.0, SM80 ones on 8.x (since session 57)
        kernel_config(torch.cuda.current_device(), "bf16", "relu", 1, 64, 64)
    except UnsupportedDeviceError as exc:
        print(f"ResNet-50 int8 demo skipped: {exc}")
        return 0 if ok else 1
    t0 = time.perf_counter()
    lines, rows = resnet_rows()
    print("\n".join(lines) + f"\n  (quantize, calibrate, capture and time: {time.perf_counter() - t0:.1f} s)")
    return 0 if ok and all(r["rel_err"] < 0.15 for r in rows) else 1


def llama_demo() -> int:
    """Tiny Llama in bf16 on the GPU, quantized with every scheme; exit status 1 if an error is too large
    or the CUDA-graph tokens differ from eager decoding."""
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
    ids = torch.randint(0, 512, (2, 32), generator=torch.Generator().manual_seed(1)).cuda()
    prompt = ids[:1, :8]
    with torch.no_grad():
        ref = model(ids, use_cache=False).logits.double()
    base = cnn.greedy_generate_cuda_graph(model, prompt, 16)
    print(f"tiny Llama (2 layers, hidden 256, random weights) bf16: CUDA-graph greedy {base.tokens.tolist()[0]} "
          f"({base.ms_per_step:.3f} ms/step)")
    from cutlass_gemm.errors import UnsupportedDeviceError
    ok = True
    for scheme in sorted(cnn.SCHEMES) + sorted(cnn.WEIGHT_ONLY_SCHEMES):
        q = copy.deepcopy(model)
        cals = None
        try:
            if scheme.endswith("static"):
                cals = cnn.calibrate(q, [ids], forward=lambda m, b: m(b, use_cache=False), skip=["lm_head"],
                                     dtype=torch.float8_e4m3fn if "fp8" in scheme else torch.int8)
            report = cnn.quantize_model(q, scheme, skip=["lm_head"], calibration=cals)
            with torch.no_grad():
                rel = ((q(ids, use_cache=False).logits.double() - ref).norm() / ref.norm()).item()
        except UnsupportedDeviceError as exc:  # e.g. fp8 below SM89, blockwise fp8 below SM90: said, not failed
            print(f"  {scheme:17s} skipped on this GPU: {exc}")
            continue
        graphed = cnn.greedy_generate_cuda_graph(q, prompt, 16)
        eager = cnn.greedy_generate_eager(q, prompt, 16)
        same = torch.equal(graphed.tokens, eager.tokens)
        ok &= same and rel < {"w4a16": 0.4, "w8a16": 0.03}.get(scheme, 0.06 if "int8" in scheme else 0.12)
        print(f"  {scheme:17s} {len(report.quantized)} layers, logits rel. error vs bf16 {rel:.2e}, CUDA-graph greedy "
              f"{graphed.tokens.tolist()[0]} ({graphed.ms_per_step:.3f} ms/step; eager {eager.ms_per_step:.3f}, "
              f"{'same tokens' if same else 'DIFFERENT tokens'})")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
